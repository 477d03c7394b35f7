#include "gaea/coll/estimator.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "detail/estimator_state.hpp"
#include "detail/execution.hpp"
#include "detail/group_state.hpp"
#include "detail/service.hpp"
#include "detail/shape.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/progress/clock.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace {

constexpr int file_version = 1;
constexpr auto kinds = static_cast<std::size_t>(detail::step_kind::count_);

std::vector<algorithm> candidates(operation op, int size) {
  using enum algorithm;
  switch (op) {
    case operation::barrier:
      return {dissemination, hierarchical};
    case operation::broadcast:
      return {binomial, scatter_allgather, chain, hierarchical};
    case operation::reduce:
      return {binomial, hierarchical};
    case operation::allreduce:
      return {recursive_doubling, ring, hierarchical};
    case operation::allgather:
      return {ring};
    case operation::alltoall:
      if ((size & (size - 1)) == 0) return {bruck, pairwise, send_recv};
      return {bruck, send_recv};
  }
  return {};
}

}  // namespace

estimator::estimator() {
  steps.assign(kinds, std::vector<step_cost>(2));
  for (auto& k : steps) {
    k[0] = {3e-6, 0.15e-9, 0};  // shared memory: a few µs, ~6.5 GB/s
    k[1] = {25e-6, 1.0e-9, 0};  // tcp between hosts: tens of µs, ~1 GB/s
  }
}

std::vector<prediction> estimator::predict(operation op, std::size_t bytes, int size, int nodes,
                                           bool block, std::size_t chunk) const {
  const auto g = detail::synthetic_group(size, nodes, block);
  std::vector<prediction> out;
  for (algorithm a : candidates(op, size)) {
    const auto n = static_cast<std::size_t>(size);
    std::vector<detail::schedule> s;
    s.reserve(n);
    for (int m = 0; m < size; ++m)
      s.push_back(detail::shape_schedule(op, a, *g, m, bytes, chunk));
    // Replay: a round starts when the member's previous one ended, its messages arrive a step
    // cost later, and it ends when its receives have arrived (plus its local work).
    struct key {
      int from, to;
      std::uint32_t tag;
      bool operator<(const key& o) const {
        return std::tie(from, to, tag) < std::tie(o.from, o.to, o.tag);
      }
    };
    std::map<key, double> arrival;
    std::vector<std::size_t> next(n, 0);
    std::vector<double> clock(n, 0.0);
    std::vector<char> started(n, 0);
    double joules = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (std::size_t m = 0; m < n; ++m) {
        while (next[m] < s[m].rounds.size()) {
          const detail::round& r = s[m].rounds[next[m]];
          const int me = static_cast<int>(m);
          bool inter = false;
          for (const auto* v : {&r.sends, &r.recvs})
            for (const auto& t : *v)
              inter = inter || !g->same_node(me, t.peer);
          const auto& cost = steps[static_cast<std::size_t>(r.kind)];
          double inject = 0;
          if (!started[m]) {
            for (const auto& t : r.sends) {
              const step_cost& c = cost[g->same_node(me, t.peer) ? 0 : 1];
              arrival[{me, t.peer, t.tag}] =
                  clock[m] + c.start_s + c.per_byte_s * static_cast<double>(t.bytes);
            }
            started[m] = 1;
          }
          for (const auto& t : r.sends)
            inject = std::max(inject, cost[g->same_node(me, t.peer) ? 0 : 1].per_byte_s *
                                          static_cast<double>(t.bytes));
          double end = clock[m] + inject;
          bool ready = true;
          for (const auto& t : r.recvs) {
            auto it = arrival.find({t.peer, me, t.tag});
            if (it == arrival.end()) {
              ready = false;
              break;
            }
            end = std::max(end, it->second);
          }
          if (!ready) break;
          end += copy_per_byte_s * static_cast<double>(r.local_bytes);
          joules += (end - clock[m]) * power_w[inter ? 1 : 0];
          clock[m] = end;
          started[m] = 0;
          ++next[m];
          moved = true;
        }
      }
    }
    double t = 0;
    for (std::size_t m = 0; m < n; ++m) {
      if (next[m] < s[m].rounds.size()) t = std::numeric_limits<double>::infinity();
      t = std::max(t, clock[m]);
    }
    out.push_back({a, t, joules});
  }
  return out;
}

