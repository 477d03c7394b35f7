#pragma once
/// \file
/// gaea::energy::arbiter — makes the ranks of one job on one node agree on what each CPU gets,
/// when several of them may run on it (unbound ranks, or progress threads placed on a shared PU):
///
/// * DVFS: a CPU is low only while every rank of the job on the node that may run on it (its
///   affinity mask, arbiter_config::cpus) wants it low, and goes back up as soon as one of them
///   wants it high. Inside a rank, the collectives' calls and the progress governor each ask
///   (dvfs_source); the rank wants a CPU low when either of them does.
/// * Throttle: a CPU's level is the least throttled (lowest Tj) level any of those ranks asks for.
///
/// The arbiter is a POSIX shared-memory table per (job key, node): per CPU the state applied, per
/// CPU and local rank that rank's request, and a robust process-shared lock. The rank whose
/// request changes a CPU's outcome writes it, through its own actuator or throttle; so every
/// transition is charged (by the energy model) to the rank whose backend made it, and a request
/// the arbiter suppresses costs nothing. With one rank on the node there is no table at all:
/// attach_arbiter returns null and arbitrated() hands the backend back unchanged.
///
/// Leaving: a rank's requests are withdrawn by restore() (its CPUs go high / T0), by its
/// destructor (withdrawn entirely: it no longer counts), and by the fatal-signal handler
/// (async-signal-safe atomic stores). A rank killed by SIGKILL cannot withdraw anything: its last
/// requests stay until another rank of the node finds its pid gone (every attach and detach, the
/// robust lock's owner-died path, and at most once a millisecond a request that the outcome
/// overrides, sweep dead ranks). A dead rank's
/// "low" never holds a CPU low against a live rank that wants it high; what it can do is keep a
/// CPU that only it could run on where it left it (as without an arbiter). The table's name is
/// unlinked once every rank of the node attached (unlink_name) and the memory goes with the last
/// mapping, so no file stays in /dev/shm after the job, even after SIGKILL.
///
/// Limits: the table assumes every CPU starts at its high frequency and T0. A CPU that an
/// outcome lowers after a rank left is lowered at the next request of a remaining rank on it,
/// not at once. The fatal-signal and exit handlers of a hardware backend write that process's
/// saved originals (the CPU goes high), even on a CPU another rank still holds low: the safe
/// direction.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gaea/energy/actuator.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy {

/// Settings of attach_arbiter; the runtime fills them from what comm and MPI tell it.
struct arbiter_config {
  /// Same on every rank of the job, different between jobs (letters, digits, '-', '_'; at most
  /// 64 characters): the runtime derives it from values world rank 0 broadcasts at start-up.
  std::string job_key;
  int node = 0;         ///< node id (emulated nodes on one host get separate tables)
  int local_rank = 0;   ///< this rank's index among the job's ranks on the node, 0..local_ranks-1
  int local_ranks = 1;  ///< the number of the job's ranks on the node
  /// The CPUs this rank may run on (its affinity mask), which its actuator and throttle manage.
  std::vector<int> cpus;
  /// How long to wait for the rank that creates the table to finish initialising it.
  std::int64_t attach_timeout_ns = 10'000'000'000;
  /// Withdraw this rank's requests on SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGABRT/SIGSEGV (then the
  /// previous disposition runs, as for the actuators).
  bool install_signal_handlers = true;
};

/// One rank's attachment to its node's table. Opaque; shared by the arbitrated actuator(s) and
/// throttle of the rank, and detached when the last of them is destroyed.
class arbiter;

/// Attaches this rank to the table of (cfg.job_key, cfg.node), creating it when this rank comes
/// first. Returns null when cfg.local_ranks <= 1 (nothing to arbitrate). Not collective, but every
/// rank of the node must attach before any of them calls unlink_name(). Throws gaea::error naming
/// the table and the values when the configuration is invalid (key, local rank outside
/// 0..local_ranks-1, a negative CPU or one beyond the node's CPU count), when two ranks claim the
/// same local rank, when the table was created for another number of ranks, or when it cannot be
/// created or did not become ready within attach_timeout_ns. Thread-safe.
std::shared_ptr<arbiter> attach_arbiter(const arbiter_config& cfg);

/// Removes the table's name (the memory stays until the last rank detaches). Call once every rank
/// of the node attached; idempotent, any rank. noexcept.
void unlink_name(arbiter& a) noexcept;

/// The requesters inside one rank (see the file comment).
enum class dvfs_source : std::uint8_t { calls, governor };

/// `inner` behind the arbiter: set_low() records this source's request for the CPU and changes
/// the CPU only when the node's outcome changes (returns true when the request is recorded and any
/// write it needed succeeded, also when the outcome did not change; false for a CPU outside
/// inner's CPUs or a refused write). current_khz() is the outcome applied on the node
/// (low_khz/high_khz), which may differ from what this source asked. restore() withdraws every
/// request of this rank (both sources), raises what that decides, then restores `inner`.
/// transitions(), transition_count() and transition_cost_ns() are inner's: only the writes this
/// rank's backend made. Several sources may wrap one inner (share it). Returns `inner` itself
/// when `arb` is null or `inner` is inactive. Thread-safe as actuator is.
std::shared_ptr<actuator> arbitrated(std::shared_ptr<actuator> inner,
                                     const std::shared_ptr<arbiter>& arb, dvfs_source who);

/// `inner` behind the arbiter: set_level() records this rank's requested level for the CPU and
/// writes only when the node's outcome (the lowest level requested) changes; level() is that
/// outcome. restore() requests T0 everywhere, applies it, then restores `inner`. The transitions
/// and the CPU time by level are inner's (levels as this rank last saw them applied). The no-op
/// path (the same request again) takes no lock. Returns `inner` itself when `arb` is null or
/// `inner` is inactive. Thread-safe as throttle is.
std::unique_ptr<throttle> arbitrated(std::unique_ptr<throttle> inner,
                                     const std::shared_ptr<arbiter>& arb);

}  // namespace gaea::energy
