// `auto` on shared cores hands the service worker over: rank 0's waiting main thread runs the
// handlers of messages that arrive while it waits, and a wait that blocks gives the worker back
// to the progress thread. Where the cores are not shared, the progress thread runs every handler.
// The mode is forced to auto for the scope, whatever GAEA_PROGRESS says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <sstream>
#include <thread>

#include "gaea/base/clock.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/progress/engine.hpp"
#include "test_support.hpp"

using gaea::test::rt;

namespace {
constexpr int messages_per_rank = 200;

// Where the handlers of the messages rank 0 receives ran.
struct handler_threads {
  std::atomic<std::int64_t> calls{0}, on_main{0};
};
handler_threads g_seen;
std::thread::id g_main;

bool on_main_thread() {
  return std::this_thread::get_id() == g_main;
}

// Counts a handler call; returns the calls so far.
std::int64_t count_call() {
  if (on_main_thread()) g_seen.on_main.fetch_add(1);
  return g_seen.calls.fetch_add(1) + 1;
}

void count_handler(const gaea::comm::am_message&) {
  count_call();
  rt().progress().notify_waiters();
}

// One round under auto: rank 0 runs `wait`, the others `send`, between two barriers; `total`
// handlers must have run on rank 0. Returns, on rank 0, how many ran on its main thread.
template <class Wait, class Send>
std::int64_t round_on_rank0(std::int64_t total, Wait&& wait, Send&& send) {
  g_main = std::this_thread::get_id();
  g_seen.calls = 0;
  g_seen.on_main = 0;
  const gaea::progress::scoped_mode automatic(rt().progress(), gaea::progress::mode::automatic);
  rt().barrier();
  if (rt().rank() == 0)
    wait();
  else
    send();
  rt().barrier();
  CHECK(g_seen.calls.load() == (rt().rank() == 0 ? total : 0));
  return g_seen.on_main.load();
}

// Every rank but 0 sends its messages to rank 0 after `delay`; rank 0 waits (blocking if
// `notified`) until all have run. Returns, on rank 0, how many ran on its main thread.
std::int64_t run_round(bool notified, std::chrono::milliseconds delay) {
  const int me = rt().rank(), n = rt().size();
  const std::int64_t total = std::int64_t{messages_per_rank} * (n - 1);
  static const bool registered = [] {
    rt().comm().register_handler(gaea::comm::handler_ids::user_first + 40, count_handler);
    return true;
  }();
  CHECK(registered);
  const auto wait = [&] {
    rt().progress().wait_until(
        rt().worker(), [&] { return g_seen.calls.load() == total; }, notified);
  };
  const auto send = [&] {
    std::this_thread::sleep_for(delay);
    auto& w = rt().worker();
    gaea::comm::completion local, remote;
    const std::int64_t tag = me;
    for (int i = 0; i < messages_per_rank; ++i)
      w.am_send(0, gaea::comm::handler_ids::user_first + 40, std::as_bytes(std::span(&tag, 1)), {},
                local, &remote);
    rt().wait(local);
    rt().wait(remote);
  };
  return round_on_rank0(total, wait, send);
}
}  // namespace

TEST_CASE("auto on shared cores: a waiting application thread serves its rank's messages",
          "[progress][handover]") {
  // A wait that cannot block (notified = false) polls throughout, so it keeps serving. The
  // senders start once rank 0 is surely inside it: before, the progress thread may rightly serve
  // (it had taken over if rank 0's barrier wait blocked, or rank 0 was descheduled for longer
  // than takeover_ns); during it, the progress thread stays parked, so it can have run at most
  // the one progress step it was in when the wait began.
  const std::int64_t on_main = run_round(false, std::chrono::milliseconds(200));
  if (rt().rank() != 0) return;
  const std::int64_t total = std::int64_t{messages_per_rank} * (rt().size() - 1);
  INFO("handlers on rank 0's main thread: " << on_main << " of " << total
                                            << "; shared cores: " << rt().progress().share_core());
  if (rt().progress().share_core())
    CHECK(on_main > total / 2);
  else
    CHECK(on_main == 0);
}

