// cpufreq sysfs backend: "cpufreq-userspace" (userspace governor + scaling_setspeed) or, where the
// driver has no userspace governor (intel_pstate active), "cpufreq-minmax" (scaling_max_freq).

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "detail/actuator_base.hpp"
#include "detail/backends.hpp"
#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"
#include "detail/saved_files.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::energy::detail {
namespace {

namespace fs = std::filesystem;

enum class cpufreq_mode { userspace, minmax };

// CPUFREQ_ETERNAL: the driver does not know its transition latency.
constexpr std::int64_t latency_unknown = 4294967295LL;

// What probing one CPU found, and whether each mode can work there.
struct cpu_probe {
  int cpu = -1;
  fs::path dir;
  std::int64_t high = 0, low = 0, cur = 0, latency_ns = 0, probe_ns = 0;
  std::string governor;
  std::optional<std::string> setspeed;  // its text, when the governor is already userspace
  std::int64_t orig_min = 0, orig_max = 0;
  std::vector<std::int64_t> available;  // scaling_available_frequencies, else {low, high}
  bool userspace_ok = false, minmax_ok = false;
  std::string userspace_why, minmax_why;
};

// Sysfs attributes are regular files. Root passes access(W_OK) even on read-only attributes, so
// the value is also written back: only the kernel's answer to a real write tells. Returns the
// write's duration (the one-time cost measurement) or nullopt with `why`.
std::optional<std::int64_t> probe_write(const fs::path& p, const std::string& value,
                                        std::string& why) {
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    why = p.string() + " missing";
    return std::nullopt;
  }
  if (!fs::is_regular_file(p, ec)) {
    why = p.string() + " not writable (" +
          (fs::is_directory(p, ec) ? error_text(EISDIR) : std::string("not a regular file")) + ")";
    return std::nullopt;
  }
  if (::access(p.c_str(), W_OK) != 0) {
    why = p.string() + " not writable (" + error_text(errno) + ")";
    return std::nullopt;
  }
  const std::int64_t t0 = now_ns();
  if (!write_line(p, value)) {
    why = p.string() + " not writable (" + error_text(errno) + ")";
    return std::nullopt;
  }
  return now_ns() - t0;
}

bool lists_word(const std::optional<std::string>& line, std::string_view word) {
  if (!line) return false;
  std::istringstream in(*line);
  std::string w;
  while (in >> w)
    if (w == word) return true;
  return false;
}

// The entries of scaling_available_frequencies (empty when not readable).
std::vector<std::int64_t> available_list(const fs::path& dir) {
  std::vector<std::int64_t> out;
  const auto line = read_line(dir / "scaling_available_frequencies");
  if (!line) return out;
  std::istringstream in(*line);
  std::int64_t f;
  while (in >> f)
    if (f > 0) out.push_back(f);
  return out;
}

