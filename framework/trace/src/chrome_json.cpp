// Chrome trace-event JSON ("JSON Object Format": {"traceEvents": [...], ...}): metadata, complete
// ("X") events and counter ("C") events; timestamps in µs with ns digits.
#include <cinttypes>
#include <cstdio>

#include "gaea/base/output_file.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea::trace {

namespace {
void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

// ns as µs with three decimals, exactly (no floating point).
void append_us(std::string& out, std::int64_t ns) {
  char buf[40];
  const char* sign = ns < 0 ? "-" : "";
  const std::uint64_t a =
      ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
  out += buf;
}

void append_number(std::string& out, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

void append_common(std::string& out, int pid, std::uint32_t tid) {
  out += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
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
  for (const auto& r : ranks) {
    dropped += r.dropped_events();
    dropped_wait += r.dropped_wait_samples;
  }
  buf += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":";
  append_escaped(buf, info.producer);
  buf += ",\"events_per_thread\":" + std::to_string(info.events_per_thread) +
         ",\"dropped_events\":" + std::to_string(dropped) +
         ",\"dropped_wait_samples\":" + std::to_string(dropped_wait) +
         ",\"dropped_events_per_rank\":[";
  for (std::size_t r = 0; r < ranks.size(); ++r)
    buf += (r ? "," : "") + std::to_string(ranks[r].dropped_events());
  buf += "]},\n\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&] {
    if (!first) buf += ",\n";
    first = false;
  };
  for (std::size_t ri = 0; ri < ranks.size(); ++ri) {
    const rank_trace& r = ranks[ri];
    const int pid = static_cast<int>(ri);
    begin_event();
    buf += "{\"name\":\"process_name\",\"ph\":\"M\"";
    append_common(buf, pid, 0);
    buf += ",\"args\":{\"name\":\"rank " + std::to_string(ri) + "\"}}";
    begin_event();
    buf += "{\"name\":\"process_sort_index\",\"ph\":\"M\"";
    append_common(buf, pid, 0);
    buf += ",\"args\":{\"sort_index\":" + std::to_string(ri) + "}}";
    for (std::size_t t = 0; t < r.threads.size(); ++t) {
      begin_event();
      buf += "{\"name\":\"thread_name\",\"ph\":\"M\"";
      append_common(buf, pid, static_cast<std::uint32_t>(t));
      buf += ",\"args\":{\"name\":";
      append_escaped(buf, r.threads[t].name);
      buf += "}}";
    }
    // Regions come sorted per thread by begin (nest()), so every thread's ts never decreases.
    for (const region_record& g : r.regions) {
      begin_event();
      buf += "{\"name\":";
      append_escaped(buf, r.names[g.name]);
      buf += ",\"cat\":\"gaea\",\"ph\":\"X\",\"ts\":";
      append_us(buf, g.t0_ns);
      buf += ",\"dur\":";
      append_us(buf, g.t1_ns - g.t0_ns);
      append_common(buf, pid, g.thread);
      if (g.bytes >= 0 || g.peer >= 0) {
        buf += ",\"args\":{";
        if (g.bytes >= 0) buf += "\"bytes\":" + std::to_string(g.bytes);
        if (g.peer >= 0)
          buf += std::string(g.bytes >= 0 ? "," : "") + "\"peer\":" + std::to_string(g.peer);
        buf += "}";
      }
      buf += "}";
      flush(false);
    }
    for (const counter_record& c : r.counters) {
      begin_event();
      buf += "{\"name\":";
      append_escaped(buf, r.names[c.name]);
      buf += ",\"ph\":\"C\",\"ts\":";
      append_us(buf, c.t_ns);
      append_common(buf, pid, c.thread);
      buf += ",\"args\":{";
      append_escaped(buf, r.threads[c.thread].name);
      buf += ":";
      append_number(buf, c.value);
      buf += "}}";
      flush(false);
    }
  }
  buf += "\n]}\n";
  flush(true);
  out.commit();
}

}  // namespace gaea::trace