TEST_CASE("auto on shared cores: a wait that blocks hands the service worker back",
          "[progress][handover]") {
  // The senders start late enough for rank 0's notified wait to reach its block (its block-after
  // time, widened at most 64 times by the slowdown budget, is far below 300 ms). If the wait
  // kept the worker while blocked, the parked progress thread would not serve the messages and
  // rank 0's main thread would run them whenever a safety timeout woke it.
  const std::int64_t on_main = run_round(true, std::chrono::milliseconds(300));
  if (rt().rank() != 0) return;
  const std::int64_t total = std::int64_t{messages_per_rank} * (rt().size() - 1);
  INFO("handlers on rank 0's main thread: " << on_main << " of " << total);
  CHECK(on_main < total / 2);
}

TEST_CASE("auto on shared cores: an arrival ends a serving wait's micro-sleep",
          "[progress][handover]") {
  // Rank 0's main thread serves while it waits and sleeps between arrivals by steps (up to
  // 200 us). An arrival must end the sleep (the service worker is watched), not wait for the
  // step. Gaps of 1 and 2.5 ms alternate, from the barrier on: past the 50 us spin window, under
  // the 4 ms an idle wait takes at least before it blocks (and hands the worker back), and no
  // rhythm (a predicted arrival is met spinning).
  constexpr int messages = 20;
  const int me = rt().rank();
  static std::atomic<int> arrived{0};
  static const bool registered = [] {
    rt().comm().register_handler(gaea::comm::handler_ids::user_first + 41,
                                 [](const gaea::comm::am_message&) {
                                   arrived.fetch_add(1);
                                   rt().progress().notify_waiters();
                                 });
    return true;
  }();
  CHECK(registered);
  arrived = 0;
  const gaea::progress::scoped_mode automatic(rt().progress(), gaea::progress::mode::automatic);
  rt().barrier();
  const gaea::progress::telemetry_totals before = rt().progress().totals();
  if (me == 0) {
    // One wait per message: a sender delayed past the block-after time (a loaded machine's
    // scheduler slice) makes that wait block and hand the worker back, and only that one.
    for (int i = 1; i <= messages; ++i)
      rt().progress().wait_until(
          rt().worker(), [&] { return arrived.load() >= i; }, /*notified=*/true);
  } else if (me == 1) {
    auto& w = rt().worker();
    for (int i = 0; i < messages; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(i % 2 ? 2500 : 1000));
      gaea::comm::completion local;
      w.am_send(0, gaea::comm::handler_ids::user_first + 41, {}, {}, local, nullptr);
      rt().wait(local);
    }
  }
  const gaea::progress::telemetry_totals after = rt().progress().totals();
  rt().barrier();
  if (me != 0) return;
  CHECK(arrived.load() == messages);
  const auto woken = static_cast<std::int64_t>(after.event_wakeups - before.event_wakeups);
  INFO("wake-ups " << after.wakeups - before.wakeups << ", blocks "
                   << after.blocks - before.blocks);
  INFO("sleeps ended by an arrival: " << woken << " of " << messages
                                      << "; shared cores: " << rt().progress().share_core());
  // Without the watch none would be. On a loaded machine some arrivals find the thread awake
  // (runnable, or in its spin window after a late previous message); on one loaded by other
  // CPU-bound jobs the spin window's yields each last a scheduler slice, so the wait may not
  // sleep at all: the bound is taken against the sleeps there were. A gap holds about 15 sleep
  // steps (up to 200 us each; about 300 sleeps for 20 arrivals when not loaded), of which an
  // arrival can end only the last: counted against twice that.
  const auto slept = static_cast<std::int64_t>(after.wakeups - before.wakeups);
  if (rt().progress().share_core())
    CHECK(woken >= std::min<std::int64_t>(messages / 4, slept / 32));
  else
    CHECK(woken == 0);  // no hand-over: the progress thread serves, the main thread blocks
}

