// This rank's energy controls, chosen at start-up: the site manager's markup, DVFS and throttle
// behind the node's arbiter, the frequency governor, and the energy meter chosen on first use.

#include "detail/node_energy.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <utility>

#include "detail/placement.hpp"
#include "detail/settings.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/energy/arbiter.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::detail {

namespace {
// The job key of the node arbiters: world rank 0's pid, clock and a random number, broadcast, so
// that it is the same on every rank of the job and differs between jobs. Collective (world).
std::string job_key(int rank, MPI_Comm world) {
  std::uint64_t v[2] = {0, 0};
  if (rank == 0) {
    std::random_device rd;
    v[0] = (static_cast<std::uint64_t>(getpid()) << 40) ^
           static_cast<std::uint64_t>(gaea::monotonic_ns());
    v[1] = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  }
  MPI_Bcast(v, 2, MPI_UINT64_T, 0, world);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(v[0]),
                static_cast<unsigned long long>(v[1]));
  return text;
}

// Ranks of this job on one node agree on each CPU through the node's arbiter; a rank alone on its
// node has none. If any rank of the node cannot attach, none of them uses it. Collective over
// `world` and `node_comm`; appends the arbitration note to both reasons.
std::shared_ptr<energy::arbiter> attach_node_arbiter(node_energy& e, const runtime& rt,
                                                     MPI_Comm world, MPI_Comm node_comm,
                                                     bool needed, const std::vector<int>& cpus) {
  const std::string key = job_key(rt.rank(), world);
  std::shared_ptr<energy::arbiter> arbiter;
  std::string why;
  if (rt.node_size() > 1 && needed) {
    try {
      energy::arbiter_config arb;
      arb.job_key = key;
      arb.node = rt.node_id();
      arb.local_rank = rt.node_rank();
      arb.local_ranks = rt.node_size();
      arb.cpus = cpus;
      arbiter = energy::attach_arbiter(arb);
    } catch (const std::exception& ex) {
      why = ex.what();
    }
  }
  int attached = why.empty() ? 1 : 0;
  if (rt.node_size() > 1) MPI_Allreduce(MPI_IN_PLACE, &attached, 1, MPI_INT, MPI_MIN, node_comm);
  if (!attached) {
    if (!why.empty())
      std::fprintf(stderr,
                   "gaea: rank %d: warning: %s; DVFS and throttle requests of the ranks on this "
                   "node are not arbitrated\n",
                   rt.rank(), why.c_str());
    arbiter.reset();
  } else if (arbiter) {
    energy::unlink_name(*arbiter);  // every rank of the node attached: the memory stays
    const std::string note =
        " (arbitrated among the " + std::to_string(rt.node_size()) + " ranks of this node)";
    e.dvfs_reason += note;
    e.throttle_reason += note;
  }
  return arbiter;
}

// Frequency domains for the governor: the PUs of one core share a clock.
std::vector<int> domain_of_cpu(const topology& topo) {
  std::vector<int> domain;
  const auto& cores = topo.pus_by_core();
  for (std::size_t c = 0; c < cores.size(); ++c)
    for (int pu : cores[c]) {
      if (pu >= static_cast<int>(domain.size()))
        domain.resize(static_cast<std::size_t>(pu) + 1, -1);
      domain[static_cast<std::size_t>(pu)] = static_cast<int>(c);
    }
  return domain;
}
}  // namespace

