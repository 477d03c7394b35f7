#pragma once
/// \file
/// gaea::energy::throttle — CPU throttling (clock modulation) as an actuator level of its own,
/// beside DVFS. Level Tj (j = 0..7) lets the clock run (8 - j) of every 8 periods: duty
/// (8 - j)/8, T0 = no modulation. Backends: MSR IA32_CLOCK_MODULATION (0x19A) through
/// /dev/cpu/N/msr where it opens read-write, and a simulated one that records every transition
/// (and busy-waits its cost) for machines without writable MSRs. Every path hangs under
/// sysfs_root() (GAEA_SYSFS_ROOT), so tests run against fake trees.
///
/// How DVFS and throttling divide: gaea::energy::actuator changes the frequency (cpufreq), the
/// throttle changes the duty (clock modulation); IA32_CLOCK_MODULATION is written by the throttle
/// only. The power model charges a CPU at frequency f and level Tj with
/// P_dyn (f/f_max)^3 (8-j)/8: cubic in the frequency, linear in the duty ([A2A-Energy] eq. 1).
///
/// Use in collectives ([A2A-Energy] §2): lowest DVFS frequency for the whole call,
/// set_all(5) in steps where every core of the socket talks across nodes only, set_all(7) while
/// idle, set_all(0) in intra-node steps and at the end of the call. set_level is a no-op (no
/// lock, no write, no transition) when the CPU is already at that level, so calling it at every
/// step is cheap. Hardware note (Intel SDM vol. 3B, "On-Demand Clock Modulation"): the SMT
/// siblings of a core must be programmed alike, otherwise the core modulates at one of their
/// duties; give the throttle every PU of the cores it should slow down.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gaea::energy {

/// The kinds throttle_config::kind accepts: GAEA_THROTTLE's choices.
inline constexpr std::array<std::string_view, 4> throttle_kinds{"auto", "msr", "simulated", "off"};

/// Number of throttle levels, T0..T7; level j idles j of every `throttle_levels` clock periods.
inline constexpr int throttle_levels = 8;

/// Fraction of clock periods a CPU at level `level` runs: (8 - level) / 8. Throws gaea::error
/// naming the value when `level` is outside 0..7.
double throttle_duty(int level);

/// One level change of one CPU, as the throttle performed (or simulated) it.
struct throttle_transition {
  std::int64_t t_ns = 0;     ///< CLOCK_MONOTONIC time of the request
  int cpu = -1;              ///< OS index of the PU
  int from_level = 0;        ///< level before (0..7)
  int to_level = 0;          ///< level after (0..7)
  std::int64_t cost_ns = 0;  ///< time the request took (write latency, or the simulated cost)
};

/// Process CPU time (ns) by throttle level: entry j is the CPU time this process consumed while
/// its CPUs were at Tj (see throttle::cpu_ns_by_level).
using level_times = std::array<std::int64_t, throttle_levels>;

/// The duty that, applied uniformly to `total_cpu_ns` of CPU time, removes as much dynamic
/// energy as the time in `by_level` at its levels: 1 - sum_j by_level[j] * j/8 / total_cpu_ns,
/// clamped to [1/8, 1]; 1 when total_cpu_ns <= 0.
double mean_duty(const level_times& by_level, std::int64_t total_cpu_ns) noexcept;

/// Thread safety: every member may be called concurrently from any thread (writes are
/// serialised per throttle; level() and the no-op path of set_level() take no lock). restore()
/// is idempotent and also runs, for the hardware backend, from the atexit and fatal-signal
/// handlers installed by make_throttle (async-signal-safe part only).
class throttle {
 public:
  virtual ~throttle() = default;
  /// "msr-clockmod", "simulated" or "none".
  virtual std::string_view name() const noexcept = 0;
  /// True when set_level() can change anything (false for "none").
  virtual bool active() const noexcept = 0;
  /// True when the transitions are real (hardware), false when simulated or none.
  virtual bool hardware() const noexcept = 0;
  /// The CPUs this throttle manages (throttle_config::cpus; empty for "none").
  virtual const std::vector<int>& cpus() const noexcept = 0;

