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

std::filesystem::path msr_path(const std::filesystem::path& root, int cpu) {
  return under(root, "/dev/cpu/" + std::to_string(cpu) + "/msr");
}

std::optional<open_msr> open_msr_rw(const std::filesystem::path& root, int cpu, std::int64_t reg,
                                    std::string& why) {
  const auto path = msr_path(root, cpu);
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