algorithm estimator::choose(operation op, std::size_t bytes, int size, int nodes, bool block,
                            double time_budget) const {
  const auto p = predict(op, bytes, size, nodes, block);
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& x : p)
    fastest = std::min(fastest, x.seconds);
  const prediction* best = nullptr;
  for (const auto& x : p)
    if (x.seconds <= fastest * (1 + time_budget) && (!best || x.joules < best->joules)) best = &x;
  return best ? best->algo : algorithm::automatic;
}

void estimator::save(const std::filesystem::path& file) const {
  nlohmann::json j;
  j["kind"] = "gaea-coll-calibration";
  j["version"] = file_version;
  j["source"] = source_;
  j["copy_per_byte_s"] = copy_per_byte_s;
  j["power_w"] = {power_w[0], power_w[1]};
  for (std::size_t k = 0; k < kinds; ++k)
    for (int c = 0; c < 2; ++c) {
      const step_cost& s = steps[k][static_cast<std::size_t>(c)];
      j["steps"][detail::to_string(static_cast<detail::step_kind>(k))][c == 0 ? "intra" : "inter"] =
          {{"start_s", s.start_s}, {"per_byte_s", s.per_byte_s}, {"samples", s.samples}};
    }
  const std::filesystem::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << j.dump(2) << '\n';
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw Error("gaea::coll: cannot write the calibration file " + file.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error("gaea::coll: cannot rename the calibration to " + file.string() + ": " +
                ec.message());
  }
}

estimator estimator::load(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error("gaea::coll: cannot read the calibration file " + file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw Error("gaea::coll: calibration file " + file.string() + " is not JSON: " + e.what());
  }
  auto need = [&](const nlohmann::json& o, const std::string& key) -> double {
    if (!o.contains(key) || !o[key].is_number() || o[key].get<double>() < 0 ||
        !std::isfinite(o[key].get<double>()))
      throw Error("gaea::coll: calibration file " + file.string() + ": '" + key +
                  "' missing, not a number or negative");
    return o[key].get<double>();
  };
  if (j.value("kind", "") != "gaea-coll-calibration" || j.value("version", 0) != file_version)
    throw Error("gaea::coll: " + file.string() + " is not a version-" +
                std::to_string(file_version) + " gaea-coll-calibration file");
  estimator e;
  e.copy_per_byte_s = need(j, "copy_per_byte_s");
  if (!j.contains("power_w") || !j["power_w"].is_array() || j["power_w"].size() != 2)
    throw Error("gaea::coll: calibration file " + file.string() +
                ": 'power_w' must be [intra, inter]");
  e.power_w[0] = j["power_w"][0].get<double>();
  e.power_w[1] = j["power_w"][1].get<double>();
  for (std::size_t k = 0; k < kinds; ++k) {
    const std::string name = detail::to_string(static_cast<detail::step_kind>(k));
    for (int c = 0; c < 2; ++c) {
      const char* cls = c == 0 ? "intra" : "inter";
      if (!j.contains("steps") || !j["steps"].contains(name) || !j["steps"][name].contains(cls))
        throw Error("gaea::coll: calibration file " + file.string() + ": steps." + name + "." +
                    cls + " missing");
      const auto& o = j["steps"][name][cls];
      e.steps[k][static_cast<std::size_t>(c)] = {need(o, "start_s"), need(o, "per_byte_s"),
                                                 static_cast<std::size_t>(need(o, "samples"))};
    }
  }
  e.source_ = file.string() + " (" + j.value("source", std::string("unknown")) + ")";
  return e;
}

namespace {
thread_local std::vector<detail::round_timing>* t_timing_sink = nullptr;
}  // namespace

