// The per-node arbiter across real ranks of one node (simulated actuators, unbound ranks, so
// every rank may run on every CPU): a rank's low request waits for every rank sharing the CPU,
// a rank's end-of-call restore raises only the CPUs it may run on, suppressed requests are not
// charged, and everything is back at high / T0 after the calls.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "gaea/coll/collectives.hpp"
#include "gaea/energy/arbiter.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace coll = gaea::coll;
namespace energy = gaea::energy;

namespace {

coll::options plain() {
  coll::options o;
  o.energy = coll::energy_mode::off;
  return o;
}

void barrier() {
  coll::barrier(coll::world(), plain());
}

std::uint64_t node_sum(std::uint64_t mine) {
  return coll::allreduce(coll::world(), mine, coll::reduce_op::sum, plain());
}

void require_high_t0(gaea::runtime& rt) {
  for (int c : rt.throttle().cpus()) {
    CAPTURE(c);
    REQUIRE(rt.throttle().level(c) == 0);
    REQUIRE(rt.dvfs().current_khz(c) == rt.dvfs().high_khz(c));
  }
}

}  // namespace

TEST_CASE("arbiter: every rank of the node shares the CPUs, so a CPU waits for all of them",
          "[coll][energy][arbiter]") {
  gaea::runtime& rt = gaea::runtime::current();
  if (rt.nodes() != 1) return;
  // The governor asks through the same arbiter around spin waits: off while the test counts.
  gaea::progress::scoped_mode no_governor(rt.progress(), gaea::progress::mode::spin,
                                          false);  // the layout below is one node's
  REQUIRE(rt.dvfs().active());                     // GAEA_DVFS=simulated
  const std::vector<int> cpus = rt.throttle().cpus();
  REQUIRE(!cpus.empty());
  // Unbound (OMPI_MCA_hwloc_base_binding_policy=none): the same CPUs on every rank.
  const auto n = static_cast<std::uint64_t>(cpus.size());
  REQUIRE(node_sum(n) == n * static_cast<std::uint64_t>(rt.size()));
  REQUIRE(coll::allreduce(coll::world(), cpus.front(), coll::reduce_op::max, plain()) ==
          cpus.front());
  energy::actuator& dvfs = rt.dvfs();
  const int last = rt.size() - 1;
  const std::uint64_t d0 = dvfs.transition_count();

  // Every rank but the last asks for low: recorded, not applied, not charged.
  if (rt.rank() != last)
    for (int c : cpus)
      REQUIRE(dvfs.set_low(c, true));
  barrier();
  for (int c : cpus)
    CHECK(dvfs.current_khz(c) == dvfs.high_khz(c));
  CHECK(node_sum(dvfs.transition_count() - d0) == 0);

  // The last one too: now low, one transition per CPU on the whole node.
  if (rt.rank() == last)
    for (int c : cpus)
      REQUIRE(dvfs.set_low(c, true));
  barrier();
  for (int c : cpus)
    CHECK(dvfs.current_khz(c) == dvfs.low_khz(c));
  CHECK(node_sum(dvfs.transition_count() - d0) == n);

  // Rank 0's end-of-call restore: it may run on every CPU and wants them high, so they go up;
  // the others' requests stay recorded, and rank 0's next low request brings them down again.
  if (rt.rank() == 0)
    for (int c : cpus)
      REQUIRE(dvfs.set_low(c, false));
  barrier();
  for (int c : cpus)
    CHECK(dvfs.current_khz(c) == dvfs.high_khz(c));
  barrier();  // every rank checked before rank 0 asks again
  if (rt.rank() == 0)
    for (int c : cpus)
      REQUIRE(dvfs.set_low(c, true));
  barrier();
  for (int c : cpus)
    CHECK(dvfs.current_khz(c) == dvfs.low_khz(c));
  CHECK(node_sum(dvfs.transition_count() - d0) == 3 * n);

  // Throttle: the least throttled request wins.
  rt.throttle().set_all(rt.rank() == last ? 3 : 6);
  barrier();
  for (int c : cpus)
    CHECK(rt.throttle().level(c) == 3);
  barrier();  // every rank checked before any restores

  rt.dvfs().restore();
  rt.throttle().restore();
  barrier();
  require_high_t0(rt);
}

