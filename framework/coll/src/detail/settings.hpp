#pragma once
// The GAEA_COLL_* settings, read once per runtime.

#include <array>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>

#include "gaea/coll/options.hpp"

namespace gaea::coll::detail {

// Every operation has a name (options.hpp), so the names' list also counts them.
inline constexpr std::size_t operation_count = std::size(operation_names);
static_assert(operation_count == static_cast<std::size_t>(operation::scatter) + 1);

struct settings {
  std::array<algorithm, operation_count> algo{};  // GAEA_COLL_ALGO per operation
  std::size_t chunk = 64 * 1024;                  // GAEA_COLL_CHUNK
  std::size_t shm_bytes = 128 * 1024;             // GAEA_COLL_SHM_BYTES (0: no shared memory)
  std::size_t shm_single_copy = 32 * 1024;        // GAEA_COLL_SHM_SINGLE_COPY (0: never)
  bool shm_single_copy_set = false;               // ... was set (then also on shared cores)
  energy_mode energy = energy_mode::automatic;    // GAEA_COLL_ENERGY
  bool check = false;                             // GAEA_COLL_CHECK
  std::string calibration;                        // GAEA_COLL_CALIBRATION
  /// Throws gaea::error naming the variable and the text for a bad value.
  static settings from_env();
};

/// Each of a member's two shared-memory buffers on a group of `members`: GAEA_COLL_SHM_BYTES,
/// and at least 64 bytes per member (a step gives each member its own area of a buffer).
inline std::size_t shm_buffer_bytes(const settings& s, int members) noexcept {
  const std::size_t floor = std::size_t{64} * static_cast<std::size_t>(members);
  return s.shm_bytes > floor ? s.shm_bytes : floor;
}

/// The calling thread's scoped_energy setting, if any.
std::optional<energy_mode> scoped_energy_mode() noexcept;

}  // namespace gaea::coll::detail
