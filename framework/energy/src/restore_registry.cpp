// The values the actuators must put back, restored at exit and from fatal-signal handlers
// with pwrite() alone.

#include "detail/restore_registry.hpp"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "detail/fd_io.hpp"

namespace gaea::energy::detail {
namespace {

// A fixed table rather than a list: the handlers walk it with loads only, no locks, no
// allocation. 256 live actuators per process is far more than Gaea creates (one per rank).
constexpr std::size_t max_plans = 256;
std::array<std::atomic<restore_plan*>, max_plans> g_plans{};
struct hook_entry {
  std::atomic<exit_hook> fn{nullptr};
  std::atomic<void*> context{nullptr};
};
// Exit hooks: claimed by a compare-exchange on `context`, published by storing `fn` last.
std::array<hook_entry, max_plans> g_hooks{};
// Handlers currently walking g_plans or g_hooks; a plan being destroyed waits until it drops to
// zero.
std::atomic<int> g_walkers{0};

constexpr std::array<int, 6> fatal_signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV};
// Written under g_install_mutex before our handler is installed for that signal; read by the
// handler only.
std::array<struct sigaction, fatal_signals.size()> g_previous{};
std::mutex g_install_mutex;

void restore_at_exit() {
  restore_plan::restore_all(false);
}

void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  restore_plan::restore_all(true);
  for (std::size_t i = 0; i < fatal_signals.size(); ++i)
    if (fatal_signals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  errno = saved_errno;
  // The signal is blocked while we run: it is delivered again, with the previous disposition,
  // as soon as this handler returns (for SIGSEGV the faulting instruction also re-executes).
  raise(sig);
}

// A handler that loaded an entry before it was cleared has already incremented g_walkers (both
// are sequentially consistent), so once it is zero nobody can still be using it.
void wait_for_walkers() noexcept {
  while (g_walkers.load() != 0)
    sched_yield();
}

void restore_at_exit_once() {
  static std::once_flag at_exit_once;
  std::call_once(at_exit_once, [] { std::atexit(restore_at_exit); });
}

}  // namespace

restore_plan::restore_plan(std::size_t capacity)
    : entries_(std::make_unique<entry[]>(capacity)), capacity_(capacity), pid_(getpid()) {
  restore_at_exit_once();
  for (std::size_t i = 0; i < max_plans; ++i) {
    restore_plan* expected = nullptr;
    if (g_plans[i].compare_exchange_strong(expected, this)) {
      slot_ = static_cast<int>(i);
      break;
    }
  }
}

restore_plan::~restore_plan() {
  if (slot_ < 0) return;
  g_plans[static_cast<std::size_t>(slot_)].store(nullptr);
  wait_for_walkers();
}

int add_exit_hook(exit_hook fn, void* context) noexcept {
  try {
    restore_at_exit_once();
  } catch (...) {  // std::call_once can only throw what the lambda throws: nothing
  }
  for (std::size_t i = 0; i < g_hooks.size(); ++i) {
    void* expected = nullptr;
    if (g_hooks[i].context.compare_exchange_strong(expected, context)) {
      g_hooks[i].fn.store(fn);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void remove_exit_hook(int slot) noexcept {
  if (slot < 0) return;
  hook_entry& h = g_hooks[static_cast<std::size_t>(slot)];
  h.fn.store(nullptr);
  wait_for_walkers();
  h.context.store(nullptr);
}

bool restore_plan::save(int fd, std::int64_t offset, std::string_view bytes) noexcept {
  const std::size_t n = size_.load(std::memory_order_relaxed);
  if (n >= capacity_ || bytes.size() > entries_[n].bytes.size()) return false;
  entry& e = entries_[n];
  e.fd = fd;
  e.offset = offset;
  e.len = bytes.size();
  std::memcpy(e.bytes.data(), bytes.data(), bytes.size());
  size_.store(n + 1, std::memory_order_release);  // publish the complete entry
  return true;
}

bool restore_plan::restore_now() noexcept {
  if (getpid() != pid_) return false;
  if (!armed_.exchange(false)) return false;
  bool ok = true;
  for (std::size_t i = size_.load(std::memory_order_acquire); i-- > 0;) {
    const entry& e = entries_[i];
    ok = write_at(e.fd, e.offset, e.bytes.data(), e.len) && ok;
  }
  return ok;
}

void restore_plan::restore_all(bool retire) noexcept {
  const int saved_errno = errno;
  g_walkers.fetch_add(1);
  for (hook_entry& h : g_hooks)
    if (const exit_hook fn = h.fn.load()) fn(h.context.load());
  for (auto& slot : g_plans) {
    restore_plan* p = slot.load();
    if (!p) continue;
    if (retire) p->retired_.store(true, std::memory_order_release);
    p->restore_now();
  }
  g_walkers.fetch_sub(1);
  errno = saved_errno;
}

void install_fatal_signal_handlers() {
  std::lock_guard lock(g_install_mutex);
  for (std::size_t i = 0; i < fatal_signals.size(); ++i) {
    const int sig = fatal_signals[i];
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0) continue;
    const bool plain = (current.sa_flags & SA_SIGINFO) == 0;
    if (plain && current.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring it
    if (plain && current.sa_handler == &on_fatal_signal) continue;
    g_previous[i] = current;
    struct sigaction ours {};
    ours.sa_handler = &on_fatal_signal;
    sigemptyset(&ours.sa_mask);
    // Block the other fatal signals meanwhile, so that restores never interleave.
    for (int s : fatal_signals)
      sigaddset(&ours.sa_mask, s);
    ours.sa_flags = 0;
    sigaction(sig, &ours, nullptr);
  }
}

}  // namespace gaea::energy::detail
