// Chrome trace-event JSON ("JSON Object Format": {"traceEvents": [...], ...}): metadata, complete
// ("X") events and counter ("C") events; timestamps in µs. Every event and otherData is a
// nlohmann::json value; only the envelope around the event array is written here, so that the
// events stream to the file in 1 MiB pieces instead of living in one document.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "gaea/base/output_file.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea::trace {

namespace {
using json = nlohmann::ordered_json;  // keys in the order written: name and phase first

// ns as µs: the double nearest to the exact decimal, which the shortest round-trip form that
// dump() prints gives back (ns below 2^53).
double us(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

json event(const std::string& name, const char* phase, int pid, std::uint32_t tid) {
  return json{{"name", name}, {"ph", phase}, {"pid", pid}, {"tid", tid}};
}

// Names come from the application: bytes that are not UTF-8 become U+FFFD, not a failed trace.
void append(std::string& out, const json& j) {
  out += j.dump(-1, ' ', false, json::error_handler_t::replace);
}
}  // namespace

void write_chrome_json(const std::filesystem::path& target, const std::vector<rank_trace>& ranks,
                       const job_info& info) {
  output_file out(target, "GAEA_TRACE");
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&](bool force) {
    if (force || buf.size() > (1u << 20)) {
      out.write(buf);
      buf.clear();
    }
  };
  std::uint64_t dropped = 0, dropped_wait = 0;
  json per_rank = json::array();
  for (const auto& r : ranks) {
    dropped += r.dropped_events();
    dropped_wait += r.dropped_wait_samples;
    per_rank.push_back(r.dropped_events());
  }
  const json other{{"producer", info.producer},
                   {"events_per_thread", info.events_per_thread},
                   {"dropped_events", dropped},
                   {"dropped_wait_samples", dropped_wait},
                   {"dropped_events_per_rank", std::move(per_rank)}};
  buf += "{\"displayTimeUnit\":\"ns\",\"otherData\":";
  append(buf, other);
  buf += ",\n\"traceEvents\":[\n";
  bool first = true;
  auto add = [&](const json& e) {
    if (!first) buf += ",\n";
    first = false;
    append(buf, e);
    flush(false);
  };
  for (std::size_t ri = 0; ri < ranks.size(); ++ri) {
    const rank_trace& r = ranks[ri];
    const int pid = static_cast<int>(ri);
    json e = event("process_name", "M", pid, 0);
    e["args"] = {{"name", "rank " + std::to_string(ri)}};
    add(e);
    e = event("process_sort_index", "M", pid, 0);
    e["args"] = {{"sort_index", ri}};
    add(e);
    for (std::size_t t = 0; t < r.threads.size(); ++t) {
      e = event("thread_name", "M", pid, static_cast<std::uint32_t>(t));
      e["args"] = {{"name", r.threads[t].name}};
      add(e);
    }
    // Regions come sorted per thread by begin (nest()), so every thread's ts never decreases.
    for (const region_record& g : r.regions) {
      e = json{
          {"name", r.names[g.name]},      {"cat", "gaea"}, {"ph", "X"},      {"ts", us(g.t0_ns)},
          {"dur", us(g.t1_ns - g.t0_ns)}, {"pid", pid},    {"tid", g.thread}};
      if (g.bytes >= 0) e["args"]["bytes"] = g.bytes;
      if (g.peer >= 0) e["args"]["peer"] = g.peer;
      add(e);
    }
    for (const counter_record& c : r.counters) {
      e = event(r.names[c.name], "C", pid, c.thread);
      e["ts"] = us(c.t_ns);
      e["args"] = {{r.threads[c.thread].name, c.value}};
      add(e);
    }
  }
  buf += "\n]}\n";
  flush(true);
  out.commit();
}

}  // namespace gaea::trace