namespace detail {
std::vector<round_timing>* timing_sink() noexcept {
  return t_timing_sink;
}
}  // namespace detail

estimator estimator::calibrate(const group& g, int reps) {
  runtime& rt = runtime::current();
  estimator e;
  const int n = g.size();
  // (kind, class, bytes) -> this rank's round times.
  std::map<std::tuple<int, int, std::size_t>, std::vector<double>> samples;
  std::vector<detail::round_timing> rounds;
  double busy_j = 0, busy_s = 0;
  for (operation op : {operation::barrier, operation::broadcast, operation::allreduce,
                       operation::allgather, operation::alltoall}) {
    for (algorithm a : candidates(op, n)) {
      for (std::size_t bytes : {std::size_t{8}, std::size_t{1024}, std::size_t{16384},
                                std::size_t{131072}, std::size_t{1} << 20}) {
        if (op == operation::barrier && bytes > 8) continue;
        if (op == operation::alltoall && bytes > 131072) continue;
        const std::size_t elems = std::max<std::size_t>(1, bytes / 8);
        std::vector<double> a_buf(elems * static_cast<std::size_t>(n), 1.0), b_buf(a_buf.size());
        options o;
        o.algo = a;
        o.energy = energy_mode::off;
        auto run = [&] {
          switch (op) {
            case operation::barrier:
              barrier(g, o);
              break;
            case operation::broadcast:
              broadcast(g, std::span<double>(a_buf.data(), elems), 0, o);
              break;
            case operation::allreduce:
              allreduce(g, std::span<double>(a_buf.data(), elems), reduce_op::sum, o);
              break;
            case operation::allgather:
              allgather(g, std::span<const double>(a_buf.data(), elems), std::span<double>(b_buf),
                        o);
              break;
            case operation::alltoall:
              alltoall(g, std::span<const double>(a_buf), std::span<double>(b_buf), o);
              break;
            default:
              break;
          }
        };
        run();  // warm-up
        barrier(g);
        const double j0 = rt.energy().joules;
        const std::int64_t t0 = progress::monotonic_ns();
        t_timing_sink = &rounds;
        for (int r = 0; r < reps; ++r)
          run();
        t_timing_sink = nullptr;
        busy_s += static_cast<double>(progress::monotonic_ns() - t0) * 1e-9;
        busy_j += rt.energy().joules - j0;
        for (const auto& x : rounds)
          if (x.kind != detail::step_kind::local_copy)
            samples[{static_cast<int>(x.kind), x.inter_node ? 1 : 0, x.bytes}].push_back(x.seconds);
        rounds.clear();
      }
    }
  }
  // Per (kind, class, bytes): the median of this rank's rounds, then the largest over ranks: a
  // step's cost shows on its receiver (the sender of a one-way step only injects).
  std::vector<double> flat;
  for (auto& [k, v] : samples) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    flat.insert(flat.end(),
                {static_cast<double>(std::get<0>(k)), static_cast<double>(std::get<1>(k)),
                 static_cast<double>(std::get<2>(k)), v[v.size() / 2]});
  }
  std::vector<std::int64_t> counts = allgather(g, static_cast<std::int64_t>(flat.size()));
  std::int64_t total = 0;
  for (auto c : counts)
    total += c;
  std::vector<double> all(static_cast<std::size_t>(total));
  allgatherv(g, std::span<const double>(flat), std::span<double>(all),
             std::span<const std::int64_t>(counts));
  std::map<std::tuple<int, int, std::size_t>, double> best;
  for (std::size_t i = 0; i + 3 < all.size(); i += 4) {
    const auto k = std::tuple{static_cast<int>(all[i]), static_cast<int>(all[i + 1]),
                              static_cast<std::size_t>(all[i + 2])};
    auto it = best.find(k);
    if (it == best.end() || all[i + 3] > it->second) best[k] = all[i + 3];
  }
  // Weighted least squares (relative error) of seconds = a + b * bytes per (kind, class).
  for (std::size_t kind = 0; kind < kinds; ++kind)
    for (int c = 0; c < 2; ++c) {
      double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
      std::size_t m = 0;
      for (const auto& [k, t] : best) {
        if (static_cast<std::size_t>(std::get<0>(k)) != kind || std::get<1>(k) != c || t <= 0)
          continue;
        const double w = 1.0 / (t * t), x = static_cast<double>(std::get<2>(k));
        sw += w;
        sx += w * x;
        sy += w * t;
        sxx += w * x * x;
        sxy += w * x * t;
        ++m;
      }
      if (m == 0) continue;
      step_cost& s = e.steps[kind][static_cast<std::size_t>(c)];
      const double det = sw * sxx - sx * sx;
      if (m >= 2 && det > 0) {
        s.per_byte_s = std::max(0.0, (sw * sxy - sx * sy) / det);
        s.start_s = std::max(0.0, (sy - s.per_byte_s * sx) / sw);
      } else {
        s.start_s = sy / sw;
        s.per_byte_s = 0;
      }
      s.samples = m;
    }
  // Local copies: one MiB memcpy, best of a few.
  {
    std::vector<std::byte> x(std::size_t{1} << 20), y(x.size());
    double t = 1e9;
    for (int r = 0; r < 5; ++r) {
      const std::int64_t t0 = progress::monotonic_ns();
      std::memcpy(y.data(), x.data(), x.size());
      t = std::min(t, static_cast<double>(progress::monotonic_ns() - t0) * 1e-9);
    }
    e.copy_per_byte_s = allreduce(g, t, reduce_op::max) / static_cast<double>(x.size());
  }
  // Power above idle: energy while calibrating minus an idle stretch's rate, per member.
  {
    const double j0 = rt.energy().joules;
    const std::int64_t t0 = progress::monotonic_ns();
    ::usleep(100000);
    const double idle_w =
        (rt.energy().joules - j0) / (static_cast<double>(progress::monotonic_ns() - t0) * 1e-9);
    const double busy_w = busy_s > 0 ? busy_j / busy_s : 0;
    const double above = allreduce(g, std::max(0.0, busy_w - idle_w), reduce_op::sum) / n;
    const int cls = g.nodes() > 1 ? 1 : 0;
    e.power_w[cls] = above;
    if (g.nodes() > 1 && g.node_size() > 1) e.power_w[0] = above;
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  e.source_ = "calibrated on " + std::string(host) + " (" + std::to_string(n) + " ranks, " +
              std::to_string(g.nodes()) + " nodes, meter " + rt.energy().source + ")";
  return e;
}

