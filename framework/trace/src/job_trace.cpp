// The job trace's per-rank name table, encode/decode for the gather, and the writing rank's
// alignment of clocks and nesting of regions.

#include "gaea/trace/job_trace.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "gaea/base/error.hpp"

namespace gaea::trace {

std::uint32_t rank_trace::name_id(std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<std::uint32_t>(i);
  names.emplace_back(name);
  return static_cast<std::uint32_t>(names.size() - 1);
}

std::uint64_t rank_trace::dropped_events() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : threads)
    n += t.dropped;
  return n;
}

namespace {
constexpr std::uint64_t magic = 0x32656361727467ULL;  // "gtrace2"

struct writer {
  std::vector<std::byte> out;
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::byte*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  void str(const std::string& s) {
    pod(static_cast<std::uint64_t>(s.size()));
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out.insert(out.end(), p, p + s.size());
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod(static_cast<std::uint64_t>(v.size()));
    const auto* p = reinterpret_cast<const std::byte*>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(T));
  }
};

struct reader {
  std::span<const std::byte> in;
  std::size_t pos = 0;
  void need(std::uint64_t n) const {
    if (n > in.size() - pos) throw error("gaea::trace: a rank's trace is truncated or corrupt");
  }
  template <class T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::string s(reinterpret_cast<const char*>(in.data() + pos), static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = pod<std::uint64_t>();
    if (n > (in.size() - pos) / sizeof(T)) need(std::numeric_limits<std::uint64_t>::max());
    std::vector<T> v(static_cast<std::size_t>(n));
    std::memcpy(v.data(), in.data() + pos, v.size() * sizeof(T));
    pos += v.size() * sizeof(T);
    return v;
  }
};
}  // namespace

std::vector<std::byte> encode(const rank_trace& r) {
  writer w;
  w.pod(magic);
  w.pod(r.sync_ns);
  w.pod(r.dropped_wait_samples);
  w.str(r.host);
  w.pod(static_cast<std::uint64_t>(r.names.size()));
  for (const auto& n : r.names)
    w.str(n);
  w.pod(static_cast<std::uint64_t>(r.threads.size()));
  for (const auto& t : r.threads) {
    w.str(t.name);
    w.pod(t.dropped);
  }
  w.vec(r.regions);
  w.vec(r.counters);
  return std::move(w.out);
}

rank_trace decode(std::span<const std::byte> bytes) {
  reader rd{bytes};
  if (rd.pod<std::uint64_t>() != magic)
    throw error("gaea::trace: a rank's trace is not in the expected format");
  rank_trace r;
  r.sync_ns = rd.pod<std::int64_t>();
  r.dropped_wait_samples = rd.pod<std::uint64_t>();
  r.host = rd.str();
  const auto names = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < names; ++i)
    r.names.push_back(rd.str());
  const auto threads = rd.pod<std::uint64_t>();
  for (std::uint64_t i = 0; i < threads; ++i) {
    thread_info t;
    t.name = rd.str();
    t.dropped = rd.pod<std::uint64_t>();
    r.threads.push_back(std::move(t));
  }
  r.regions = rd.vec<region_record>();
  r.counters = rd.vec<counter_record>();
  for (const auto& g : r.regions)
    if (g.thread >= r.threads.size() || g.name >= r.names.size())
      throw error("gaea::trace: a rank's trace refers to an unknown thread or name");
  for (const auto& c : r.counters)
    if (c.thread >= r.threads.size() || c.name >= r.names.size())
      throw error("gaea::trace: a rank's trace refers to an unknown thread or name");
  return r;
}

void align(std::vector<rank_trace>& ranks) {
  if (ranks.empty()) return;
  // Each rank's times relative to its barrier end, then all shifted by the earliest.
  std::int64_t earliest = 0;
  for (const auto& r : ranks) {
    for (const auto& g : r.regions)
      earliest = std::min(earliest, g.t0_ns - r.sync_ns);
    for (const auto& c : r.counters)
      earliest = std::min(earliest, c.t_ns - r.sync_ns);
  }
  for (auto& r : ranks) {
    const std::int64_t shift = r.sync_ns + earliest;
    for (auto& g : r.regions) {
      g.t0_ns -= shift;
      g.t1_ns = std::max(g.t1_ns - shift, g.t0_ns);
    }
    for (auto& c : r.counters)
      c.t_ns -= shift;
    r.sync_ns -= shift;
  }
}

void nest(std::vector<region_record>& regions) {
  std::stable_sort(regions.begin(), regions.end(),
                   [](const region_record& a, const region_record& b) {
                     if (a.thread != b.thread) return a.thread < b.thread;
                     if (a.t0_ns != b.t0_ns) return a.t0_ns < b.t0_ns;
                     return a.t1_ns > b.t1_ns;  // the enclosing one first
                   });
  std::vector<std::int64_t> ends;  // the open regions' ends on the current thread
  std::uint32_t thread = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    region_record& g = regions[i];
    if (i == 0 || g.thread != thread) {
      ends.clear();
      thread = g.thread;
    }
    while (!ends.empty() && ends.back() <= g.t0_ns)
      ends.pop_back();
    if (!ends.empty() && g.t1_ns > ends.back()) g.t1_ns = ends.back();
    ends.push_back(g.t1_ns);
  }
}

}  // namespace gaea::trace
