#pragma once
/// \file
/// How modules and applications extend a gaea::runtime: their sections of the GAEA_REPORT
/// summary, and "app poll" callbacks run on the runtime's owner thread while it waits.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gaea {

class runtime;

/// One figure of a report section (add_report_section): its name and whether it is a count
/// (summed exactly and written as a JSON integer) or a measure (seconds, MB, ...; a JSON number).
/// Names convert implicitly to measures; report_count() makes a count.
struct report_key {
  std::string name;    ///< the figure's name in the report
  bool count = false;  ///< a count (JSON integer) rather than a measure
  // Implicit, so that a list of names is a list of measures.
  /// A measure named `n`.
  report_key(const char* n) : name(n) {}
  /// A figure named `n`, a count when `is_count`.
  report_key(std::string n, bool is_count = false) : name(std::move(n)), count(is_count) {}
};
/// A count figure of a report section (an integer; its double value must be a whole number).
inline report_key report_count(std::string name) {
  return {std::move(name), true};
}

/// Adds a module's figures to the GAEA_REPORT summary of `rt`: `keys` name them (counts or
/// measures, see report_key), `values()` returns this rank's values (one per key). The report
/// shows their sums over ranks, and the JSON also every rank's values (docs/report.md).
/// Collective in effect: register on every rank in the same order (e.g. when the module's
/// first collective object is created), or the report's gather would mismatch.
void add_report_section(runtime& rt, std::string name, std::vector<report_key> keys,
                        std::function<std::vector<double>()> values);

/// "App poll": registers `fn` to run on the thread that created `rt` whenever that thread is
/// inside a Gaea wait (runtime::wait, barrier, request waits, any progress-engine wait of that
/// thread) or calls runtime::poll(). Used for requests that only the main thread may serve
/// (owner-served counters). `fn` returns the events it handled (0 when idle); it must not wait
/// or make collective calls. Owner thread only (gaea::error otherwise); returns an id for
/// remove_app_poll.
std::uint64_t add_app_poll(runtime& rt, std::function<unsigned()> fn);
/// Unregisters an app-poll callback of `rt` (unknown ids are ignored). Owner thread only.
void remove_app_poll(runtime& rt, std::uint64_t id);

}  // namespace gaea
