#pragma once
/// \file
/// gaea::energy::actuator — changes the clock frequency of CPUs (DVFS) and puts back what it
/// changed. Backends: cpufreq sysfs (userspace governor + scaling_setspeed, else per-CPU
/// scaling_min/max_freq) and a simulated one that records every transition so that the energy
/// model can charge it. Every path hangs under sysfs_root() (GAEA_SYSFS_ROOT), so tests run
/// against fake trees.
///
/// DVFS and throttling divide the work by what they change: an actuator changes the frequency
/// (the model charges dynamic power by (f/f_max)^3, voltage following frequency), a
/// gaea::energy::throttle (throttle.hpp) changes the duty through MSR clock modulation, T0..T7
/// (the model charges dynamic power linearly in the duty, [A2A-Energy] eq. 1). The two compose:
/// a CPU at frequency f and level Tj draws P_dyn (f/f_max)^3 (8-j)/8. IA32_CLOCK_MODULATION
/// belongs to the throttle alone; GAEA_DVFS=msr is still accepted but gives "none".

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace gaea::energy {

/// The kinds actuator_config::kind accepts: GAEA_DVFS's choices.
inline constexpr std::array<std::string_view, 6> actuator_kinds{"auto", "cpufreq",   "geopm",
                                                                "msr",  "simulated", "off"};

/// One frequency change of one CPU, as the actuator performed (or simulated) it.
struct transition {
  std::int64_t t_ns = 0;      ///< CLOCK_MONOTONIC time of the request
  int cpu = -1;               ///< OS index of the PU
  std::int64_t from_khz = 0;  ///< frequency before
  std::int64_t to_khz = 0;    ///< frequency after
  std::int64_t cost_ns = 0;   ///< time the request took (write latency, or the simulated cost)
};

/// Thread safety: set_low/set_high/current_khz may be called concurrently from any thread
/// (implementations serialise per actuator); restore() is idempotent and also runs from the
/// signal handler installed by make_actuator (async-signal-safe part only).
class actuator {
 public:
  virtual ~actuator() = default;
  /// "cpufreq-userspace", "cpufreq-minmax", "geopm", "simulated" or "none".
  virtual std::string_view name() const noexcept = 0;
  /// True when set_low() can change anything (false for "none").
  virtual bool active() const noexcept = 0;
  /// True when the transitions are real (hardware), false when simulated or none.
  virtual bool hardware() const noexcept = 0;
  /// Highest and lowest frequency the backend uses for `cpu` (kHz); 0 if unknown.
  virtual std::int64_t high_khz(int cpu) const = 0;
  virtual std::int64_t low_khz(int cpu) const = 0;  ///< the lowest (see high_khz)
  /// The frequency `cpu` is set to now (kHz) as far as the actuator knows.
  virtual std::int64_t current_khz(int cpu) const = 0;
  /// Lowers `cpu` to low_khz (true) or raises it back to high_khz (false). Returns false when the
  /// write was refused, when `cpu` is not one of actuator_config::cpus, for "none", and after a
  /// fatal signal restored the originals; the actuator then stays where it was. No-op (true)
  /// when already there.
  virtual bool set_low(int cpu, bool low) = 0;
  /// Writes back every value this actuator changed, in reverse order. Idempotent, noexcept.
  /// The actuator stays usable: a later set_low() applies its settings again (and re-arms the
  /// restore at exit / on a fatal signal).
  virtual void restore() noexcept = 0;
  /// Every transition so far (bounded: the oldest are dropped past `transition_capacity`).
  virtual std::vector<transition> transitions() const = 0;
  /// Total number of transitions, including dropped ones.
  virtual std::uint64_t transition_count() const noexcept = 0;
  /// Cost of one transition in ns: the mean of the writes measured so far, before any write a
  /// one-time measurement made at construction, never below cpuinfo_transition_latency; the
  /// configured cost when simulated; 0 when unknown (none).
  virtual std::int64_t transition_cost_ns() const noexcept = 0;
};

/// What make_actuator decided and why, in one line a user can read ("cpufreq-userspace on CPUs
/// 0-3" / "no cpufreq under /sys: sleep-only, no DVFS").
struct actuator_choice {
  std::unique_ptr<actuator> act;  ///< the actuator (never null; possibly "none")
  std::string reason;             ///< the one line
};

/// Settings of make_actuator.
struct actuator_config {
  std::string kind = "auto";         ///< auto|cpufreq|geopm|msr (= none)|simulated|off (GAEA_DVFS)
  std::filesystem::path root = "/";  ///< sysfs/dev root (GAEA_SYSFS_ROOT)
  std::vector<int> cpus;             ///< CPUs this process may change (empty: none)
  /// simulated: the two levels in kHz; when either is 0, cpufreq's cpuinfo_max/min_freq of the
  /// first CPU under `root` if readable, else 2400000/1200000 (the model's defaults).
  std::int64_t simulated_high_khz = 0;
  std::int64_t simulated_low_khz = 0;      ///< simulated: the low level in kHz (see above)
  std::int64_t simulated_cost_ns = 10000;  ///< simulated: busy-waited per transition
  /// Transitions kept (older ones overwritten, still counted).
  std::size_t transition_capacity = 1 << 16;
  /// The job's frequency request from its resource manager: the text of SLURM_CPU_FREQ_REQ
  /// (gaea/energy/slurm.hpp); empty = none. A hardware backend keeps within its range, and stays
  /// off (none, with the reason) when it fixes the frequency, names a governor alone, or cannot
  /// be parsed. The simulated backend changes no hardware and ignores it.
  std::string cpu_freq_request;
  /// Restore on SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGABRT/SIGSEGV, then re-raise with the previous
  /// disposition (signals set to SIG_IGN are left alone).
  bool install_signal_handlers = true;
};

/// Chooses and builds the backend. `auto`: cpufreq if it is present and writable for every CPU
/// in cfg.cpus, else GEOPM (geopmwrite, gaea/energy/README.md), else none (sleep-only). `msr` gives
/// none with a reason pointing at the throttle (clock modulation is not a frequency). An explicit
/// kind that cannot work falls back to none with a reason (it never throws for missing hardware or
/// permission); an unknown kind throws gaea::error naming GAEA_DVFS. Writability is probed by
/// writing each file's current value back. Originals are saved before the first write and
/// restored by restore(), the destructor, at exit, and after a fatal signal. Thread-safe.
actuator_choice make_actuator(const actuator_config& cfg);

}  // namespace gaea::energy
