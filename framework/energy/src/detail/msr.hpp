#pragma once
/// \file
/// Model-specific registers through the Linux msr driver (/dev/cpu/N/msr under the sysfs root:
/// a pread/pwrite of 8 bytes at the register's address), and the IA32_CLOCK_MODULATION encoding
/// of the throttle levels (Intel SDM vol. 3B, "On-Demand Clock Modulation").

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "detail/fd_io.hpp"

namespace gaea::energy::detail {

/// IA32_CLOCK_MODULATION (formerly IA32_THERM_CONTROL), one per logical processor.
inline constexpr std::int64_t ia32_clock_modulation = 0x19A;

/// <root>/dev/cpu/<cpu>/msr
std::filesystem::path msr_path(const std::filesystem::path& root, int cpu);

/// One register of one CPU, opened read-write and proved writable.
struct open_msr {
  unique_fd fd;                ///< kept open: every later write is a single pwrite
  std::uint64_t original = 0;  ///< the register as found
  std::int64_t probe_ns = 0;   ///< how long writing `original` back took
};
/// Opens /dev/cpu/<cpu>/msr read-write, reads `reg` and writes the value back (the driver may
/// refuse a write even on an fd opened O_RDWR). nullopt, with `why` = "no MSR access (<path>:
/// <error>)", when any step fails.
std::optional<open_msr> open_msr_rw(const std::filesystem::path& root, int cpu, std::int64_t reg,
                                    std::string& why);

/// 8-byte register write through an open msr fd. Async-signal-safe; false (errno) when refused.
inline bool write_msr(int fd, std::int64_t reg, std::uint64_t value) noexcept {
  return write_at(fd, reg, &value, sizeof value);
}

/// IA32_CLOCK_MODULATION with throttle level `level` (0..7) applied to `original`: level 0
/// clears the enable bit (no modulation); level j sets enable (bit 4) and duty (bits 3:1) =
/// 8 - j, i.e. the clock runs (8 - j) of every 8 periods (12.5% steps; 000b is reserved). Bit 0
/// (the extended-duty LSB where supported) is cleared so the 3-bit duty means the same on every
/// processor; bits 63:5 are kept as found.
std::uint64_t clock_modulation_value(std::uint64_t original, int level) noexcept;
/// The throttle level a register value means: 0 when modulation is off (or the duty field holds
/// the reserved 0), else 8 - duty.
int clock_modulation_level(std::uint64_t value) noexcept;

}  // namespace gaea::energy::detail