// Lowest and highest entry of scaling_available_frequencies, when readable.
std::optional<khz_range> available_range(const std::vector<std::int64_t>& list) {
  if (list.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(list.begin(), list.end());
  return khz_range{*hi, *lo};
}

void probe_userspace(cpu_probe& p) {
  const fs::path gov = p.dir / "scaling_governor", speed = p.dir / "scaling_setspeed";
  if (p.governor == "userspace") {
    p.setspeed = read_line(speed);
    if (!p.setspeed) {
      p.userspace_why = speed.string() + " not readable (" + error_text(errno) + ")";
      return;
    }
    // Writing the current speed back both proves the file writable and times one transition.
    if (auto t = probe_write(speed, *p.setspeed, p.userspace_why)) {
      p.userspace_ok = true;
      p.probe_ns = *t;
    }
    return;
  }
  if (!lists_word(read_line(p.dir / "scaling_available_governors"), "userspace")) {
    p.userspace_why = "governor '" + p.governor + "' and no userspace governor";
    return;
  }
  // scaling_setspeed only accepts writes once the governor is userspace: check what can be
  // checked without switching, and switch on the first set_low.
  std::error_code ec;
  if (!fs::is_regular_file(speed, ec) || ::access(speed.c_str(), W_OK) != 0) {
    p.userspace_why = speed.string() + (fs::exists(speed, ec) ? " not writable" : " missing");
    return;
  }
  if (auto t = probe_write(gov, p.governor, p.userspace_why)) {
    p.userspace_ok = true;
    p.probe_ns = *t;
  }
}

void probe_minmax(cpu_probe& p) {
  const fs::path min = p.dir / "scaling_min_freq", max = p.dir / "scaling_max_freq";
  const auto mn = read_int(min), mx = read_int(max);
  if (!mn || !mx) {
    p.minmax_why = (mn ? max : min).string() + " missing";
    return;
  }
  p.orig_min = *mn;
  p.orig_max = *mx;
  if (!probe_write(min, std::to_string(*mn), p.minmax_why)) return;
  if (auto t = probe_write(max, std::to_string(*mx), p.minmax_why)) {
    p.minmax_ok = true;
    if (!p.userspace_ok) p.probe_ns = *t;
  }
}

cpu_probe probe_cpu(const fs::path& root, int cpu) {
  cpu_probe p;
  p.cpu = cpu;
  p.dir = cpufreq_dir(root, cpu);
  const std::string tag = "cpu" + std::to_string(cpu) + ": ";
  const auto gov = read_line(p.dir / "scaling_governor");
  if (!gov) {
    p.userspace_why = tag + "scaling_governor missing";
    return p;
  }
  p.governor = *gov;
  // The range: cpuinfo_max_freq is the top (it includes turbo where the driver reports it); the
  // bottom is the lowest frequency the driver lists, else cpuinfo_min_freq.
  p.available = available_list(p.dir);
  const auto avail = available_range(p.available);
  const auto cpuinfo = cpuinfo_range(root, cpu);
  p.high = cpuinfo ? cpuinfo->max_khz : avail ? avail->max_khz : 0;
  p.low = avail ? avail->min_khz : cpuinfo ? cpuinfo->min_khz : 0;
  if (p.high <= 0 || p.low <= 0 || p.low > p.high) {
    p.userspace_why = tag + "cpuinfo_max_freq/cpuinfo_min_freq missing";
    return p;
  }
  if (p.available.empty()) p.available = {p.low, p.high};
  const auto lat = read_int(p.dir / "cpuinfo_transition_latency");
  if (lat && *lat > 0 && *lat < latency_unknown) p.latency_ns = *lat;
  p.cur = read_int(p.dir / "scaling_cur_freq").value_or(p.high);
  probe_userspace(p);
  probe_minmax(p);
  if (!p.userspace_ok) p.userspace_why = tag + p.userspace_why;
  return p;
}

struct cpufreq_cpu : cpu_level {
  std::int64_t initial = 0, orig_min = 0;
  int fd_main = -1;  // scaling_setspeed or scaling_max_freq
  int fd_aux = -1;   // scaling_governor or scaling_min_freq
  bool min_lowered = false, userspace_now = false;
};

class cpufreq_actuator final : public levelled_actuator<cpufreq_cpu> {
 public:
  cpufreq_actuator(cpufreq_mode mode, std::vector<int> cpus, std::size_t capacity)
      : levelled_actuator(cpus, capacity), mode_(mode), files_(2 * cpus.size()) {}
  ~cpufreq_actuator() override { restore(); }

  /// Opens every file this actuator will write and saves its original. False with `why`.
  bool open_files(const std::vector<cpu_probe>& probes, std::string& why) {
    std::int64_t probe_ns = 0, latency_ns = 0;
    for (const cpu_probe& p : probes) {
      cpufreq_cpu c;
      c.low = p.low;
      c.initial = c.cur = p.cur;
      c.orig_min = p.orig_min;
      fs::path main, aux;
      std::optional<std::string> main_orig, aux_orig;
      if (mode_ == cpufreq_mode::userspace) {
        c.high = p.high;
        aux = p.dir / "scaling_governor";
        aux_orig = p.governor;
        main = p.dir / "scaling_setspeed";
        // A setspeed that was not in use ("<unsupported>") needs no restore: the governor is.
        if (p.governor == "userspace") main_orig = p.setspeed;
      } else {
        c.high = std::min(p.orig_max, p.high);  // p.high: within the job's limits
        aux = p.dir / "scaling_min_freq";
        aux_orig = std::to_string(p.orig_min);
        main = p.dir / "scaling_max_freq";
        main_orig = std::to_string(p.orig_max);
      }
      // Saved in this order, restored in reverse: setspeed before the governor, max before min.
      c.fd_aux = files_.sysfs_file(aux, aux_orig);
      if (c.fd_aux < 0) {
        why = aux.string() + ": " + error_text(errno);
        return false;
      }
      c.fd_main = files_.sysfs_file(main, main_orig);
      if (c.fd_main < 0) {
        why = main.string() + ": " + error_text(errno);
        return false;
      }
      state_.push_back(c);
      if (!probe_ns) probe_ns = p.probe_ns;
      latency_ns = std::max(latency_ns, p.latency_ns);
    }
    set_cost_estimate(probe_ns, latency_ns);
    return true;
  }

  std::string_view name() const noexcept override {
    return mode_ == cpufreq_mode::userspace ? "cpufreq-userspace" : "cpufreq-minmax";
  }
  bool writable() const noexcept override { return !files_.plan().retired(); }

  bool write_low(std::size_t slot, int cpu, bool low) override {
    cpufreq_cpu& c = state_[slot];
    files_.plan().arm();  // from here on a signal or exit puts the originals back
    return mode_ == cpufreq_mode::userspace ? set_userspace(cpu, c, low) : set_minmax(cpu, c, low);
  }

  // Another process of the job moved the CPU: as it would have, min/max lowered the floor too.
  void note_low(std::size_t slot, bool low) noexcept override {
    cpufreq_cpu& c = state_[slot];
    c.cur = low ? c.low : c.high;
    if (mode_ == cpufreq_mode::minmax) c.min_lowered = low && c.orig_min > c.low;
  }

  void write_originals(bool locked) noexcept override {
    files_.plan().restore_now();
    if (!locked) return;
    for (cpufreq_cpu& c : state_) {
      c.min_lowered = c.userspace_now = false;
      c.cur = c.initial;
    }
  }

  std::string describe(const std::vector<cpu_probe>& probes) const {
    const cpufreq_cpu& c = state_.front();
    std::string s = std::string(name()) + " on CPUs " + format_id_list(cpus()) + " (" +
                    std::to_string(c.high) + " -> " + std::to_string(c.low) + " kHz when idle, ";
    if (mode_ == cpufreq_mode::userspace)
      s += probes.front().governor == "userspace"
               ? "via scaling_setspeed"
               : "governor '" + probes.front().governor + "' switched to userspace on first use";
    else
      s += "via scaling_max_freq";
    return s + "; originals restored at exit)";
  }

 private:
  // The transition itself: one write, timed and logged.
  bool write_khz(int cpu, cpufreq_cpu& c, std::int64_t khz) {
    const std::int64_t t0 = now_ns();
    if (!write_text(c.fd_main, std::to_string(khz))) return false;
    record(cpu, c.cur, khz, t0, now_ns() - t0);
    c.cur = khz;
    return true;
  }

  bool set_userspace(int cpu, cpufreq_cpu& c, bool low) {
    if (!c.userspace_now) {
      if (!write_text(c.fd_aux, "userspace")) return false;
      c.userspace_now = true;
    }
    return write_khz(cpu, c, low ? c.low : c.high);
  }

  bool set_minmax(int cpu, cpufreq_cpu& c, bool low) {
    if (low) {
      // The kernel keeps min <= max: lower the floor first when it sits above the new ceiling.
      if (c.orig_min > c.low) {
        if (!write_text(c.fd_aux, std::to_string(c.low))) return false;
        c.min_lowered = true;
      }
      return write_khz(cpu, c, c.low);
    }
    if (!write_khz(cpu, c, c.high)) return false;
    if (c.min_lowered && write_text(c.fd_aux, std::to_string(c.orig_min))) c.min_lowered = false;
    return true;
  }

  cpufreq_mode mode_;
  saved_files files_;
};

}  // namespace

