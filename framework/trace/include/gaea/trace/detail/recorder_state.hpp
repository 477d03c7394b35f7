#pragma once
/// \file
/// Internal (not API): the flag and the out-of-line entry points behind gaea/trace/recorder.hpp,
/// declared here so that the inline fast path (one relaxed load and a branch) needs nothing else.

#include <atomic>
#include <cstdint>

namespace gaea::trace {
struct region_args;
}

namespace gaea::trace::detail {

/// True while a session records application regions and counters (trace::start(..., true)).
extern std::atomic<bool> g_recording;

struct thread_buffer;
/// The calling thread's buffer in the current session (registered on first use).
thread_buffer* this_buffer() noexcept;
/// Counts a region begun on `b` (trace::regions_begun()).
void note_begin(thread_buffer* b) noexcept;
/// Appends one region [t0_ns, now) to `b`, or counts it dropped when `b` is full.
void record_region(thread_buffer* b, const char* name, std::int64_t t0_ns,
                   const region_args& a) noexcept;
void record_counter(const char* name, double value) noexcept;

}  // namespace gaea::trace::detail
