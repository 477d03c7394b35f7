// perf `power/energy-pkg/`: the RAPL package counter through perf_event_open, one event per
// package (opened on the package's first CPU), scaled to joules with the PMU's .scale file.

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::energy {
namespace {

namespace fs = std::filesystem;

// Why a user may be refused a CPU-wide event: perf_event_paranoid above 0 keeps them to root
// (or CAP_PERFMON). Names the value, and what a site sets.
std::string paranoid_note(const fs::path& root) {
  const fs::path p = under(root, "/proc/sys/kernel/perf_event_paranoid");
  const auto level = read_int(p);
  if (!level) return " (" + p.string() + " not readable)";
  const std::string is = " (" + p.string() + " is " + std::to_string(*level);
  if (*level <= 0) return is + ": not the cause)";
  return is + (::geteuid() == 0 ? ": root is not bound by it)"
                                : ": a CPU-wide power event needs <= 0 for a user who is not root, "
                                  "or CAP_PERFMON)");
}

// "event=0x02" -> 2. Other terms (umask=...) are not used by the power PMU: reject them.
std::optional<std::uint64_t> parse_event_config(const std::string& text) {
  constexpr std::string_view prefix = "event=";
  if (text.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string value = text.substr(prefix.size());
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(value.c_str(), &end, 0);
  if (errno || end == value.c_str() || *end != '\0') return std::nullopt;
  return v;
}

class perf_meter final : public meter {
 public:
  perf_meter(std::vector<detail::unique_fd> fds, std::vector<std::uint64_t> base, double scale,
             std::string scope)
      : fds_(std::move(fds)), base_(std::move(base)), scale_(scale), scope_(std::move(scope)) {}

  std::string_view name() const noexcept override { return "perf-power"; }
  bool measured() const noexcept override { return true; }
  std::string scope() const override { return scope_; }

  std::optional<double> joules() override {
    std::lock_guard lock(mutex_);
    double j = 0;
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      std::uint64_t count = 0;
      if (::read(fds_[i].get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count))
        return std::nullopt;
      j += static_cast<double>(count - base_[i]) * scale_;
    }
    return j;
  }

 private:
  std::mutex mutex_;
  std::vector<detail::unique_fd> fds_;
  std::vector<std::uint64_t> base_;
  double scale_;
  std::string scope_;
};

}  // namespace

std::unique_ptr<meter> make_perf_meter(const fs::path& root, std::string& why) {
  const fs::path pmu = under(root, "/sys/bus/event_source/devices/power");
  const auto type = read_int(pmu / "type");
  if (!type || *type < 0) {
    why = "no perf power PMU (" + (pmu / "type").string() + " missing)";
    return nullptr;
  }
  const fs::path event = pmu / "events" / "energy-pkg";
  const auto event_text = read_line(event);
  if (!event_text) {
    why = event.string() + " missing";
    return nullptr;
  }
  const auto config = parse_event_config(*event_text);
  if (!config) {
    why = event.string() + ": cannot parse '" + *event_text + "'";
    return nullptr;
  }
  const auto scale_text = read_line(event.string() + ".scale");
  const double scale = scale_text ? std::strtod(scale_text->c_str(), nullptr) : 0.0;
  if (!(scale > 0)) {
    why = event.string() + ".scale missing or not positive";
    return nullptr;
  }

  const std::map<int, int> packages = detail::first_cpu_of_packages(root);
  std::vector<detail::unique_fd> fds;
  std::vector<std::uint64_t> base;
  std::vector<int> ids;
  for (const auto& [pkg, cpu] : packages) {
    perf_event_attr attr{};
    attr.type = static_cast<std::uint32_t>(*type);
    attr.size = sizeof attr;
    attr.config = *config;
    // System-wide on that CPU (pid -1): the package counter is not per task.
    detail::unique_fd fd(
        static_cast<int>(::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC)));
    std::uint64_t count = 0;
    if (!fd || ::read(fd.get(), &count, sizeof count) != static_cast<ssize_t>(sizeof count)) {
      const int err = errno;
      why = "perf_event_open(type " + std::to_string(*type) + ", config " + *event_text + ", cpu " +
            std::to_string(cpu) + "): " + detail::error_text(err) + paranoid_note(root);
      return nullptr;
    }
    fds.push_back(std::move(fd));
    base.push_back(count);
    ids.push_back(pkg);
  }
  const std::string scope =
      (ids.size() == 1 ? "package " : "packages ") + detail::format_id_list(ids) + " (whole node)";
  return std::make_unique<perf_meter>(std::move(fds), std::move(base), scale, scope);
}

}  // namespace gaea::energy
