// The per-call energy strategy on simulated actuators: the frequency goes down for the call and
// back up after it, throttling follows the steps, and everything is restored when a call fails.
#include <catch2/catch.hpp>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace coll = gaea::coll;

namespace {
void require_restored(gaea::runtime& rt) {
  for (int c : rt.throttle().cpus()) {
    REQUIRE(rt.throttle().level(c) == 0);
    REQUIRE(rt.dvfs().current_khz(c) == rt.dvfs().high_khz(c));
  }
}
}  // namespace

TEST_CASE(
    "an all-to-all with the energy strategy runs at low frequency and throttles only "
    "inter-node steps",
    "[coll][energy]") {
  gaea::runtime& rt = gaea::runtime::current();
  REQUIRE(rt.dvfs().active());      // GAEA_DVFS=simulated
  REQUIRE(rt.throttle().active());  // GAEA_THROTTLE=simulated
  const coll::group& w = coll::world();
  const auto cpus = static_cast<std::uint64_t>(rt.throttle().cpus().size());
  REQUIRE(cpus > 0);
  std::vector<int> send(static_cast<std::size_t>(w.size()) * 16, w.rank()), recv(send.size());
  coll::options o;
  o.algo = coll::algorithm::send_recv;
  o.energy = coll::energy_mode::on;
  const std::uint64_t d0 = rt.dvfs().transition_count(), t0 = rt.throttle().transition_count();
  coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), o);
  REQUIRE(recv.back() == w.size() - 1);
  // Down and up once per CPU; with block placement send-to/receive-from has a run of steps in
  // which every core of the node talks across nodes only (T5), entered and left once.
  REQUIRE(rt.dvfs().transition_count() - d0 == 2 * cpus);
  REQUIRE(rt.throttle().transition_count() - t0 == (w.nodes() > 1 ? 2 * cpus : 0));
  require_restored(rt);
  // Off: nothing changes.
  o.energy = coll::energy_mode::off;
  coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), o);
  {
    coll::scoped_energy off(coll::energy_mode::off);
    coll::options plain;
    plain.algo = coll::algorithm::send_recv;
    coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), plain);
  }
  REQUIRE(rt.dvfs().transition_count() - d0 == 2 * cpus);
}

TEST_CASE("a failing collective restores frequency and throttling", "[coll][energy]") {
  gaea::runtime& rt = gaea::runtime::current();
  const coll::group& w = coll::world();
  if (w.size() < 2) return;
  coll::scoped_energy on(coll::energy_mode::on);
  std::vector<double> v(w.rank() == 0 ? 3 : 2, 1.0);  // mismatched counts
  REQUIRE_THROWS_WITH(coll::allreduce(w, std::span<double>(v), coll::reduce_op::sum),
                      Catch::Contains("mismatched"));
  require_restored(rt);
}
