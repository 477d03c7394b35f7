// MSR clock-modulation backend ("msr-clockmod"): throttles a CPU to a 50% duty cycle through
// IA32_CLOCK_MODULATION where /dev/cpu/N/msr opens read-write. It does not change the clock, so
// the kHz it reports are the effective ones (nominal x duty).

#include <fcntl.h>

#include <cstring>
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

constexpr std::int64_t ia32_clock_modulation = 0x19A;
constexpr std::uint64_t modulation_bits = 0x1F;  // bit 4 enable, bits 3:1 duty, bit 0 extended
constexpr std::uint64_t modulation_enable = 1u << 4;
constexpr std::uint64_t duty_eighths = 4;  // 4/8 = 50% duty cycle when low
// Nominal kHz when cpufreq does not say (the model's default f_max).
constexpr std::int64_t fallback_nominal_khz = 2400000;

class msr_actuator final : public actuator_base {
 public:
  struct cpu_state : cpu_level {
    int fd = -1;
    std::uint64_t original = 0;
  };

  msr_actuator(std::vector<int> cpus, std::size_t capacity)
      : actuator_base(cpus, capacity), files_(cpus.size()) {}
  ~msr_actuator() override { restore(); }

  /// Keeps `fd` open and saves `original` (the register as found) for restore.
  bool add(unique_fd fd, std::uint64_t original, std::int64_t nominal_khz) {
    char bytes[sizeof original];
    std::memcpy(bytes, &original, sizeof original);
    cpu_state c;
    c.original = original;
    c.fd =
        files_.adopt(std::move(fd), ia32_clock_modulation, std::string_view(bytes, sizeof bytes));
    if (c.fd < 0) return false;
    c.high = c.cur = nominal_khz;
    c.low = nominal_khz * static_cast<std::int64_t>(duty_eighths) / 8;
    state_.push_back(c);
    return true;
  }
  void set_probe_cost(std::int64_t ns) { set_cost_estimate(ns, 0); }

  std::string_view name() const noexcept override { return "msr-clockmod"; }
  bool active() const noexcept override { return true; }
  bool hardware() const noexcept override { return true; }
  std::int64_t high_khz(int cpu) const override { return level_of(state_, cpu, &cpu_level::high); }
  std::int64_t low_khz(int cpu) const override { return level_of(state_, cpu, &cpu_level::low); }
  std::int64_t current_khz(int cpu) const override {
    std::lock_guard lock(mutex_);
    return level_of(state_, cpu, &cpu_level::cur);
  }

  bool set_low(int cpu, bool low) override {
    std::lock_guard lock(mutex_);
    const int s = slot_of(cpu);
    if (s < 0 || files_.plan().retired()) return false;
    cpu_state& c = state_[static_cast<std::size_t>(s)];
    if (c.is_low == low) return true;
    files_.plan().arm();
    std::uint64_t value = c.original & ~modulation_bits;
    if (low) value |= modulation_enable | (duty_eighths << 1);
    const std::int64_t to = low ? c.low : c.high;
    const std::int64_t t0 = now_ns();
    if (!write_at(c.fd, ia32_clock_modulation, &value, sizeof value)) return false;
    record(cpu, c.cur, to, t0, now_ns() - t0);
    c.cur = to;
    c.is_low = low;
    return true;
  }

  void restore() noexcept override {
    std::unique_lock lock(mutex_, std::defer_lock);
    try {
      lock.lock();
    } catch (...) {  // cannot happen with a valid mutex; restore regardless
    }
    files_.plan().restore_now();
    if (!lock.owns_lock()) return;
    for (cpu_state& c : state_) {
      c.is_low = false;
      c.cur = c.high;
    }
  }

 private:
  std::vector<cpu_state> state_;
  saved_files files_;
};

}  // namespace

actuator_choice try_msr(const actuator_config& cfg) {
  auto act = std::make_unique<msr_actuator>(cfg.cpus, cfg.transition_capacity);
  std::int64_t probe_ns = 0;
  for (int cpu : cfg.cpus) {
    const auto path = under(cfg.root, "/dev/cpu/" + std::to_string(cpu) + "/msr");
    const auto fail = [&] {
      return actuator_choice{nullptr,
                             "no MSR access (" + path.string() + ": " + error_text(errno) + ")"};
    };
    unique_fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd) return fail();
    std::uint64_t value = 0;
    if (!read_at(fd.get(), ia32_clock_modulation, &value, sizeof value)) return fail();
    // Writing the value back proves the register writable (the msr driver may still refuse).
    const std::int64_t t0 = now_ns();
    if (!write_at(fd.get(), ia32_clock_modulation, &value, sizeof value)) return fail();
    if (!probe_ns) probe_ns = now_ns() - t0;
    const auto range = cpuinfo_range(cfg.root, cpu);
    if (!act->add(std::move(fd), value, range ? range->max_khz : fallback_nominal_khz))
      return {nullptr, "no MSR access (internal: restore table full)"};
  }
  act->set_probe_cost(probe_ns);
  std::string reason = "msr-clockmod on CPUs " + format_id_list(cfg.cpus) +
                       " (IA32_CLOCK_MODULATION 50% duty when idle; originals restored at exit)";
  return {std::move(act), std::move(reason)};
}

}  // namespace gaea::energy::detail
