#pragma once
// On-the-wire layout of the accumulate request (header of the active message; the data is the
// packed patch, row-major).

#include <cstdint>
#include <cstring>

#include "gaea/comm/types.hpp"
#include "gaea/ga/patch.hpp"

namespace gaea::ga::detail {

inline constexpr comm::handler_id acc_handler = 16;

struct acc_header_fixed {
  std::uint64_t array_id;
  std::uint8_t ndim;
  std::uint8_t reserved[7];
  std::byte alpha[16];  // one element of the array's type
};
// Followed by lo[ndim] and hi[ndim] (int64 each).

inline std::size_t acc_header_size(int ndim) {
  return sizeof(acc_header_fixed) + 2 * static_cast<std::size_t>(ndim) * sizeof(index_t);
}

}  // namespace gaea::ga::detail
