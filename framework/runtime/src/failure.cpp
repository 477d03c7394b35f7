// Ending the whole job on one rank's error: runtime::fail, the failure reports between ranks, and
// the terminate handler that routes an escaping exception there.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "detail/runtime_state.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/temporaries.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea {

namespace {
struct failure_header {
  std::int32_t cause_rank;  // the rank whose error ends the job
  std::int32_t exit_code;   // its exit code
};
// How long fail() waits for the other ranks to report that they stopped (and printed why).
constexpr std::int64_t failure_grace_ns = 5'000'000'000;
// How long a failing rank R listens for other ranks' failures before printing its own error:
// min(R, steps) steps, so that of ranks failing together the lowest prints.
constexpr std::int64_t failure_listen_step_ns = 50'000'000;
constexpr std::int64_t failure_listen_steps = 20;
// While fail() ends the job, peers die mid-connection; the transport may then abort this rank
// from its own error paths (seen with UCX 1.13 over tcp: a wire-up reply purged when its peer
// died). The job's exit code and message are already decided, so such an abort ends this rank
// with them instead of a signal.
volatile std::sig_atomic_t g_failing_code = 1;
extern "C" void on_abort_while_failing(int) {
  constexpr char note[] = "gaea: the transport aborted while the job was ending (ignored)\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, note, sizeof note - 1);
  std::_Exit(g_failing_code);
}
void guard_abort_while_failing(int code) noexcept {
  g_failing_code = code;
  struct sigaction sa {};
  sa.sa_handler = on_abort_while_failing;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGABRT, &sa, nullptr);
}
}  // namespace

void detail::on_failure_message(runtime_state& st, const comm::am_message& msg) {
  failure_header h;
  if (msg.header.size() != sizeof h) return;  // malformed: ignore rather than fail twice
  std::memcpy(&h, msg.header.data(), sizeof h);
  const std::string text(reinterpret_cast<const char*>(msg.data.data()), msg.data.size());
  {
    std::lock_guard lock(st.failure.mutex);
    if (st.failure.cause_rank < 0) {
      st.failure.cause_rank = h.cause_rank;
      st.failure.cause_code = h.exit_code;
    }
    const auto src = static_cast<std::size_t>(msg.source);
    if (src < st.failure.reported.size() && !st.failure.reported[src]) {
      st.failure.reported[src] = true;
      ++st.failure.reports;
    }
  }
  st.progress->fail_waits(text);  // keeps the first text; wakes every waiting thread
}

std::terminate_handler detail::install_terminate_handler() {
  // An exception that escapes everything (or one thrown from a noexcept function) ends the whole
  // job with its message instead of leaving the other ranks waiting for this one.
  return std::set_terminate([] {
    std::string what = "std::terminate was called";
    if (const std::exception_ptr e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = std::string("uncaught exception: ") + x.what();
      } catch (...) {
        what = "uncaught exception of a type not derived from std::exception";
      }
    }
    if (runtime::initialized()) runtime::current().fail(what, 1);
    std::fprintf(stderr, "gaea: %s\n", what.c_str());
    std::abort();
  });
}

bool runtime::failed() const noexcept {
  return st_->failing.load(std::memory_order_acquire) || progress_->failure().has_value();
}

bool runtime::may_synchronize() const noexcept {
  return !failed() && std::uncaught_exceptions() <= st_->uncaught_at_start;
}

