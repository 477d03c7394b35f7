// Fitting the power model against a meter: the phases (run_power_phases) and the least squares
// (fit_power_model). See gaea/energy/calibration.hpp.

#include "gaea/energy/calibration.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>

#include "detail/fd_io.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy {
namespace {

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

// The load a phase puts on the CPUs in the model's terms: busy cores times (f/f_max)^3 times
// the duty, i.e. what multiplies p_dyn_w.
double dynamic_load(const power_phase& ph) {
  const double u = ph.cpu_s / ph.wall_s;
  return u * ph.f_ratio * ph.f_ratio * ph.f_ratio * ph.duty;
}

void check_phase(const power_phase& ph) {
  if (!(ph.wall_s > 0) || !(ph.joules > 0) || !(ph.cpu_s >= 0))
    throw error("power phase '" + ph.name + "': wall " + fmt("%g", ph.wall_s) + " s, " +
                fmt("%g", ph.joules) + " J, CPU " + fmt("%g", ph.cpu_s) +
                " s: expected positive wall time and energy");
}

void check_cores(int cores) {
  if (cores < 1)
    throw error("power model fit: cores = " + std::to_string(cores) + ", expected at least 1");
}

// CPU time (s) every process of the node used so far, from the first line of /proc/stat (user,
// nice, system, idle, iowait, irq, softirq, steal: everything but idle and iowait); nullopt when
// unreadable.
std::optional<double> node_busy_s(const std::filesystem::path& root) {
  std::ifstream in(under(root, "/proc/stat"));
  std::string cpu;
  if (!(in >> cpu) || cpu != "cpu") return std::nullopt;
  std::uint64_t v[8] = {};
  for (auto& x : v)
    if (!(in >> x)) return std::nullopt;
  const long tick = ::sysconf(_SC_CLK_TCK);
  if (tick <= 0) return std::nullopt;
  const std::uint64_t busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  return static_cast<double>(busy) / static_cast<double>(tick);
}

std::vector<int> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// `threads` busy loops that start together on go() and stop on stop(); joined on destruction.
class busy_threads {
 public:
  explicit busy_threads(int n) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this] { run(); });
  }
  ~busy_threads() {
    stop();
    for (auto& t : threads_)
      t.join();
  }
  busy_threads(const busy_threads&) = delete;
  busy_threads& operator=(const busy_threads&) = delete;
  void go() {
    go_.store(true);
    go_.notify_all();
  }
  void stop() {
    stop_.store(true, std::memory_order_relaxed);
    go();  // threads still waiting leave at once
  }

 private:
  void run() {
    go_.wait(false);
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    while (!stop_.load(std::memory_order_relaxed))
      for (int i = 0; i < 4096; ++i)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    volatile std::uint64_t sink = x;  // observable: the loop cannot be removed
    (void)sink;
  }
  std::atomic<bool> go_{false}, stop_{false};
  std::vector<std::thread> threads_;
};

double read_meter(meter& m, const std::string& phase) {
  const std::optional<double> j = m.joules();
  if (!j)
    throw error("power calibration: meter " + std::string(m.name()) + " (" + m.scope() +
                ") could not be read during phase '" + phase + "'");
  return *j;
}

power_phase run_phase(meter& m, const calibration_config& cfg, std::string name, int threads,
                      std::int64_t khz, double f_ratio, double duty) {
  power_phase ph;
  ph.name = std::move(name);
  ph.threads = threads;
  ph.khz = khz;
  ph.f_ratio = f_ratio;
  ph.duty = duty;
  busy_threads load(threads);  // created (and blocked) before the phase starts
  const std::optional<double> busy0 = node_busy_s(cfg.root);
  const double j0 = read_meter(m, ph.name);
  const std::int64_t cpu0 = detail::process_cpu_ns();
  const auto t0 = std::chrono::steady_clock::now();
  load.go();
  const auto end = t0 + cfg.phase;
  // Read the meter every `sample` so that a counter wrap within the phase is seen.
  for (auto now = t0; now < end; now = std::chrono::steady_clock::now()) {
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(cfg.sample, end - now));
    read_meter(m, ph.name);
  }
  const double j1 = read_meter(m, ph.name);
  const std::int64_t cpu1 = detail::process_cpu_ns();
  const auto t1 = std::chrono::steady_clock::now();
  const std::optional<double> busy1 = node_busy_s(cfg.root);
  load.stop();
  ph.wall_s = std::chrono::duration<double>(t1 - t0).count();
  ph.cpu_s = static_cast<double>(cpu1 - cpu0) * 1e-9;
  ph.joules = j1 - j0;
  if (busy0 && busy1) ph.other_cpu_s = std::max(0.0, *busy1 - *busy0 - ph.cpu_s);
  if (cfg.on_phase) cfg.on_phase(ph);
  return ph;
}

