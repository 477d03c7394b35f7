// Waiting primitives that need no runtime: the blocker's micro-sleep.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "gaea/progress/blocker.hpp"

using gaea::progress::blocker;

TEST_CASE("issue5: a micro-sleep ends when the thread is signalled (was deaf to wake-ups)",
          "[waiting][regression]") {
  // A progress thread micro-sleeping when the main thread posts a deferred reply used to keep
  // the reply until the sleep ended; the sleep asked for here is far longer than the test's
  // timeout, so only the signal can end it.
  blocker b(nullptr);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    b.signal();
  });
  const blocker::outcome o = b.sleep(std::int64_t{600} * 1000000000);
  signaller.join();
  CHECK(o == blocker::outcome::signalled);
}

TEST_CASE("blocker: a signal sent before the sleep ends the next sleep, once", "[waiting]") {
  blocker b(nullptr);
  b.signal();
  CHECK(b.sleep(std::int64_t{600} * 1000000000) == blocker::outcome::signalled);
  // The signal was consumed: a short sleep now runs to its end.
  CHECK(b.sleep(1000) == blocker::outcome::timeout);
}
