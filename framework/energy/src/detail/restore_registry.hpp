#pragma once
/// \file
/// The values actuators must put back, kept in a form a fatal-signal handler can write with
/// nothing but pwrite(): every file is opened and every value formatted when it is saved.
/// Live plans sit in a fixed process-wide table of atomic pointers that the atexit handler and
/// the signal handler walk without locks.

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace gaea::energy::detail {

/// The originals one actuator changes, saved before its first write.
/// Thread safety: save/arm/restore_now are called under the owning actuator's mutex; the signal
/// and atexit handlers call restore_now concurrently, which the `armed` flag makes write once.
class restore_plan {
 public:
  /// `capacity`: most values this plan will ever hold (fixed, so entries never move under a
  /// handler that reads them). Registers the plan for the atexit and signal handlers.
  explicit restore_plan(std::size_t capacity);
  /// Unregisters, waiting for a signal handler that may still be reading this plan.
  ~restore_plan();
  restore_plan(const restore_plan&) = delete;
  restore_plan& operator=(const restore_plan&) = delete;

  /// Saves `bytes` to be written back at `offset` of `fd` (which must stay open while the plan
  /// lives). False when the plan is full or the value longer than an entry holds.
  bool save(int fd, std::int64_t offset, std::string_view bytes) noexcept;
  /// Declares that a saved value is about to change: the next restore_now() writes.
  void arm() noexcept { armed_.store(true, std::memory_order_seq_cst); }
  /// If armed, writes every saved value back, newest first, and disarms. Async-signal-safe.
  /// Returns true when it wrote and every write succeeded.
  bool restore_now() noexcept;
  /// True once a fatal signal restored this plan: its actuator must not write again.
  bool retired() const noexcept { return retired_.load(std::memory_order_acquire); }
  /// False when the process-wide table was full: only restore()/destructor then restore.
  bool registered() const noexcept { return slot_ >= 0; }

  /// Restores every live plan of this process (the atexit path; also used by the handler).
  /// `retire` marks them retired. Async-signal-safe.
  static void restore_all(bool retire) noexcept;

 private:
  struct entry {
    int fd = -1;
    std::int64_t offset = 0;
    std::size_t len = 0;
    std::array<char, 64> bytes{};
  };
  std::unique_ptr<entry[]> entries_;
  std::size_t capacity_;
  std::atomic<std::size_t> size_{0};
  std::atomic<bool> armed_{false};
  std::atomic<bool> retired_{false};
  pid_t pid_;  // a forked child must not restore its parent's settings through inherited fds
  int slot_ = -1;
};

/// A function the atexit and fatal-signal handlers call, before they restore the plans, with the
/// context it was registered with. It must be async-signal-safe (e.g. atomic stores only). The
/// arbiter withdraws its rank's requests this way.
using exit_hook = void (*)(void* context) noexcept;
/// Registers `fn(context)` (`context` not null); returns the slot to pass to remove_exit_hook, -1
/// when the fixed table is full (then only the normal paths run). Thread-safe.
int add_exit_hook(exit_hook fn, void* context) noexcept;
/// Unregisters the hook in `slot` (negative: nothing), waiting for a handler still calling it.
void remove_exit_hook(int slot) noexcept;

/// Installs the restoring handler for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT and SIGSEGV,
/// remembering the previous dispositions (signals set to SIG_IGN are left alone). Called again
/// it re-installs where someone replaced the handler since. The handler restores every plan,
/// puts the previous disposition back and re-raises. Thread-safe.
void install_fatal_signal_handlers();

}  // namespace gaea::energy::detail