  /// Puts `cpu` at level `level` (Tlevel). Returns true when it is there; false when the write
  /// was refused, when `cpu` is not one of cpus(), for "none", and after a fatal signal restored
  /// the originals (the CPU then stays where it was). No-op (true, nothing written or counted)
  /// when already there. Throws gaea::error naming the value when `level` is outside 0..7.
  virtual bool set_level(int cpu, int level) = 0;
  /// set_level(c, level) for every c in cpus(); true when all succeeded (false for "none").
  /// Throws gaea::error naming the value when `level` is outside 0..7.
  bool set_all(int level);
  /// The level `cpu` is at now as far as the throttle knows (0 for a CPU it does not manage).
  virtual int level(int cpu) const noexcept = 0;
  /// throttle_duty(level(cpu)).
  double duty(int cpu) const noexcept;

  /// Puts every managed CPU back as the throttle found it (T0 unless someone else had
  /// modulation on): MSR writes the saved originals, newest first. Each CPU that changes level
  /// counts as a transition. Idempotent, noexcept; the throttle stays usable (a later set_level
  /// re-arms the restore at exit / on a fatal signal).
  virtual void restore() noexcept = 0;

  /// Every transition so far, oldest first (bounded: the oldest are dropped past
  /// throttle_config::transition_capacity).
  virtual std::vector<throttle_transition> transitions() const = 0;
  /// Total number of transitions, including dropped ones.
  virtual std::uint64_t transition_count() const noexcept = 0;
  /// Cost of one transition in ns: the mean of the writes so far, before any write the probe
  /// write made at construction; the configured cost when simulated; 0 for none.
  virtual std::int64_t transition_cost_ns() const noexcept = 0;

  /// Process CPU time by level since the throttle was built (ns). The process CPU clock is read
  /// at every transition; the CPU time between two transitions is split evenly over the managed
  /// CPUs and each part counted at that CPU's level. All zero for "none".
  virtual level_times cpu_ns_by_level() const = 0;
  /// Empty while the device accepted every write; else, once it refused one (an msr-safe
  /// allow-list changed under a running job), what was refused. From then on the throttle writes
  /// nothing more (set_level returns false) until restore(). Thread-safe.
  virtual std::string refusal() const { return {}; }
};

/// What make_throttle decided and why, in one line ("msr-clockmod throttle on CPUs 0-3 (...)" /
/// "no MSR access (/dev/cpu/0/msr: No such file or directory): no throttling").
struct throttle_choice {
  std::unique_ptr<throttle> thr;  ///< the throttle (never null; possibly "none")
  std::string reason;             ///< the one line
};

/// Settings of make_throttle.
struct throttle_config {
  std::string kind = "auto";              ///< auto|msr|simulated|off (GAEA_THROTTLE)
  std::filesystem::path root = "/";       ///< sysfs/dev root (GAEA_SYSFS_ROOT)
  std::vector<int> cpus;                  ///< CPUs this process may throttle (empty: none)
  std::int64_t simulated_cost_ns = 2000;  ///< simulated: busy-waited per transition
  std::size_t transition_capacity =
      1 << 16;  ///< transitions kept (older ones overwritten, still counted)
  /// Restore on SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGABRT/SIGSEGV, then re-raise with the previous
  /// disposition (signals set to SIG_IGN are left alone).
  bool install_signal_handlers = true;
};

/// Chooses and builds the backend. `auto`: MSR clock modulation if /dev/cpu/N/msr opens
/// read-write and accepts a write of IA32_CLOCK_MODULATION for every CPU in cfg.cpus, else none
/// (the DVFS convention: hardware or nothing). `simulated` is chosen explicitly only. An
/// explicit kind that cannot work falls back to none with a reason (it never throws for missing
/// hardware or permission); an unknown kind throws gaea::error naming GAEA_THROTTLE. Originals
/// are saved at construction and restored by restore(), the destructor, at exit and after a
/// fatal signal.
throttle_choice make_throttle(const throttle_config& cfg);

/// GAEA_THROTTLE, "auto" when unset or empty; throws gaea::error naming GAEA_THROTTLE and the
/// value unless it is auto|msr|simulated|off. Local, thread-safe.
std::string throttle_kind_from_env();

}  // namespace gaea::energy
