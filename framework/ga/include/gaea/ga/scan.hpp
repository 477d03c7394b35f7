#pragma once
/// \file
/// Collective scans, pack/unpack and enumeration over a range [lo, hi] of 1-D global arrays
/// (Global Arrays' GA_Scan_add, GA_Scan_copy, GA_Pack, GA_Unpack, GA_Patch_enum).
///
/// A mask is a 1-D array of any element type; a nonzero mask[i] (for complex masks: either part
/// nonzero) starts a new segment at i. Whether lo starts a segment whatever its mask says is
/// the scans' `scan_start` argument.
///
/// Contract: collective (all ranks, same order); fence of this thread's writes to the arrays
/// and a barrier at the start, a barrier at the end. The range is split evenly over the ranks;
/// each rank reads its part of the mask and source with one get each, the ranks exchange one
/// summary each (allgather), and each rank writes its part of the result with one put. Any
/// distributions of the 1-D arrays (ghosts included; ghost cells are not touched).
///
/// Errors (gaea::error, every rank alike): an array that is not 1-D, a range outside an array
/// (before any communication, naming the array); for pack, a destination shorter than the
/// number of set mask elements, and for unpack a source shorter than that (after the counts
/// are known, on every rank, before anything is written).

#include "gaea/ga/global_array.hpp"

namespace gaea::ga {

/// Element types a mask may have: any element type (nonzero = set).
template <class M>
concept mask_element = element<M>;

/// Where the segments of a scan start besides the set mask elements.
enum class scan_start {
  at_lo,      ///< lo always starts a segment, whatever its mask says
  mask_only,  ///< only set mask elements do; the elements of [lo, hi] before the first set one
              ///< belong to no segment: scan_add leaves them as they are, scan_copy sets them
              ///< to 0 (what Global Arrays 5.8's GA_Scan_add/GA_Scan_copy do)
};

/// Segmented prefix sum: for i in [lo, hi], dst[i] = src[s] + ... + src[i] (inclusive) or
/// src[s] + ... + src[i-1] (exclusive; 0 at a segment start), s = the start of i's segment.
/// dst may be src.
template <element T, mask_element M>
void scan_add(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
              index_t lo, index_t hi, bool exclusive, scan_start start = scan_start::at_lo);

/// Segmented copy: for i in [lo, hi], dst[i] = src[s], s = the start of i's segment.
/// dst may be src.
template <element T, mask_element M>
void scan_copy(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
               index_t lo, index_t hi, scan_start start = scan_start::at_lo);

/// dst[0 .. count-1] = src[i] for the i in [lo, hi] with mask[i] != 0, in order; returns count.
/// Other elements of dst are left as they are. dst must not be src.
template <element T, mask_element M>
index_t pack(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
             index_t lo, index_t hi);

/// The inverse of pack: dst[i] = src[k] for the k-th i in [lo, hi] with mask[i] != 0 (k from
/// 0); returns the count. Other elements of dst are left as they are. dst must not be src.
template <element T, mask_element M>
index_t unpack(const global_array<T>& src, global_array<T>& dst, const global_array<M>& mask,
               index_t lo, index_t hi);

/// a[i] = start + (i - lo) * step for i in [lo, hi] of a 1-D array.
template <element T>
void patch_enum(global_array<T>& a, index_t lo, index_t hi, T start, T step);

}  // namespace gaea::ga