void runtime::fail(std::string_view message, int exit_code) noexcept {
  if (st_->failing.exchange(true)) {
    // Another thread of this rank is already ending the job.
    for (;;)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  progress::scoped_unchecked_waits unchecked;
  try {
    const std::string me = describe_rank(rank_);
    // From here on only this thread drives the transport: the progress thread parks, so nothing
    // progresses it once this rank calls MPI_Abort (peers dying mid-connection then cannot trip
    // the transport's own error paths), and a transport abort while ending is not a new error.
    guard_abort_while_failing(exit_code);
    progress_->set_mode(progress::mode::off, false);
    comm::worker& w = worker();
    // One step of the transport while ending (peers die mid-connection meanwhile).
    const auto poll_while_ending = [&] {
      try {
        if (progress_->poll(w) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      } catch (...) {  // not a new error: the job ends anyway
      }
    };
    // Ranks often fail together (the same bad input everywhere): the job's error is printed once,
    // by the lowest of them, so a rank above 0 first listens for another rank's failure.
    const std::int64_t listen_until =
        gaea::monotonic_ns() +
        std::min<std::int64_t>(rank_, failure_listen_steps) * failure_listen_step_ns;
    while (!progress_->failure() && gaea::monotonic_ns() < listen_until)
      poll_while_ending();
    const std::optional<std::string> cause = progress_->failure();
    std::string announce;
    std::int32_t cause_rank = rank_;
    int code = exit_code;
    detail::failure_state& failure = st_->failure;
    if (cause) {
      // Another rank's failure reached this rank first: the job ends with that rank's cause and
      // exit code, whatever this rank's message says (often the interrupted call's own wrapping
      // of the cause, e.g. "GA_Sync: <cause>"). Its error line is that rank's to print.
      if (st_->cfg.verbose) {
        std::fprintf(stderr, "gaea: %s: stopping: %s\n", me.c_str(), cause->c_str());
        if (message.find(*cause) == std::string_view::npos &&
            std::string_view(*cause).find(message) == std::string_view::npos)
          std::fprintf(stderr, "gaea: %s: also: %.*s\n", me.c_str(),
                       static_cast<int>(message.size()), message.data());
      }
      std::lock_guard lock(failure.mutex);
      cause_rank = failure.cause_rank;
      code = failure.cause_code;
      announce = *cause;
      guard_abort_while_failing(code);
    } else {
      std::fprintf(stderr, "gaea: %s: error: %.*s\n", me.c_str(), static_cast<int>(message.size()),
                   message.data());
      announce = me + " failed: " + std::string(message);
    }
    std::fflush(stderr);
    // The rank whose error this is tells every rank and waits (up to the grace period) for each
    // to answer, then aborts the job. A rank stopping because it was told answers only those
    // that told it: O(P) new connections in all, not every rank to every rank.
    const bool cause_here = cause_rank == rank_;
    const failure_header h{cause_rank, code};
    comm::completion sent;  // one completion counts every send, as in barrier()
    std::vector<bool> told(static_cast<std::size_t>(size_), false);
    told[static_cast<std::size_t>(rank_)] = true;
    auto tell = [&](int r) {
      told[static_cast<std::size_t>(r)] = true;
      try {
        w.am_send(r, comm::handler_ids::runtime_failure,
                  std::as_bytes(std::span<const failure_header>(&h, 1)),
                  std::as_bytes(std::span<const char>(announce.data(), announce.size())), sent,
                  nullptr);
      } catch (...) {  // a lost peer: the others still hear
      }
    };
    if (cause_here)
      for (int r = 0; r < size_; ++r)
        if (!told[static_cast<std::size_t>(r)]) tell(r);
    const std::int64_t deadline = gaea::monotonic_ns() + failure_grace_ns;
    for (;;) {
      std::vector<int> answer;
      {
        std::lock_guard lock(failure.mutex);
        if (cause_here && failure.reports >= size_ - 1) break;
        for (int r = 0; r < size_; ++r)
          if (failure.reported[static_cast<std::size_t>(r)] && !told[static_cast<std::size_t>(r)])
            answer.push_back(r);
      }
      for (int r : answer)
        tell(r);
      if (gaea::monotonic_ns() > deadline) break;
      poll_while_ending();
    }
    std::fflush(stderr);
    remove_temporaries();  // MPI_Abort does not unwind: this rank's half-written files go now
    MPI_Abort(MPI_COMM_WORLD, code);
  } catch (...) {  // fail() never returns: whatever went wrong, the exit below ends this rank
  }
  remove_temporaries();
  std::_Exit(exit_code);
}

}  // namespace gaea
