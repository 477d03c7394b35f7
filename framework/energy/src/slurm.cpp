// SLURM_CPU_FREQ_REQ: the parser, the limits a DVFS actuator keeps to, and the sentence that
// tells Gaea's energy from Slurm's ConsumedEnergy.

#include "gaea/energy/slurm.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "gaea/base/error.hpp"

namespace gaea::energy {
namespace {

constexpr std::array<std::string_view, 6> governors{"conservative", "ondemand",  "performance",
                                                    "powersave",    "schedutil", "userspace"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

[[noreturn]] void bad(std::string_view text, const std::string& what) {
  throw error("SLURM_CPU_FREQ_REQ='" + std::string(text) + "': " + what +
              " (accepted: <kHz>|low|medium|high|highm1, a governor "
              "(conservative|ondemand|performance|powersave|schedutil|userspace), "
              "<min>-<max> or <min>-<max>:<governor>)");
}

bool is_governor(std::string_view w) {
  return std::find(governors.begin(), governors.end(), w) != governors.end();
}

// One frequency word: a kHz count or a level. nullopt when it is neither.
std::optional<slurm_freq> frequency(std::string_view text, const std::string& w) {
  using level = slurm_freq::level;
  if (w == "low") return slurm_freq{level::low, 0};
  if (w == "medium") return slurm_freq{level::medium, 0};
  if (w == "high") return slurm_freq{level::high, 0};
  if (w == "highm1") return slurm_freq{level::highm1, 0};
  if (w.empty() || w.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (w.size() > 12) bad(text, "frequency '" + w + "' kHz is out of range");
  const std::int64_t khz = std::stoll(w);
  if (khz <= 0) bad(text, "a frequency must be a positive number of kHz, got '" + w + "'");
  return slurm_freq{level::khz, khz};
}

}  // namespace

slurm_cpu_freq parse_slurm_cpu_freq(std::string_view text) {
  slurm_cpu_freq r;
  r.text = std::string(text);
  const std::string s = lower(text);
  if (s.empty()) bad(text, "empty");
  const std::size_t colon = s.find(':');
  const std::string range = s.substr(0, colon);
  if (colon != std::string::npos) {
    r.governor = s.substr(colon + 1);
    if (!is_governor(r.governor)) bad(text, "'" + r.governor + "' is not a governor");
  }
  const std::size_t dash = range.find('-');
  if (dash == std::string::npos) {
    if (colon != std::string::npos) bad(text, "a governor after ':' needs a range <min>-<max>");
    if (is_governor(range)) {
      r.governor = range;
      return r;
    }
    r.min = frequency(text, range);
    if (!r.min) bad(text, "'" + range + "' is neither a frequency nor a governor");
    return r;
  }
  const std::string lo = range.substr(0, dash), hi = range.substr(dash + 1);
  r.min = frequency(text, lo);
  r.max = frequency(text, hi);
  if (!r.min) bad(text, "minimum '" + lo + "' is not a frequency");
  if (!r.max) bad(text, "maximum '" + hi + "' is not a frequency");
  if (r.max->kind == slurm_freq::level::low) bad(text, "low is not accepted as a maximum");
  if (r.min->kind == slurm_freq::level::khz && r.max->kind == slurm_freq::level::khz &&
      r.min->khz > r.max->khz)
    bad(text, "minimum " + lo + " kHz is above maximum " + hi + " kHz");
  return r;
}

std::int64_t resolve_slurm_freq(const slurm_freq& f, std::vector<std::int64_t> available) {
  if (available.empty()) throw error("resolve_slurm_freq: no available frequencies");
  std::sort(available.begin(), available.end());
  const std::size_t n = available.size();
  switch (f.kind) {
    case slurm_freq::level::khz:
      return f.khz;
    case slurm_freq::level::low:
      return available.front();
    case slurm_freq::level::medium:
      return available[(n - 1) / 2];
    case slurm_freq::level::high:
      return available.back();
    case slurm_freq::level::highm1:
      return available[n >= 2 ? n - 2 : 0];
  }
  return available.back();
}

std::optional<khz_limits> slurm_limits(const slurm_cpu_freq& req,
                                       const std::vector<std::int64_t>& available,
                                       std::string& refusal) {
  const std::string who = "Slurm's --cpu-freq (SLURM_CPU_FREQ_REQ=" + req.text + ")";
  if (req.fixed()) {
    refusal = who + " fixes the job's frequency: Gaea does not change it";
    return std::nullopt;
  }
  if (!req.min && !req.governor.empty() && req.governor != "userspace") {
    refusal =
        who + " gives the frequency to the " + req.governor + " governor: Gaea does not change it";
    return std::nullopt;
  }
  if (available.empty()) {
    refusal = who + ": the CPU's frequencies are unknown, so its limits cannot be kept";
    return std::nullopt;
  }
  const auto [lo, hi] = std::minmax_element(available.begin(), available.end());
  if (!req.min) return khz_limits{*lo, *hi};
  khz_limits l{resolve_slurm_freq(*req.min, available), resolve_slurm_freq(*req.max, available)};
  if (l.min_khz > l.max_khz) {
    refusal = who + " resolves to a minimum " + std::to_string(l.min_khz) +
              " kHz above its maximum " + std::to_string(l.max_khz) + " kHz on this CPU";
    return std::nullopt;
  }
  return l;
}

std::string slurm_energy_note(std::string_view job_id) {
  return "Slurm job " + std::string(job_id) +
         ": sacct's ConsumedEnergy is the node's energy for the whole job (Slurm's "
         "acct_gather_energy plugin, every step and process on its nodes); Gaea's figure is its "
         "own meter's over this run only";
}

}  // namespace gaea::energy
