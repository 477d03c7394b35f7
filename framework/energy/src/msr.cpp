// Model-specific registers through the msr or msr-safe driver, and IA32_CLOCK_MODULATION values.

#include "detail/msr.hpp"

#include <fcntl.h>

#include "detail/cpu_info.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::energy::detail {
namespace {
constexpr std::uint64_t modulation_bits = 0x1F;  // bit 4 enable, bits 3:1 duty, bit 0 extended
constexpr std::uint64_t modulation_enable = 1u << 4;
constexpr int duty_shift = 1;
constexpr std::uint64_t duty_mask = 0x7;
constexpr int eighths = 8;
}  // namespace

std::filesystem::path msr_path(const std::filesystem::path& root, int cpu, msr_device dev) {
  return under(root, "/dev/cpu/" + std::to_string(cpu) +
                         (dev == msr_device::msr_safe ? "/msr_safe" : "/msr"));
}

std::optional<std::uint64_t> read_msr(int fd, std::int64_t reg) noexcept {
  std::uint64_t v = 0;
  if (!read_at(fd, reg, &v, sizeof v)) return std::nullopt;
  return v;
}

unique_fd open_msr_ro(const std::filesystem::path& root, int cpu, std::int64_t reg,
                      std::string& why, msr_device dev) {
  const auto path = msr_path(root, cpu, dev);
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd && read_msr(fd.get(), reg)) return fd;
  why = path.string() + ": " + error_text(errno);
  return unique_fd();
}

std::optional<open_msr> open_msr_rw(const std::filesystem::path& root, int cpu, std::int64_t reg,
                                    std::string& why, msr_device dev) {
  const auto path = msr_path(root, cpu, dev);
  const auto fail = [&] {
    why = "no MSR access (" + path.string() + ": " + error_text(errno) + ")";
    return std::nullopt;
  };
  open_msr m;
  m.fd = unique_fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!m.fd) return fail();
  if (!read_at(m.fd.get(), reg, &m.original, sizeof m.original)) return fail();
  const std::int64_t t0 = now_ns();
  if (!write_msr(m.fd.get(), reg, m.original)) return fail();
  m.probe_ns = now_ns() - t0;
  return m;
}

std::uint64_t clock_modulation_value(std::uint64_t original, int level) noexcept {
  std::uint64_t value = original & ~modulation_bits;
  if (level > 0 && level < eighths)
    value |= modulation_enable | (static_cast<std::uint64_t>(eighths - level) << duty_shift);
  return value;
}

int clock_modulation_level(std::uint64_t value) noexcept {
  if (!(value & modulation_enable)) return 0;
  const auto duty = static_cast<int>((value >> duty_shift) & duty_mask);
  return duty == 0 ? 0 : eighths - duty;
}

}  // namespace gaea::energy::detail