// Restores an actuator or throttle when the phases end, normally or not.
template <class T>
struct restore_at_exit {
  T* what;
  ~restore_at_exit() {
    if (what) what->restore();
  }
};

}  // namespace

double phase_model_w(const model_params& p, int cores, const power_phase& ph) {
  check_cores(cores);
  check_phase(ph);
  // The frequency in the model's terms: the same fraction of its f_max.
  const auto khz =
      static_cast<std::int64_t>(std::llround(ph.f_ratio * static_cast<double>(p.f_max_khz)));
  return cores * (p.p_static_w + p.p_dyn_other_w) +
         cpu_dynamic_power_w(p, ph.cpu_s / ph.wall_s, khz, ph.duty);
}

power_fit_error evaluate_power_model(const model_params& p, int cores,
                                     std::span<const power_phase> phases) {
  check_cores(cores);
  power_fit_error e;
  double sum2 = 0;
  for (const power_phase& ph : phases) {
    check_phase(ph);
    const double w = phase_model_w(p, cores, ph);
    const double rel = w / ph.measured_w() - 1;
    e.modelled_w.push_back(w);
    e.rel_err.push_back(rel);
    sum2 += rel * rel;
    e.max_rel = std::max(e.max_rel, std::abs(rel));
  }
  if (!phases.empty()) e.rms_rel = std::sqrt(sum2 / static_cast<double>(phases.size()));
  return e;
}

model_params fit_power_model(const model_params& base, int cores,
                             std::span<const power_phase> phases) {
  check_cores(cores);
  // Rows (1/P_i, x_i/P_i) . (a, b) = 1: the relative error of each phase's modelled power, so
  // that an idle phase of 10 W counts as much as a busy one of 100 W. Normal equations, 2x2.
  double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
  double x_min = INFINITY, x_max = -INFINITY;
  for (const power_phase& ph : phases) {
    check_phase(ph);
    const double p = ph.measured_w(), x = dynamic_load(ph);
    const double c0 = 1 / p, c1 = x / p;
    s00 += c0 * c0;
    s01 += c0 * c1;
    s11 += c1 * c1;
    r0 += c0;
    r1 += c1;
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
  }
  const double det = s00 * s11 - s01 * s01;
  // Fewer than two distinct loads leave p_dyn_w undetermined (0.05 busy cores apart at least).
  if (phases.size() < 2 || !(x_max - x_min > 0.05) || !(det > 1e-12 * s00 * s11))
    throw error("power model fit: " + std::to_string(phases.size()) + " phases with loads from " +
                fmt("%.3f", phases.empty() ? 0.0 : x_min) + " to " +
                fmt("%.3f", phases.empty() ? 0.0 : x_max) +
                " busy cores: need at least two phases whose loads differ");
  const double a = (s11 * r0 - s01 * r1) / det;  // the node's wall-time term (W)
  const double b = (s00 * r1 - s01 * r0) / det;  // p_dyn_w (W per busy core at f_max)
  if (!(a > 0) || !(b > 0))
    throw error("power model fit: wall-time term " + fmt("%.4g", a) + " W per node and p_dyn_w " +
                fmt("%.4g", b) + " W over " + std::to_string(phases.size()) +
                " phases: not positive, so the meter does not follow this process's load "
                "(other load on the node, or a meter counting something else)");
  model_params p = base;
  const double per_core = a / cores;
  const double base_floor = base.p_static_w + base.p_dyn_other_w;  // > 0: p_static_w is
  p.p_static_w = per_core * base.p_static_w / base_floor;
  p.p_dyn_other_w = per_core * base.p_dyn_other_w / base_floor;
  p.p_dyn_w = b;
  p.note.clear();
  return p;
}

