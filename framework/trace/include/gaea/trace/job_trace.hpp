#pragma once
/// \file
/// The trace of a job as the writers take it: per rank, its threads, regions (intervals with a
/// name and arguments) and counter samples, with names in a per-rank table. Ranks build theirs
/// locally (from the recorder and the progress telemetry), encode() it for the gather, and the
/// writing rank decode()s them.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gaea::trace {

/// One interval on one thread. Times are CLOCK_MONOTONIC ns until align(), then ns from the
/// job's time zero.
struct region_record {
  std::uint32_t thread = 0;  ///< index into rank_trace::threads
  std::uint32_t name = 0;    ///< index into rank_trace::names
  /// Start (t0_ns) and end (t1_ns) of the interval (ns).
  std::int64_t t0_ns = 0, t1_ns = 0;  ///< t1_ns: the end
  std::int64_t bytes = -1;            ///< -1: not given
  std::int32_t peer = -1;             ///< -1: not given
};

/// One sample of a counter on one thread (the value holds until the next sample).
struct counter_record {
  std::uint32_t thread = 0;  ///< index into rank_trace::threads
  std::uint32_t name = 0;    ///< index into rank_trace::names
  std::int64_t t_ns = 0;     ///< time of the sample (ns)
  double value = 0;          ///< the value from then on
};

/// One thread of a rank_trace.
struct thread_info {
  std::string name;           ///< its name in the trace
  std::uint64_t dropped = 0;  ///< region/counter events that did not fit its buffer
};

/// What one rank recorded.
struct rank_trace {
  std::vector<std::string> names;          ///< region and counter names (records index them)
  std::vector<thread_info> threads;        ///< the threads (records index them)
  std::vector<region_record> regions;      ///< the intervals
  std::vector<counter_record> counters;    ///< the counter samples
  std::uint64_t dropped_wait_samples = 0;  ///< wait-state samples that did not fit
  std::int64_t sync_ns = 0;                ///< this rank's clock at the end of the start-up barrier
  std::string host;                        ///< the host the rank ran on ("" when not known)
  /// The index of `name` in names (added if new). Linear: for the few names of a trace.
  std::uint32_t name_id(std::string_view name);
  /// The threads' dropped events, summed.
  std::uint64_t dropped_events() const noexcept;
};

/// Serialises `r` (little-endian host layout: the gather stays on one job's machines).
std::vector<std::byte> encode(const rank_trace& r);
/// The inverse of encode(). Throws gaea::error when `bytes` is not an encoded rank_trace.
rank_trace decode(std::span<const std::byte> bytes);

/// Puts every rank's times on one axis from 0: each rank's clock is shifted so that the ends of
/// the start-up barrier (sync_ns) coincide, then all by the same amount so that the earliest
/// time is 0. Regions with t1 < t0 get t1 = t0.
void align(std::vector<rank_trace>& ranks);

/// Makes the regions of every thread properly nested (what OTF2 and Perfetto require of the
/// slices of one thread), and sorts them per thread by (begin, longer first): a region that
/// begins inside another and ends after it is cut at the other's end. Recorded regions nest by
/// construction; this guards the wait-state regions taken from separate samples.
void nest(std::vector<region_record>& regions);

}  // namespace gaea::trace