std::unique_ptr<node_energy> make_node_energy(const runtime_settings& cfg, const runtime& rt,
                                              MPI_Comm world, MPI_Comm node_comm,
                                              const node_placement& where) {
  auto e = std::make_unique<node_energy>();
  e->model = cfg.model;
  // A site energy manager (GEOPM) present: Gaea marks its waits for it and writes no frequency
  // or duty itself (two controllers of one clock would undo each other).
  {
    energy::markup_config mc;
    mc.kind = cfg.manager_kind;
    mc.library = cfg.geopm_library;
    mc.manager_present = energy::geopm_manager_present();
    energy::markup_choice mk = energy::make_markup(mc);
    e->markup = std::move(mk.markup);
    e->markup_reason = std::move(mk.reason);
  }
  const bool managed = e->managed();
  // Why DVFS and throttling are off while a manager is marked for.
  const std::string managed_by = managed ? "markup: " + std::string(e->markup->name()) +
                                               " controls the frequency (GAEA_ENERGY_MANAGER); no "
                                         : std::string();
  // DVFS: the CPUs this rank's threads run on. The actuator never throws for missing hardware or
  // permission; it says what it does instead.
  energy::actuator_config ac;
  ac.kind = managed ? "off" : cfg.dvfs_kind;
  ac.root = cfg.sysfs;
  ac.cpus = where.own;
  for (int c : where.progress.cpus)
    if (std::find(ac.cpus.begin(), ac.cpus.end(), c) == ac.cpus.end()) ac.cpus.push_back(c);
  ac.simulated_cost_ns = e->model.transition_ns;
  // Slurm's frequency request for the job (srun --cpu-freq): DVFS keeps to it.
  if (const char* req = std::getenv("SLURM_CPU_FREQ_REQ")) ac.cpu_freq_request = req;
  energy::actuator_choice choice = energy::make_actuator(ac);
  e->dvfs_reason = managed ? managed_by + "DVFS by Gaea" : std::move(choice.reason);
  // Throttling (clock modulation) on the same CPUs; never throws for missing hardware either.
  energy::throttle_config tc;
  tc.kind = managed ? "off" : cfg.throttle_kind;
  tc.root = cfg.sysfs;
  tc.cpus = ac.cpus;
  tc.simulated_cost_ns = e->model.throttle_transition_ns;
  energy::throttle_choice thr = energy::make_throttle(tc);
  e->throttle_reason = managed ? managed_by + "throttling by Gaea" : std::move(thr.reason);
  const std::shared_ptr<energy::arbiter> arbiter = attach_node_arbiter(
      *e, rt, world, node_comm, choice.act->active() || thr.thr->active(), ac.cpus);
  const std::shared_ptr<energy::actuator> dvfs = std::move(choice.act);
  e->actuator = energy::arbitrated(dvfs, arbiter, energy::dvfs_source::calls);
  e->governor_actuator = energy::arbitrated(dvfs, arbiter, energy::dvfs_source::governor);
  e->throttle = energy::arbitrated(std::move(thr.thr), arbiter);
  if (e->actuator->active())
    e->governor =
        std::make_unique<energy::governor>(*e->governor_actuator, domain_of_cpu(*where.topo));
  return e;
}

std::string node_energy::mode() const {
  if (markup->active()) return "markup: " + std::string(markup->name());
  if (!actuator->active() && !throttle->active()) return "own: sleep-only";
  std::string m = "own DVFS (" + std::string(actuator->name()) + ")";
  if (throttle->active()) m += ", throttle (" + std::string(throttle->name()) + ")";
  return m;
}

void node_energy::print_start_lines(int rank, const runtime_settings& cfg) const {
  // What DVFS and throttling do here goes to GAEA_VERBOSE (and the report); unasked, a run says
  // so only when a backend the user chose cannot work. A normal run prints nothing.
  if (rank != 0) return;
  const auto chosen = [](const std::string& kind) { return kind != "auto" && kind != "off"; };
  if (cfg.verbose || (chosen(cfg.dvfs_kind) && !actuator->active()))
    std::fprintf(stderr, "gaea: DVFS: %s\n", dvfs_reason.c_str());
  if (cfg.verbose || (chosen(cfg.throttle_kind) && !throttle->active()))
    std::fprintf(stderr, "gaea: throttle: %s\n", throttle_reason.c_str());
  if (cfg.verbose || (cfg.manager_kind == "geopm" && !managed()))
    std::fprintf(stderr, "gaea: energy manager: %s\n", markup_reason.c_str());
}

energy::usage_snapshot node_energy::usage(double elapsed_s,
                                          const progress::telemetry_totals& t) const {
  // CPU time split by DVFS frequency (the progress engine's lowered time) and by throttle duty.
  // The duty enters linearly, never as an "effective frequency" that would be cubed.
  const double cpu = static_cast<double>(gaea::process_cpu_ns()) * 1e-9;
  const double low =
      static_cast<double>(t.low_freq_cpu_ns + low_freq_credit_ns.load(std::memory_order_relaxed)) *
      1e-9;
  return energy::rank_usage(model, elapsed_s, cpu, low, *actuator, *throttle, sched_getcpu());
}

energy_reading node_energy::read(const std::function<energy::usage_snapshot()>& usage_now) {
  std::lock_guard lock(meter_mutex_);
  if (!meter_) {
    energy::meter_choice c =
        energy::select_meter(energy::meter_kind_from_env(), energy::sysfs_root(), model, usage_now,
                             [] { energy::burn_cpu(std::chrono::milliseconds(30)); });
    meter_ = std::move(c.m);
    meter_reason_ = c.reason;
    for (const auto& r : c.rejected)
      meter_reason_ += "; rejected " + r;
    meter_rejected_ = std::move(c.rejected);
  }
  energy_reading r;
  r.joules = meter_->joules().value_or(0.0);
  r.measured = meter_->measured();
  r.source = std::string(meter_->name());
  r.scope = meter_->scope();
  return r;
}

std::string node_energy::meter_reason() {
  std::lock_guard lock(meter_mutex_);
  return meter_reason_;
}

std::vector<std::string> node_energy::meter_rejected() {
  std::lock_guard lock(meter_mutex_);
  return meter_rejected_;
}

void node_energy::restore() {
  governor.reset();
  if (actuator) actuator->restore();
  if (throttle) throttle->restore();
}

}  // namespace gaea::detail