namespace {
// Rank 0 waits on a completion of `kind` sized at its bulk threshold, as a large get, a fence
// after a large put or a large accumulate's send is; the last of the peers' messages finishes
// it. The messages are sent at 0.5 ms gaps (under the 4 ms an idle serving wait takes to block
// and hand back). Returns, on rank 0, how many of their handlers ran on its main thread;
// `blocks`: the blocks of rank 0's threads during its wait (a wait that blocked has handed the
// worker back: on a loaded machine a sender held off its core for 4 ms makes it).
std::int64_t bulk_round(gaea::comm::op_kind kind, int messages, std::uint64_t& blocks) {
  const std::int64_t total = std::int64_t{messages} * (rt().size() - 1);
  static gaea::comm::completion bulk;
  static std::atomic<std::int64_t> expected{0};
  expected = total;
  static const bool registered = [] {
    rt().comm().register_handler(gaea::comm::handler_ids::user_first + 42,
                                 [](const gaea::comm::am_message&) {
                                   if (count_call() == expected.load()) {
                                     bulk.finish();
                                     rt().progress().notify_waiters();
                                   }
                                 });
    return true;
  }();
  CHECK(registered);
  const std::size_t threshold =
      rt().progress().interrupt_bytes(rt().worker(), gaea::progress::transfer_kind::other);
  if (rt().rank() == 0) bulk.add("bulk transfer", 1, threshold, kind);
  const auto wait = [&] {
    const std::uint64_t before = rt().progress().totals().blocks;
    rt().progress().wait(rt().worker(), bulk);
    blocks = rt().progress().totals().blocks - before;
  };
  const auto send = [&] {
    auto& w = rt().worker();
    for (int i = 0; i < messages; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      gaea::comm::completion local;
      w.am_send(0, gaea::comm::handler_ids::user_first + 42, {}, {}, local, nullptr);
      rt().wait(local);
    }
  };
  return round_on_rank0(total, wait, send);
}
}  // namespace

TEST_CASE(
    "auto on shared cores: a bulk put's wait hands the service worker over, an active "
    "message's keeps serving",
    "[progress][handover]") {
  // A put's wait does not serve: the progress thread polls the service worker and the messages
  // run there, unless ranks outnumber the hardware threads. An accumulate's cost is its handler
  // on the target, which runs on whichever thread serves: a second polling thread beside it
  // would only slow it, so an active message's wait serves throughout.
  constexpr int messages = 60;
  const std::int64_t total = std::int64_t{messages} * (rt().size() - 1);
  for (const gaea::comm::op_kind kind :
       {gaea::comm::op_kind::put, gaea::comm::op_kind::active_message}) {
    std::uint64_t blocks = 0;
    const std::int64_t on_main = bulk_round(kind, messages, blocks);
    if (rt().rank() != 0) continue;
    const bool hands_over = kind == gaea::comm::op_kind::put;
    INFO("a bulk " << (hands_over ? "put" : "active message")
                   << ": handlers on rank 0's main thread " << on_main << " of " << total
                   << "; shared cores: " << rt().progress().share_core()
                   << ", ranks outnumber them: " << rt().progress().ranks_share_cores()
                   << "; blocks during the wait: " << blocks);
    if (!rt().progress().share_core())
      CHECK(on_main == 0);  // no hand-over: the progress thread serves throughout
    else if (!hands_over || rt().progress().ranks_share_cores())
      CHECK((on_main > total / 2 || blocks > 0));  // served, unless it blocked and handed back
    else
      CHECK(on_main < total / 2);
  }
}

