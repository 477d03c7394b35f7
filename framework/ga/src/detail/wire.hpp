#pragma once
// On-the-wire layout of the global-array active messages: a fixed header, then lo[ndim] and
// hi[ndim] (int64 each) of the patch the message is about. The data, if any, is the patch
// packed row-major.

#include <cstdint>
#include <cstring>
#include <span>

#include "gaea/base/error.hpp"
#include "gaea/comm/types.hpp"
#include "gaea/ga/patch.hpp"

namespace gaea::ga::detail {

inline constexpr comm::handler_id acc_handler = 16;
inline constexpr comm::handler_id put_packed_handler = 17;
inline constexpr comm::handler_id get_packed_handler = 18;
inline constexpr comm::handler_id elements_handler = 19;  // scatter / gather / scatter-acc
inline constexpr comm::handler_id ping_handler = 20;      // cost-model calibration

struct patch_header_fixed {
  std::uint64_t array_id;
  std::uint8_t ndim;
  std::uint8_t reserved[7];
  std::byte alpha[16];  // one element of the array's type (accumulates)
};

inline std::size_t patch_header_size(int ndim) {
  return sizeof(patch_header_fixed) + 2 * static_cast<std::size_t>(ndim) * sizeof(index_t);
}

inline void write_patch_header(std::byte* out, std::uint64_t array_id, const patch& q,
                               const void* alpha, std::size_t elem_size) {
  patch_header_fixed h{};
  h.array_id = array_id;
  h.ndim = static_cast<std::uint8_t>(q.ndim());
  if (alpha) std::memcpy(h.alpha, alpha, elem_size);
  std::memcpy(out, &h, sizeof h);
  const std::size_t n = static_cast<std::size_t>(q.ndim()) * sizeof(index_t);
  std::memcpy(out + sizeof h, q.lo.data(), n);
  std::memcpy(out + sizeof h + n, q.hi.data(), n);
}

/// Parses a header; throws gaea::error if it is malformed.
inline patch read_patch_header(std::span<const std::byte> in, patch_header_fixed& h) {
  if (in.size() < sizeof h) throw error("global_array message: truncated header");
  std::memcpy(&h, in.data(), sizeof h);
  if (h.ndim < 1 || h.ndim > max_dims || in.size() != patch_header_size(h.ndim))
    throw error("global_array message: header of " + std::to_string(in.size()) +
                " bytes does not match ndim " + std::to_string(h.ndim));
  patch q{index(h.ndim), index(h.ndim)};
  const std::size_t n = h.ndim * sizeof(index_t);
  std::memcpy(q.lo.data(), in.data() + sizeof h, n);
  std::memcpy(q.hi.data(), in.data() + sizeof h + n, n);
  return q;
}

}  // namespace gaea::ga::detail
