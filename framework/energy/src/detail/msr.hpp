#pragma once
/// \file
/// Model-specific registers through the Linux msr driver (/dev/cpu/N/msr under the sysfs root:
/// a pread/pwrite of 8 bytes at the register's address) or through msr-safe (/dev/cpu/N/msr_safe,
/// the same access restricted by the site's allow-list), and the IA32_CLOCK_MODULATION encoding
/// of the throttle levels (Intel SDM vol. 3B, "On-Demand Clock Modulation").

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "detail/fd_io.hpp"

namespace gaea::energy::detail {

/// IA32_CLOCK_MODULATION (formerly IA32_THERM_CONTROL), one per logical processor.
inline constexpr std::int64_t ia32_clock_modulation = 0x19A;

/// Which per-CPU device: the kernel's msr driver (root only) or msr-safe's allow-listed one.
enum class msr_device { msr, msr_safe };
/// <root>/dev/cpu/<cpu>/msr or <root>/dev/cpu/<cpu>/msr_safe
std::filesystem::path msr_path(const std::filesystem::path& root, int cpu,
                               msr_device dev = msr_device::msr);

/// One register of one CPU, opened read-write and proved writable.
struct open_msr {
  unique_fd fd;                ///< kept open: every later write is a single pwrite
  std::uint64_t original = 0;  ///< the register as found
  std::int64_t probe_ns = 0;   ///< how long writing `original` back took
};
/// Opens the device of `cpu` read-write, reads `reg` and writes the value back (the driver may
/// refuse a write even on an fd opened O_RDWR; msr-safe refuses one its allow-list does not
/// permit). nullopt, with `why` = "no MSR access (<path>: <error>)", when any step fails.
std::optional<open_msr> open_msr_rw(const std::filesystem::path& root, int cpu, std::int64_t reg,
                                    std::string& why, msr_device dev = msr_device::msr);
/// Opens the device of `cpu` read-only and reads `reg` once (proving the read is allowed). An
/// invalid fd, with `why` = "<path>: <error>", when either step fails.
unique_fd open_msr_ro(const std::filesystem::path& root, int cpu, std::int64_t reg,
                      std::string& why, msr_device dev);
/// 8-byte register read through an open msr fd; nullopt (errno) when refused.
std::optional<std::uint64_t> read_msr(int fd, std::int64_t reg) noexcept;

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
