// The fence tracker keeps only the targets written since the last fence (docs/scaling.md G1, G2):
// an internal test (it includes ga/src/detail/tracker.hpp) on every rank count, checked against
// a serial reference of the array's contents.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "detail/tracker.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/ga/protocol.hpp"
#include "test_support.hpp"

using namespace gaea;
using gaea::ga::index_t;
using gaea::ga::patch;
using gaea::test::rt;

TEST_CASE("ga tracker: entries are made by writes only and dropped by fences, at any P",
          "[ga][tracker]") {
  // A thread of its own: the trackers are per thread, and this one is not the runtime's (the
  // identity below would otherwise reset the main thread's tracker).
  std::vector<std::size_t> seen;
  std::vector<int> listed;
  bool read_only_found = true;
  std::thread([&] {
    constexpr int p = 4096;
    auto& tr = ga::detail::tracker::mine(~std::uint64_t{0}, p);
    seen.push_back(tr.entries());     // 0
    for (int t : {7, 4095, 7, 1000})  // 3 distinct targets of array 1
      tr.mark(1, t, t == 7);
    tr.mark(2, 7, false);          // and one of array 2
    seen.push_back(tr.entries());  // 4
    read_only_found = tr.find(1, 8) != nullptr || tr.find(3, 7) != nullptr;
    seen.push_back(tr.entries());  // still 4: find makes nothing
    listed = tr.targets(1);
    for (int t : listed)
      tr.clean(1, t);
    seen.push_back(tr.entries());                                  // 1 (array 2's)
    seen.push_back(static_cast<std::size_t>(tr.dirty_arrays(7)));  // 1
    tr.forget(2);
    seen.push_back(tr.entries());                                  // 0
    seen.push_back(static_cast<std::size_t>(tr.dirty_arrays(7)));  // 0
  }).join();
  std::sort(listed.begin(), listed.end());
  CHECK(listed == std::vector<int>{7, 1000, 4095});
  CHECK_FALSE(read_only_found);
  CHECK(seen == std::vector<std::size_t>{0, 4, 4, 1, 1, 0, 0});
}

TEST_CASE("ga tracker: a fence walks only the targets written, and gets still see earlier puts",
          "[ga][tracker]") {
  const ga::scoped_acc_protocol target_driven(ga::acc_protocol::target_driven);
  const int me = rt().rank(), n = rt().size();
  constexpr index_t per_rank = 8;  // slot w of each block: writer w; slot 4 + w: phase C
  global_array<double> a("tracked", {per_rank * n}, ga::layout_spec::irregular({[&] {
                           std::vector<index_t> starts;
                           for (int r = 0; r < n; ++r)
                             starts.push_back(r * per_rank);
                           return starts;
                         }()}));
  a.zero();
  auto& tr = ga::detail::tracker::mine(rt().instance(), n);
  const auto slot = [&](int target, index_t k) {
    return patch{{target * per_rank + k}, {target * per_rank + k}};
  };
  const int t1 = (me + 1) % n, t2 = (me + 2) % n;
  CHECK(tr.entries() == 0);

  // A: one put. One entry; gets from every target make none, and the get from t1 sees the put
  // (and fences t1: its entry goes).
  const double x = 100.0 + me;
  a.put(slot(t1, me), std::span<const double>(&x, 1));
  CHECK(tr.entries() == 1);
  for (int r = 0; r < n; ++r) {
    double got = -1;
    a.get(slot(r, me), std::span<double>(&got, 1));
    if (r == t1) CHECK(got == x);
  }
  CHECK(tr.entries() == 0);

  // B: accumulates to t1 and t2. Applied locally on this rank's own part (no entry).
  const double one = 1.0;
  a.acc(slot(t1, me), std::span<const double>(&one, 1));
  a.acc(slot(t2, me), std::span<const double>(&one, 1));
  std::set<int> remote{t1, t2};
  remote.erase(me);
  CHECK(tr.entries() == remote.size());
  a.fence();
  CHECK(tr.entries() == 0);

  // C: a put to every target: as many entries as targets, none after the fence.
  for (int r = 0; r < n; ++r) {
    const double y = 1000.0 * r + me;
    a.put(slot(r, 4 + me), std::span<const double>(&y, 1));
  }
  CHECK(tr.entries() == static_cast<std::size_t>(n));
  a.fence();
  CHECK(tr.entries() == 0);
  a.sync();

  // The serial reference of the whole array.
  std::vector<double> ref(static_cast<std::size_t>(per_rank * n), 0.0);
  for (int w = 0; w < n; ++w) {
    const int w1 = (w + 1) % n, w2 = (w + 2) % n;
    ref[static_cast<std::size_t>(w1 * per_rank + w)] += 100.0 + w + 1.0;
    ref[static_cast<std::size_t>(w2 * per_rank + w)] += 1.0;
    for (int r = 0; r < n; ++r)
      ref[static_cast<std::size_t>(r * per_rank + 4 + w)] = 1000.0 * r + w;
  }
  std::vector<double> all(ref.size(), -1.0);
  a.get(patch{{0}, {per_rank * n - 1}}, std::span<double>(all));
  CHECK(all == ref);
  CHECK(tr.entries() == 0);
  a.sync();
}
