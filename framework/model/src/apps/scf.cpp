// The gaea-scf Fock-build model (apps/scf/src/fock_build.cpp): the app's blocking at this worker
// count gives the tasks; each worker takes a task from the shared counter (a fetch-and-add),
// gets the density blocks it does not hold yet (non-blocking, together), computes the task's
// integrals (a one-rank profile's time, spread over the tasks) and accumulates its merged G
// blocks target-driven; the build ends with the largest task and the last tasks' tail, then
// rank 0's serial part and the iteration's collectives. [PGAS-BGQ §IV.D, Fig. 14]
#include <algorithm>
#include <cmath>
#include <string>

#include "common.hpp"
#include "gaea/model/apps.hpp"
#include "gaea/model/operations.hpp"

namespace gaea::model {

namespace {

double pairs_of(double n) {
  return n * (n + 1) / 2;
}

// Expected time of one request to the owner of a block of a distributed matrix: itself with
// probability 1/P, a rank of its node, or a rank of another node.
struct owner_mix {
  double self = 1, intra = 0, inter = 0;
};
owner_mix mix(std::int64_t ranks, std::int64_t rpn) {
  const double p = static_cast<double>(ranks);
  owner_mix w;
  w.self = 1 / p;
  w.intra = static_cast<double>(rpn - 1) / p;
  w.inter = std::max(0.0, 1 - w.self - w.intra);
  return w;
}

// `per_task` requests of one task, issued together: the first pays its whole time, each further
// one its time less the round trip (a fractional count scales the first).
double task_batch_s(double per_task, double one_s, double round_trip_s) {
  if (per_task <= 0) return 0;
  if (per_task < 1) return per_task * one_s;
  return one_s + (per_task - 1) * std::max(0.0, one_s - round_trip_s);
}

}  // namespace

std::int64_t scf_block_bf(std::int64_t nbf, std::int64_t workers) {
  const auto nb = std::max<std::int64_t>(
      static_cast<std::int64_t>(std::ceil(std::pow(512.0 * static_cast<double>(workers), 0.25))),
      (nbf + 47) / 48);
  return std::max<std::int64_t>(1, (nbf + nb - 1) / nb);
}

scf_breakdown predict_scf(const machine& m, const scf_case& c, const scf_profile& p) {
  m.check();
  const std::string name =
      "scf (" + std::to_string(c.ranks) + " ranks x " + std::to_string(c.threads) + " threads)";
  detail::require_positive(c.ranks, "ranks", name);
  detail::require_positive(c.threads, "threads", name);
  detail::require_positive(p.nbf, "profile nbf", name);
  detail::require_positive(p.blocks, "profile blocks", name);
  detail::require_positive(p.tasks, "profile tasks", name);
  if (p.blocks > p.nbf)
    throw error("model " + name + ": profile blocks = " + std::to_string(p.blocks) +
                " exceeds nbf = " + std::to_string(p.nbf));
  if (!(p.integrals_s > 0) || p.max_task_s < 0 || p.diag_s < 0 || p.accs_per_task < 0 ||
      p.accs_per_task > 6)
    throw error("model " + name + ": profile integrals_s = " + std::to_string(p.integrals_s) +
                " must be > 0, max_task_s = " + std::to_string(p.max_task_s) +
                " and diag_s = " + std::to_string(p.diag_s) +
                " >= 0, accs_per_task = " + std::to_string(p.accs_per_task) + " in [0, 6]");
  const double quartets1 = pairs_of(pairs_of(static_cast<double>(p.blocks)));
  if (static_cast<double>(p.tasks) > quartets1)
    throw error("model " + name + ": profile tasks = " + std::to_string(p.tasks) + " exceeds the " +
                std::to_string(static_cast<std::int64_t>(quartets1)) + " block quartets of " +
                std::to_string(p.blocks) + " blocks");
  if (c.dispense == counters::dispense::hierarchical)
    throw error("model " + name + ": dispense hierarchical is not modelled (single or batched)");
  if (c.block_bf < 0)
    throw error("model " + name + ": block_bf = " + std::to_string(c.block_bf) + " must be >= 0");

  const std::int64_t workers = c.ranks * c.threads;
  const double nbf = static_cast<double>(p.nbf);
  // Blocking at this worker count (shell boundaries ignored: blocks of bs functions).
  const std::int64_t target = c.block_bf > 0 ? c.block_bf : scf_block_bf(p.nbf, workers);
  const std::int64_t nb = (p.nbf + target - 1) / target;
  const double bs = nbf / static_cast<double>(nb), bs1 = nbf / static_cast<double>(p.blocks);
  // Screening keeps the profile's share of block quartets.
  const double keep = static_cast<double>(p.tasks) / quartets1;
  const double tasks =
      std::max(1.0, std::round(keep * pairs_of(pairs_of(static_cast<double>(nb)))));
  const double per_worker = tasks / static_cast<double>(workers);

  scf_breakdown out;
  out.blocks = nb;
  out.tasks = static_cast<std::int64_t>(tasks);
  out.tasks_per_worker = per_worker;
  out.task_s = p.integrals_s / tasks;  // the quartets are the same whatever the blocking
  const double scale4 = std::pow(bs / bs1, 4);
  const double largest = std::max(
      out.task_s,
      (p.max_task_s > 0 ? p.max_task_s : p.integrals_s / static_cast<double>(p.tasks)) * scale4);

  const std::int64_t rpn = detail::ranks_per_node(m, c.ranks);
  const double hop = detail::hops_s(m, c.ranks);
  const owner_mix w = mix(c.ranks, rpn);
  const double block_bytes = bs * bs * 8;
  const auto chunks = static_cast<std::int64_t>(std::llround(bs));
  auto remote = [&](auto&& one) {  // expected time over the owners, and the round trip
    double t = w.intra * one(link_class::intra) + w.inter * (one(link_class::inter) + 2 * hop);
    double rt = w.intra * detail::round_trip_s(m, link_class::intra, hop) +
                w.inter * detail::round_trip_s(m, link_class::inter, hop);
    return std::pair{t, rt};
  };
  // A density block is a bs x bs patch of the block-distributed D: bs rows of bs doubles, by the
  // cheaper strided protocol; a block of its own rank is a copy.
  auto [get_one, get_rt] = remote([&](link_class lc) {
    return std::min(strided_zero_copy_s(m, lc, chunks, bs * 8),
                    strided_packed_s(m, lc, chunks, bs * 8));
  });
  get_one += w.self * block_bytes * m.copy_s_per_byte;
  auto [acc_one, acc_rt] =
      remote([&](link_class lc) { return acc_target_driven_s(m, lc, block_bytes); });
  acc_one += w.self * block_bytes * m.add_s_per_byte;

  // A worker's cache keeps every density block it fetched during the build: it fetches each
  // block pair at most once, and at most six per task.
  const double gets = std::min(6 * per_worker, pairs_of(static_cast<double>(nb)));
  const double gets_per_task = per_worker > 0 ? gets / per_worker : 0;
  out.get_s = per_worker * task_batch_s(gets_per_task, get_one, get_rt);
  out.acc_s = per_worker * task_batch_s(p.accs_per_task, acc_one, acc_rt);
  // Without an asynchronous thread the owner applies an accumulate only when it polls, between
  // its own tasks: half a task on average.
  if (!m.progress_thread && c.ranks > 1) out.acc_s += per_worker * (1 - w.self) * 0.5 * out.task_s;
  out.integrals_s = per_worker * out.task_s;

  // Fetch-and-adds on the counter of rank 0: one per task (single), or guided chunks of
  // remaining / (k W) with k = 2 (batched): about k W (ln(T / (k W)) + 1) in all once T > k W.
  double fetches = per_worker;
  if (c.dispense == counters::dispense::batched) {
    const double kw = 2.0 * static_cast<double>(workers);
    fetches = (tasks > kw ? kw * (std::log(tasks / kw) + 1) : tasks) / static_cast<double>(workers);
  }
  out.fetches_per_worker = fetches;
  if (workers > 1) {
    counter_load load;
    load.clients = workers - 1;
    load.ranks_per_node = rpn * c.threads;
    load.service = c.counter;
    load.owner_compute_s = out.task_s;
    // The owner's worker computes its tasks' integrals and waits for its own data in between.
    const double per_task = per_worker > 0 ? (out.get_s + out.acc_s) / per_worker : 0;
    load.owner_busy_fraction = out.task_s / (out.task_s + per_task);
    load.client_think_s = (fetches > 0 ? per_worker / fetches : 1) * (out.task_s + per_task);
    out.fetch_add_s = fetch_add_s(m, load);
  }
  out.counter_s = fetches * out.fetch_add_s;

  const double work = out.integrals_s + out.get_s + out.acc_s + out.counter_s;
  // Tasks run largest first: the build lasts at least the largest task, and the workers finish
  // unevenly by about half of one of the last (mean) tasks.
  const double mean_task_total = per_worker > 0 ? work / per_worker : 0;
  const double tail = workers > 1 ? 0.5 * std::min(mean_task_total, work) : 0;
  out.build_s = std::max(work, largest) + tail;
  out.imbalance_s = out.build_s - work;

  out.diag_s = p.diag_s;
  if (c.ranks > 1) {
    const double part = nbf * nbf * 8 / static_cast<double>(c.ranks);
    out.collectives_s = collective_s(m, coll::operation::gather, part, c.ranks) +
                        collective_s(m, coll::operation::scatter, part, c.ranks) +
                        collective_s(m, coll::operation::barrier, 0, c.ranks) +
                        collective_s(m, coll::operation::broadcast, 8, c.ranks);
  }
  out.total_s = out.build_s + out.diag_s + out.collectives_s;
  return out;
}

}  // namespace gaea::model