TEST_CASE("arbiter: an all-to-all with the energy strategy lowers each shared CPU once",
          "[coll][energy][arbiter]") {
  gaea::runtime& rt = gaea::runtime::current();
  if (rt.nodes() != 1) return;
  // The governor asks through the same arbiter around spin waits: off while the test counts.
  gaea::progress::scoped_mode no_governor(rt.progress(), gaea::progress::mode::spin, false);
  const coll::group& w = coll::world();
  const auto n = static_cast<std::uint64_t>(rt.throttle().cpus().size());
  std::vector<int> send(static_cast<std::size_t>(w.size()) * 16, w.rank()), recv(send.size());
  coll::options o;
  o.algo = coll::algorithm::send_recv;
  o.energy = coll::energy_mode::on;
  const std::uint64_t d0 = rt.dvfs().transition_count(), t0 = rt.throttle().transition_count();
  coll::alltoall(w, std::span<const int>(send), std::span<int>(recv), o);
  REQUIRE(recv.back() == w.size() - 1);
  barrier();
  // No rank sends before it asked for low, so every request is in before any rank finishes:
  // each CPU goes down once (the last request) and up once (the first restore), not once per
  // rank; one node has no inter-node step, so no throttling.
  CHECK(node_sum(rt.dvfs().transition_count() - d0) == 2 * n);
  CHECK(node_sum(rt.throttle().transition_count() - t0) == 0);
  require_high_t0(rt);
}

TEST_CASE("arbiter: a rank's end-of-call restore leaves low the CPUs only others run on",
          "[coll][energy][arbiter]") {
  gaea::runtime& rt = gaea::runtime::current();
  if (rt.nodes() != 1) return;
  // The governor asks through the same arbiter around spin waits: off while the test counts.
  gaea::progress::scoped_mode no_governor(rt.progress(), gaea::progress::mode::spin, false);
  const int me = rt.node_rank(), ranks = rt.node_size();
  // Masks chosen here: rank r may run on CPUs r and r + 1, so CPU r + 1 is shared with rank
  // r + 1; simulated backends accept any CPU number.
  const std::string key = coll::broadcast(coll::world(), "test-" + std::to_string(::getpid()), 0);
  const std::vector<int> mask{me, me + 1};
  energy::arbiter_config ac;
  ac.job_key = key;
  ac.node = rt.node_id();
  ac.local_rank = me;
  ac.local_ranks = ranks;
  ac.cpus = mask;
  auto arb = energy::attach_arbiter(ac);
  REQUIRE(arb != nullptr);
  barrier();
  energy::unlink_name(*arb);
  energy::actuator_config cfg;
  cfg.kind = "simulated";
  cfg.cpus = mask;
  cfg.simulated_cost_ns = 0;
  auto dvfs = energy::arbitrated(energy::make_actuator(cfg).act, arb, energy::dvfs_source::calls);
  energy::throttle_config tc;
  tc.kind = "simulated";
  tc.cpus = mask;
  tc.simulated_cost_ns = 0;
  auto thr = energy::arbitrated(energy::make_throttle(tc).thr, arb);

  // Every rank in its call: all CPUs low and at T5.
  for (int c : mask) {
    REQUIRE(dvfs->set_low(c, true));
    REQUIRE(thr->set_level(c, 5));
  }
  barrier();
  for (int c : mask) {
    CHECK(dvfs->current_khz(c) == dvfs->low_khz(c));
    CHECK(thr->level(c) == 5);
  }
  barrier();
  // Rank 0 ends its call first: CPUs 0 and 1, which it may run on, go up; CPU 2 (ranks 1 and 2)
  // and beyond stay low and throttled for the ranks still in their call.
  if (me == 0) {
    for (int c : mask)
      REQUIRE(dvfs->set_low(c, false));
    thr->set_all(0);
  }
  barrier();
  for (int c : mask) {
    CAPTURE(me, c);
    const bool rank0_runs_there = c <= 1;
    CHECK(dvfs->current_khz(c) == (rank0_runs_there ? dvfs->high_khz(c) : dvfs->low_khz(c)));
    CHECK(thr->level(c) == (rank0_runs_there ? 0 : 5));
  }
  barrier();
  // Everyone ends: everything back at high / T0, whoever wrote it.
  dvfs->restore();
  thr->restore();
  barrier();
  for (int c : mask) {
    CHECK(dvfs->current_khz(c) == dvfs->high_khz(c));
    CHECK(thr->level(c) == 0);
  }
  barrier();
}
