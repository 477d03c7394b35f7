// GEOPM DVFS backend ("geopm"): each CPU's CPU_FREQUENCY_MAX_CONTROL set through geopmwrite
// (the GEOPM service's access list decides), for users whose site runs the service instead of
// giving them cpufreq. Proves itself per CPU before use: a write of the high level must be
// accepted and read back.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "detail/actuator_base.hpp"
#include "detail/backends.hpp"
#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"
#include "detail/geopm_cli.hpp"

namespace gaea::energy::detail {
namespace {

constexpr const char* control = "CPU_FREQUENCY_MAX_CONTROL";
constexpr const char* domain = "cpu";
constexpr double hz_per_khz = 1000.0;

struct cpu_setup {
  std::int64_t low = 0, high = 0;  // kHz
  double original_hz = 0;
};

struct geopm_cpu : cpu_level {
  double original_hz = 0;
  bool changed = false;
};

class geopm_actuator final : public levelled_actuator<geopm_cpu> {
 public:
  geopm_actuator(std::vector<int> cpus, std::size_t capacity, geopm_tools tools,
                 const std::vector<cpu_setup>& setup)
      : levelled_actuator(cpus, capacity), tools_(std::move(tools)) {
    for (const cpu_setup& s : setup)
      state_.push_back({{s.high, s.low, s.high}, s.original_hz, false});
  }
  ~geopm_actuator() override { restore(); }
  void set_probe_cost(std::int64_t ns) noexcept { set_cost_estimate(ns, 0); }

  std::string_view name() const noexcept override { return "geopm"; }

 protected:
  bool write_low(std::size_t slot, int cpu, bool low) override {
    geopm_cpu& c = state_[slot];
    const std::int64_t to = low ? c.low : c.high;
    const std::int64_t t0 = now_ns();
    std::string why;
    if (!geopm_write(tools_, control, domain, cpu, static_cast<double>(to) * hz_per_khz, why))
      return false;
    record(cpu, c.cur, to, t0, now_ns() - t0);
    c.cur = to;
    c.changed = true;
    return true;
  }
  void note_low(std::size_t slot, bool low) noexcept override {
    geopm_cpu& c = state_[slot];
    c.cur = low ? c.low : c.high;
  }
  // Runs geopmwrite: not async-signal-safe, so a fatal signal leaves the control where it was
  // (framework/energy/README.md); restore(), the destructor and the runtime's finalize write.
  void write_originals(bool locked) noexcept override {
    if (!locked) return;
    const std::vector<int>& ids = cpus();
    for (std::size_t i = 0; i < state_.size(); ++i) {
      geopm_cpu& c = state_[i];
      if (!c.changed) continue;
      std::string why;
      try {
        if (geopm_write(tools_, control, domain, ids[i], c.original_hz, why)) c.changed = false;
      } catch (...) {  // noexcept: an allocation failure leaves the control for the service
      }
      c.cur = c.high;
    }
  }

 private:
  geopm_tools tools_;
};

// Reads `signal` of `cpu` in kHz; 0 with `why` when it fails.
std::int64_t read_khz(const geopm_tools& t, const char* signal, int cpu, std::string& why) {
  const auto hz = geopm_read(t, signal, domain, cpu, why);
  return hz && *hz > 0 ? static_cast<std::int64_t>(std::llround(*hz / hz_per_khz)) : 0;
}

// A write of `hz` accepted and read back (to the kHz). "" or why not.
std::string write_and_check(const geopm_tools& t, int cpu, double hz) {
  std::string why;
  if (!geopm_write(t, control, domain, cpu, hz, why)) return why;
  const auto back = geopm_read(t, control, domain, cpu, why);
  if (!back) return why;
  if (std::llround(*back / hz_per_khz) != std::llround(hz / hz_per_khz))
    return std::string(control) + " of CPU " + std::to_string(cpu) + " reads back " +
           std::to_string(*back) + " Hz after a write of " + std::to_string(hz) + " Hz";
  return "";
}

}  // namespace

actuator_choice try_geopm(const actuator_config& cfg, const slurm_cpu_freq* slurm) {
  const std::string enable =
      " (a site enables it with the GEOPM service and CPU_FREQUENCY_MAX_CONTROL at the cpu "
      "domain in its access list)";
  geopm_tools tools = find_geopm_tools();
  if (!tools.why.empty()) return {nullptr, "no GEOPM: " + tools.why + enable};
  std::vector<cpu_setup> setup;
  std::int64_t probe_ns = 0, lo_all = 0, hi_all = 0;
  for (int cpu : cfg.cpus) {
    std::string why;
    cpu_setup s;
    s.low = read_khz(tools, "CPU_FREQUENCY_MIN_AVAIL", cpu, why);
    s.high = s.low ? read_khz(tools, "CPU_FREQUENCY_MAX_AVAIL", cpu, why) : 0;
    const auto original = s.high ? geopm_read(tools, control, domain, cpu, why) : std::nullopt;
    if (!original) return {nullptr, "no GEOPM frequency control: " + why + enable};
    s.original_hz = *original;
    // The high level is the control's value now (a site's cap stays), within Slurm's limits.
    s.high = std::min(s.high, static_cast<std::int64_t>(std::llround(s.original_hz / hz_per_khz)));
    if (slurm) {
      std::string refusal;
      const auto lim = slurm_limits(*slurm, {s.low, s.high}, refusal);
      if (!lim) return {nullptr, refusal};
      s.low = std::clamp(s.low, lim->min_khz, lim->max_khz);
      s.high = std::clamp(s.high, lim->min_khz, lim->max_khz);
    }
    if (s.low >= s.high)
      return {nullptr, "GEOPM leaves CPU " + std::to_string(cpu) + " one frequency (" +
                           std::to_string(s.high) + " kHz): nothing to lower"};
    // The proof writes the high level (the control's own value unless Slurm lowered it): ranks
    // sharing a CPU probe it at once without leaving it low.
    const std::int64_t t0 = now_ns();
    const std::string refused =
        write_and_check(tools, cpu, static_cast<double>(s.high) * hz_per_khz);
    if (!refused.empty()) return {nullptr, "GEOPM refused the probe write: " + refused + enable};
    if (!probe_ns) probe_ns = now_ns() - t0;
    lo_all = lo_all ? std::min(lo_all, s.low) : s.low;
    hi_all = std::max(hi_all, s.high);
    setup.push_back(s);
  }
  auto act = std::make_unique<geopm_actuator>(cfg.cpus, cfg.transition_capacity, tools, setup);
  act->set_probe_cost(probe_ns);
  std::string reason = "geopm on CPUs " + format_id_list(cfg.cpus) + " (" + control + " via " +
                       tools.write.string() + ", " + std::to_string(hi_all) + " -> " +
                       std::to_string(lo_all) +
                       " kHz when idle; a probe write read back; high = the control's value found)";
  if (slurm) reason += "; kept within SLURM_CPU_FREQ_REQ=" + slurm->text;
  return {std::move(act), std::move(reason)};
}

}  // namespace gaea::energy::detail