// Keeps every CPU's levels within the job's frequency request. The refusal, or "" and a note.
std::string apply_slurm_limits(const slurm_cpu_freq& req, std::vector<cpu_probe>& probes,
                               std::string& note) {
  std::int64_t lo = 0, hi = 0;
  for (cpu_probe& p : probes) {
    std::string refusal;
    const std::optional<khz_limits> lim = slurm_limits(req, p.available, refusal);
    if (!lim) return refusal;
    p.low = std::clamp(p.low, lim->min_khz, lim->max_khz);
    p.high = std::clamp(p.high, lim->min_khz, lim->max_khz);
    if (p.low >= p.high)
      return "Slurm's --cpu-freq (SLURM_CPU_FREQ_REQ=" + req.text + ") leaves CPU " +
             std::to_string(p.cpu) + " one frequency (" + std::to_string(p.high) +
             " kHz): nothing to lower, Gaea does not change it";
    lo = lo ? std::min(lo, lim->min_khz) : lim->min_khz;
    hi = std::max(hi, lim->max_khz);
  }
  note = "; kept within the job's limits " + std::to_string(lo) + "-" + std::to_string(hi) +
         " kHz (SLURM_CPU_FREQ_REQ=" + req.text + ")";
  return "";
}

actuator_choice try_cpufreq(const actuator_config& cfg, const slurm_cpu_freq* slurm) {
  const std::string where = under(cfg.root, "/sys/devices/system/cpu").string();
  std::vector<cpu_probe> probes;
  probes.reserve(cfg.cpus.size());
  bool all_userspace = true, all_minmax = true;
  const cpu_probe* failed = nullptr;
  for (int cpu : cfg.cpus) {
    probes.push_back(probe_cpu(cfg.root, cpu));
    const cpu_probe& p = probes.back();
    all_userspace = all_userspace && p.userspace_ok;
    all_minmax = all_minmax && p.minmax_ok;
    if (!failed && !p.userspace_ok && !p.minmax_ok) failed = &probes.back();
    if (failed) break;
  }
  if (failed) {
    std::string detail = failed->userspace_why;
    if (!failed->minmax_why.empty()) detail += "; " + failed->minmax_why;
    return {nullptr, "no writable cpufreq under " + where + " (" + detail + ")"};
  }
  std::string limits_note;
  if (slurm) {
    if (std::string refusal = apply_slurm_limits(*slurm, probes, limits_note); !refusal.empty())
      return {nullptr, std::move(refusal)};
    // The governor the job asked for stays: only scaling_max_freq moves, within its limits.
    if (!slurm->governor.empty() && slurm->governor != "userspace") {
      all_userspace = false;
      if (!all_minmax)
        return {nullptr, "Slurm's --cpu-freq (SLURM_CPU_FREQ_REQ=" + slurm->text + ") keeps the " +
                             slurm->governor +
                             " governor and scaling_max_freq is not writable: Gaea does not "
                             "change the frequency"};
    }
  }
  if (!all_userspace && !all_minmax)
    return {nullptr, "no writable cpufreq under " + where + " (CPUs " + format_id_list(cfg.cpus) +
                         " mix userspace and min/max control)"};
  const cpufreq_mode mode = all_userspace ? cpufreq_mode::userspace : cpufreq_mode::minmax;
  auto act = std::make_unique<cpufreq_actuator>(mode, cfg.cpus, cfg.transition_capacity);
  std::string why;
  if (!act->open_files(probes, why))
    return {nullptr, "no writable cpufreq under " + where + " (" + why + ")"};
  std::string reason = act->describe(probes) + limits_note;
  return {std::move(act), std::move(reason)};
}

}  // namespace gaea::energy::detail
