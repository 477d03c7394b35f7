#pragma once
/// \file
/// The arbiter's shared-memory table (gaea/energy/arbiter.hpp): one per (job key, node), mapped
/// by every rank of the job on the node. Per CPU the outcome applied; per CPU and local rank that
/// rank's request, one 32-bit word (vote bits below) so that a fatal-signal handler withdraws it
/// with one atomic store; a robust process-shared mutex for everything that decides.

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gaea/energy/arbiter.hpp"

namespace gaea::energy::detail {

/// A rank's request for one CPU (0 = no request: the rank does not run there, or left).
namespace vote {
inline constexpr std::uint32_t present = 1u;       // the rank may run on the CPU
inline constexpr std::uint32_t calls_low = 2u;     // its collectives want it low
inline constexpr std::uint32_t governor_low = 4u;  // its governor wants it low
inline constexpr std::uint32_t low_bits = calls_low | governor_low;
inline constexpr int level_shift = 4;  // bits 4..6: the throttle level
inline constexpr std::uint32_t level_bits = 7u << level_shift;
inline constexpr std::uint32_t source_bit(dvfs_source s) noexcept {
  return s == dvfs_source::calls ? calls_low : governor_low;
}
inline constexpr int level(std::uint32_t v) noexcept {
  return static_cast<int>((v & level_bits) >> level_shift);
}
inline constexpr std::uint32_t with_level(std::uint32_t v, int level) noexcept {
  return (v & ~level_bits) | (static_cast<std::uint32_t>(level) << level_shift);
}
inline constexpr bool low(std::uint32_t v) noexcept {
  return (v & low_bits) != 0;
}
}  // namespace vote

}  // namespace gaea::energy::detail

namespace gaea::energy {

/// One rank's attachment (see attach_arbiter). Thread safety: the atomic reads (my_vote, applied,
/// epoch) from any thread at any time; everything else with a guard held.
class arbiter {
 public:
  explicit arbiter(const arbiter_config& cfg);
  /// Withdraws this rank's requests entirely, sweeps dead ranks, unmaps; the last rank to leave
  /// unlinks the name if nobody did.
  ~arbiter();
  arbiter(const arbiter&) = delete;
  arbiter& operator=(const arbiter&) = delete;

  /// Holds the table's lock (robust: a holder that died is swept and the lock made consistent).
  class guard {
   public:
    explicit guard(arbiter& a);
    ~guard();
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

   private:
    arbiter& a_;
  };

  /// True when `cpu` is in this rank's mask.
  bool mine(int cpu) const noexcept;
  const std::vector<int>& cpus() const noexcept { return cpus_; }
  /// This rank's request for `cpu` (0 when not mine). Lock-free.
  std::uint32_t my_vote(int cpu) const noexcept;
  /// Replaces this rank's request for `cpu` (a CPU of mine; guard held); bumps nothing.
  void set_my_vote(int cpu, std::uint32_t v) noexcept;
  /// What the requests of every rank decide for `cpu` (guard held): vote::calls_low set when it
  /// goes low, and the level; 0 when nobody asks.
  std::uint32_t outcome(int cpu) const noexcept;
  /// The outcome last applied to `cpu` (same encoding). Lock-free.
  std::uint32_t applied(int cpu) const noexcept;
  void set_applied(int cpu, std::uint32_t v) noexcept;
  /// Bumped whenever a rank leaves (its requests stop counting): a caller that skipped the lock
  /// because its request was unchanged must take it once more. Lock-free.
  std::uint64_t epoch() const noexcept;
  void unlink_name() noexcept;
  /// Ranks whose process is gone (SIGKILL): their requests withdrawn, counted as left, the epoch
  /// bumped (guard held). One kill(pid, 0) per other attached rank: called when an outcome
  /// overrides this rank's request, where a dead rank's request could be what decides.
  void sweep_dead() noexcept;
  /// True when this process has not swept for a millisecond: an overridden request then takes
  /// the lock to sweep, so that a SIGKILLed rank stops counting soon without a kill() per call.
  bool sweep_due() const noexcept;
  /// sweep_dead() if sweep_due() (guard held).
  void sweep_if_due() noexcept;
  const std::string& name() const noexcept { return name_; }

 private:
  struct header;
  struct rank_entry;
  void lock();
  void unlock() noexcept;
  std::atomic<std::uint32_t>& vote_of(int cpu, int rank) const noexcept;
  std::atomic<std::uint32_t>& applied_of(int cpu) const noexcept;
  rank_entry& rank_of(int rank) const noexcept;
  /// Withdraws this rank's requests with atomic stores only: the fatal-signal path.
  static void on_exit(void* self) noexcept;

  std::string name_;
  std::vector<int> cpus_;
  std::vector<char> mine_;  // by CPU id
  int me_ = 0, ranks_ = 0, table_cpus_ = 0;
  pid_t pid_ = 0;
  void* map_ = nullptr;
  std::size_t bytes_ = 0;
  header* h_ = nullptr;
  rank_entry* rank_table_ = nullptr;               // in the mapping: ranks_ entries
  std::atomic<std::uint32_t>* applied_ = nullptr;  // in the mapping: by CPU
  std::atomic<std::uint32_t>* votes_ = nullptr;    // in the mapping: by CPU, then by rank
  int hook_ = -1;
  std::atomic<std::int64_t> last_sweep_ns_{0};
};

}  // namespace gaea::energy