const estimator* active_estimator() {
  static std::mutex m;
  static std::uint64_t instance = 0;
  static std::unique_ptr<estimator> e;
  if (!runtime::initialized()) return nullptr;
  runtime& rt = runtime::current();
  std::lock_guard lock(m);
  if (instance != rt.instance()) {
    instance = rt.instance();
    e.reset();
    const std::string& file = detail::service_of(rt).cfg().calibration;
    if (!file.empty()) e = std::make_unique<estimator>(estimator::load(file));
  }
  return e.get();
}

}  // namespace gaea::coll

namespace gaea::coll::detail {

std::optional<algorithm> estimator_choice(const group_state& g, const call_shape& c) {
  const estimator* e = active_estimator();
  if (!e || g.size() < 2) return std::nullopt;
  if (c.op == operation::alltoall && !c.uniform) {
    const algorithm a = e->choose(c.op, c.bytes, g.size(), g.nodes(), g.block);
    return a == algorithm::bruck ? std::optional<algorithm>{} : a;
  }
  const algorithm a = e->choose(c.op, c.bytes, g.size(), g.nodes(), g.block);
  if (a == algorithm::automatic) return std::nullopt;
  return a;
}

const char* to_string(step_kind k) noexcept {
  constexpr const char* names[] = {"sync",   "tree",     "scatter", "allgather", "pipeline",
                                   "reduce", "exchange", "bruck",   "local_copy"};
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(names) ? names[i] : "?";
}

}  // namespace gaea::coll::detail
