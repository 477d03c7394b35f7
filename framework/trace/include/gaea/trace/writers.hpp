#pragma once
/// \file
/// Writers of a job's trace, chosen by the file name (format_of): Chrome trace-event JSON (opened
/// by Perfetto and chrome://tracing) and OTF2 (Vampir, otf2-print, Score-P's tools). The HDF5
/// time series of the wait states is written by the runtime (it needs the power model). Every
/// writer goes through a temporary beside the target that is renamed once complete.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/trace/job_trace.hpp"

namespace gaea::trace {

/// A trace file format, chosen by the target's name.
enum class format {
  hdf5,         ///< any name not below (the historical format; `.h5` by convention)
  chrome_json,  ///< `*.json`
  otf2,         ///< `*.otf2`: the anchor file, with `<stem>.def` and `<stem>/` beside it
};
/// The format `target`'s name selects.
format format_of(const std::filesystem::path& target);
/// The format's display name ("HDF5", "Chrome trace JSON", "OTF2").
std::string_view to_string(format f) noexcept;

/// True when this build writes OTF2 (configured with GAEA_WITH_OTF2=ON, libotf2 found).
bool otf2_supported() noexcept;

/// Checks at start-up that a trace can be written to `target` at the end, without creating
/// anything: output_file's checks of the file; for OTF2 also that whatever exists of
/// `<stem>.otf2`, `<stem>.def` and `<stem>/` is one complete earlier archive written by Gaea
/// (the only thing a new archive may replace: a user's directory or files are never removed).
/// An OTF2 target in a build without OTF2 is an error too. Throws gaea::error starting with
/// `what` (e.g. "GAEA_TRACE") and naming the path otherwise. Not collective.
void check_target(const std::filesystem::path& target, std::string_view what);

/// Facts about the run, written into the file's metadata.
struct job_info {
  std::string producer;                 ///< e.g. "Gaea 0.2.0"
  std::uint64_t events_per_thread = 0;  ///< the buffer bound (GAEA_TRACE_EVENTS)
};

/// Writes Chrome trace-event JSON: "M" process_name/thread_name metadata for every rank
/// (pid = rank) and thread (tid = index), one "X" complete event per region (ts/dur in µs,
/// args bytes/peer), "C" counter events (per thread: name `<counter>`, args `{<thread>: value}`),
/// and otherData with the producer, the bound and the dropped counts. `ranks` must be aligned
/// (align()) and nested (nest()). Throws gaea::error on a failed write (the target unchanged).
void write_chrome_json(const std::filesystem::path& target, const std::vector<rank_trace>& ranks,
                       const job_info& info);

/// Writes an OTF2 archive: one location group (process) per rank under its host's system tree
/// node, one location (CPU thread) per thread, regions as Enter/Leave (arguments as attributes
/// "bytes" and "peer"), the one-sided operations also as RMA records (framework/trace/README.md),
/// counters as asynchronous metrics, timestamps in ns. Written serially by the calling process into
/// a temporary directory beside the target, then renamed into place: `<stem>/` and `<stem>.def`
/// first, the anchor `<stem>.otf2` last. An earlier archive of the same name is replaced only if
/// it is a complete archive written by Gaea (checked again before the rename; otherwise
/// gaea::error and nothing is touched); if writing fails it is kept and the temporary directory
/// removed (gaea::error). Same input
/// requirements as write_chrome_json. Throws gaea::error in a build without OTF2.
void write_otf2(const std::filesystem::path& target, const std::vector<rank_trace>& ranks,
                const job_info& info);

}  // namespace gaea::trace