TEST_CASE(
    "auto on shared cores: a serving wait keeps following a rhythm whose gap grows past "
    "its block threshold",
    "[progress][handover]") {
  // Rank 1 sends two messages per gap, from half an idle serving wait's block threshold (4
  // takeover periods) to 11 times it, each gap 1.25 times the last: a rhythm throughout (it may
  // change by 1.5x). At each change the first arrival comes a quarter gap after the expected one.
  // Counted idle from the previous arrival, the wait blocked at the first gap past the threshold
  // and handed the worker to the progress thread, which had seen none of the rhythm, for the rest
  // of the wait; counted from the missed arrival, at the first gap past 4 thresholds. A wait
  // that expects an arrival is not idle, and gives a missed one half a gap.
  constexpr int steps = 15, per_gap = 2, messages = 1 + steps * per_gap;
  const int me = rt().rank();
  // Rank 0's threshold (each rank calibrates its own).
  const std::int64_t block_after_ns =
      gaea::test::allgather(4 * rt().progress().auto_parameters().takeover_ns)[0];
  // The gap before message i (the first goes at once: a wait is idle from its start).
  const auto gap_ns = [&](int i) {
    const double g = i == 0 ? 0.0 : 0.5 * std::pow(1.25, (i - 1) / per_gap);
    return std::llround(g * static_cast<double>(block_after_ns));
  };
  // Per message, in arrival order: when its handler ran and whether on rank 0's main thread.
  struct arrival {
    std::int64_t at_ns = 0;
    bool on_main = false;
  };
  static std::array<arrival, messages> seen;
  static const bool registered = [] {
    rt().comm().register_handler(
        gaea::comm::handler_ids::user_first + 43, [](const gaea::comm::am_message&) {
          const std::int64_t i = count_call() - 1;
          if (i < messages)
            seen[static_cast<std::size_t>(i)] = {gaea::monotonic_ns(), on_main_thread()};
          rt().progress().notify_waiters();
        });
    return true;
  }();
  CHECK(registered);
  std::uint64_t blocks = 0;
  std::int64_t wait_start_ns = 0;
  const std::int64_t on_main = round_on_rank0(
      messages,
      [&] {
        const std::uint64_t before = rt().progress().totals().blocks;
        wait_start_ns = gaea::monotonic_ns();
        rt().progress().wait_until(
            rt().worker(), [&] { return g_seen.calls.load() >= messages; }, /*notified=*/true);
        blocks = rt().progress().totals().blocks - before;
      },
      [&] {
        if (me != 1) return;
        auto& w = rt().worker();
        auto next = std::chrono::steady_clock::now();
        for (int i = 0; i < messages; ++i) {
          next += std::chrono::nanoseconds(gap_ns(i));  // a schedule: the gaps stay as set
          std::this_thread::sleep_until(next);
          gaea::comm::completion local;
          w.am_send(0, gaea::comm::handler_ids::user_first + 43, {}, {}, local, nullptr);
          rt().wait(local);
        }
      });
  if (me != 0) return;
  // The rhythm the wait follows ends at the first message seen later than a tenth of a
  // threshold after its time: a loaded machine's scheduler keeps the sender (or rank 0 itself)
  // off its core for milliseconds, or rank 1 in the barrier before the first message.
  int disturbed = messages, handed_back = 0;
  // Gaps longer than the predictor's horizon are not a rhythm to it (a calibrated threshold of
  // 9 ms or more puts the last gaps past it): the rhythm also ends at the first such gap.
  int beyond_horizon = 1;
  while (beyond_horizon < messages &&
         gap_ns(beyond_horizon) <= rt().progress().auto_parameters().max_predicted_ns)
    ++beyond_horizon;
  std::ostringstream late_us;
  for (int i = 0; i < messages; ++i) {
    const arrival& a = seen[static_cast<std::size_t>(i)];
    const std::int64_t before =
        i == 0 ? wait_start_ns : seen[static_cast<std::size_t>(i - 1)].at_ns;
    const std::int64_t late = a.at_ns - before - gap_ns(i);
    late_us << (i ? " " : "") << late / 1000 << (a.on_main ? "" : "*");
    // Before the first message the wait is idle from its start and rightly blocks once that
    // passes a threshold: half of one is the limit there.
    if (disturbed == messages && (i == 0 ? 2 : 10) * late > block_after_ns) disturbed = i;
    // A message that came before the wait began may have run on the progress thread; after
    // the last one the main thread ran, the wait had handed the worker back.
    if (a.on_main) handed_back = i + 1;
  }
  INFO("handlers on rank 0's main thread: "
       << on_main << " of " << messages << "; blocks during the wait: " << blocks
       << "; shared cores: " << rt().progress().share_core() << "; block threshold "
       << block_after_ns / 1000 << " us; first gap past the prediction horizon: message "
       << beyond_horizon);
  INFO("each gap's lateness on rank 0 (us; * ran off the main thread): " << late_us.str());
  // Handed back at the first gap past 4 thresholds, the main thread would have run 21 (past
  // 1 threshold, 9). The wait keeps the worker until the rhythm's end or its first disturbed
  // arrival; the bound leaves room for a disturbance within a tenth of a threshold.
  if (rt().progress().share_core())
    CHECK(handed_back >= std::min({disturbed, beyond_horizon, messages - 3}));
  else
    CHECK(on_main == 0);
}