std::vector<int> default_thread_counts(int n) {
  std::vector<int> t;
  if (n <= 8) {
    for (int i = 1; i <= n; ++i)
      t.push_back(i);
    return t;
  }
  for (int i = 1; i <= 8; ++i)
    t.push_back(static_cast<int>((static_cast<std::int64_t>(n) * i + 7) / 8));
  return t;
}

int hardware_threads() {
  return std::max(1U, std::thread::hardware_concurrency());
}

calibration_run run_power_phases(meter& m, const calibration_config& cfg) {
  if (cfg.phase.count() <= 0 || cfg.sample.count() <= 0)
    throw error("power calibration: phase " + std::to_string(cfg.phase.count()) + " ms, sample " +
                std::to_string(cfg.sample.count()) + " ms: both must be positive");
  const std::vector<int> counts =
      cfg.threads.empty() ? default_thread_counts(hardware_threads()) : cfg.threads;
  for (int n : counts)
    if (n < 1 || n > 4096)
      throw error("power calibration: " + std::to_string(n) + " busy threads, expected 1..4096");
  for (int l : cfg.throttle_levels)
    if (l < 1 || l >= throttle_levels)
      throw error("power calibration: throttle level " + std::to_string(l) + ", expected 1..7");
  for (const auto& [kind, ok] : {std::pair{cfg.dvfs_kind, cfg.dvfs_kind != "simulated"},
                                 std::pair{cfg.throttle_kind, cfg.throttle_kind != "simulated"}})
    if (!ok)
      throw error("power calibration: a simulated actuator changes no power (" + kind +
                  "): use auto, the hardware kind or off");
  calibration_run run;
  const std::vector<int> cpus = affinity_cpus();

  // Actuators: hardware only, and only where they can act.
  actuator_config ac;
  ac.kind = cfg.dvfs_kind;
  ac.root = cfg.root;
  ac.cpus = cpus;
  actuator_choice dvfs = make_actuator(ac);
  const bool use_dvfs = dvfs.act->active() && dvfs.act->hardware() && !cpus.empty() &&
                        dvfs.act->low_khz(cpus[0]) > 0 &&
                        dvfs.act->low_khz(cpus[0]) < dvfs.act->high_khz(cpus[0]);
  run.dvfs = dvfs.reason + (use_dvfs ? "" : "; no low-frequency phases");
  throttle_config tc;
  tc.kind = cfg.throttle_kind;
  tc.root = cfg.root;
  tc.cpus = cpus;
  throttle_choice thr = make_throttle(tc);
  const bool use_throttle = thr.thr->active() && thr.thr->hardware();
  run.throttle = thr.reason + (use_throttle ? "" : "; no throttled phases");
  const restore_at_exit<actuator> restore_dvfs{use_dvfs ? dvfs.act.get() : nullptr};
  const restore_at_exit<throttle> restore_thr{use_throttle ? thr.thr.get() : nullptr};

  if (cfg.idle) run.phases.push_back(run_phase(m, cfg, "idle", 0, 0, 1.0, 1.0));
  for (int n : counts)
    run.phases.push_back(run_phase(m, cfg, std::to_string(n) + " busy", n, 0, 1.0, 1.0));
  if (use_dvfs) {
    const std::int64_t lo = dvfs.act->low_khz(cpus[0]), hi = dvfs.act->high_khz(cpus[0]);
    for (int c : cpus)
      if (!dvfs.act->set_low(c, true))
        throw error("power calibration: " + std::string(dvfs.act->name()) +
                    " refused to lower CPU " + std::to_string(c));
    const double ratio = static_cast<double>(lo) / static_cast<double>(hi);
    for (int n : counts)
      run.phases.push_back(run_phase(
          m, cfg, std::to_string(n) + " busy @ " + std::to_string(lo) + " kHz", n, lo, ratio, 1.0));
    dvfs.act->restore();
  }
  if (use_throttle) {
    for (int level : cfg.throttle_levels) {
      if (!thr.thr->set_all(level))
        throw error("power calibration: " + std::string(thr.thr->name()) + " refused level T" +
                    std::to_string(level));
      for (int n : counts)
        run.phases.push_back(run_phase(m, cfg,
                                       std::to_string(n) + " busy @ T" + std::to_string(level), n,
                                       0, 1.0, throttle_duty(level)));
    }
    thr.thr->restore();
  }
  return run;
}

}  // namespace gaea::energy
