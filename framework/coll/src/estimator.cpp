// gaea::coll::estimator: predicted time and energy of every algorithm by walking its shape,
// the cheapest choice, and the calibration file's save and load.

#include "gaea/coll/estimator.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "detail/estimator_state.hpp"
#include "detail/execution.hpp"
#include "detail/group_state.hpp"
#include "detail/registry.hpp"
#include "detail/service.hpp"
#include "detail/settings.hpp"
#include "detail/shape.hpp"
#include "detail/simulate.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace {
constexpr int file_version = 4;
constexpr auto kinds = static_cast<std::size_t>(detail::step_kind::count_);
}  // namespace

double message_curve::at(double b) const noexcept {
  const std::size_t n = std::min(bytes.size(), seconds.size());
  if (n == 0) return 0;
  if (n == 1) return seconds[0];
  // The segment holding b (the first or last one outside the range: linear extrapolation).
  std::size_t i = 1;
  while (i + 1 < n && bytes[i] < b)
    ++i;
  const double x0 = bytes[i - 1], x1 = bytes[i];
  const double t = x1 > x0 ? (b - x0) / (x1 - x0) : 0;
  return std::max(0.0, seconds[i - 1] + t * (seconds[i] - seconds[i - 1]));
}

estimator::estimator() {
  // Documented defaults: shared memory a few µs + ~6.5 GB/s, tcp between hosts tens of µs
  // + ~1 GB/s (the README's table).
  message[0] = {{0, 1 << 20}, {3e-6, 3e-6 + 0.15e-9 * (1 << 20)}};
  message[1] = {{0, 1 << 20}, {25e-6, 25e-6 + 1.0e-9 * (1 << 20)}};
  op_params d;
  d.steps.assign(kinds, std::vector<step_cost>(2));
  ops.assign(detail::operation_count, d);
}

namespace detail {

double call_energy(const estimator& e, const sim_result& r, int members, int nodes) {
  double j = e.call_joules * static_cast<double>(members);
  // Set-up counts as intra-node time (class_seconds[0] holds it, kind_seconds does not).
  double kind_total[2] = {0, 0};
  for (std::size_t k = 0; k < r.kind_seconds.size(); ++k)
    for (std::size_t c = 0; c < 2; ++c) {
      const double t = r.kind_seconds[k][c];
      kind_total[c] += t;
      const double extra =
          k < e.step_power_w.size() && c < e.step_power_w[k].size() ? e.step_power_w[k][c] : -1.0;
      // A calibrated kind: idle power over the round, its extra power only while the member
      // works (a member waiting for its data draws what the meter counts as idle).
      j += extra >= 0 ? t * e.idle_w + r.kind_busy_seconds[k][c] * extra : t * e.power_w[c];
    }
  for (std::size_t c = 0; c < 2; ++c)
    j += std::max(0.0, r.class_seconds[c] - kind_total[c]) * e.power_w[c];
  if (nodes > 1) j += e.switch_w * r.seconds;
  return j;
}

// Replays every member's schedule: a round starts when the member's previous one ended (its
// first after the call overhead), its messages arrive a step cost after that, and it ends when
// its receives have arrived and it has injected its sends and copied out its receives (each
// direction one message after the other), plus its local work. With `features`, each member's clock
// also carries the step counts and bytes of the path that set it (calibration's regressors).
sim_result simulate(const estimator& e, operation op, algorithm a, const group_state& g,
                    std::size_t bytes, std::size_t chunk, bool features) {
  const int size = g.size();
  const auto n = static_cast<std::size_t>(size);
  std::vector<schedule> s;
  s.reserve(n);
  for (int m = 0; m < size; ++m)
    s.push_back(shape_schedule(op, a, g, m, bytes, chunk));
  const std::size_t nf = features ? feature_count : 0;
  struct msg {
    double t;
    std::vector<double> f;
  };
  std::map<std::tuple<int, int, std::uint32_t>, msg> arrival;
  std::vector<std::size_t> next(n, 0);
  const estimator::op_params& prm = e.ops[static_cast<std::size_t>(op)];
  std::vector<double> clock(n, prm.call_overhead_s), start(n, 0);
  std::vector<std::vector<double>> feat(n, std::vector<double>(nf, 0.0));
  if (features)
    for (auto& f : feat)
      f[0] = 1;
  std::vector<char> started(n, 0);
  sim_result out;
  bool moved = true;
  while (moved) {
    moved = false;
    for (std::size_t m = 0; m < n; ++m) {
      const int me = static_cast<int>(m);
      while (next[m] < s[m].rounds.size()) {
        const round& r = s[m].rounds[next[m]];
        const auto kind = static_cast<std::size_t>(r.kind);
        bool inter = false;
        for (const auto* v : {&r.sends, &r.recvs})
          for (const auto& t : *v)
            inter = inter || !g.same_node(me, t.peer);
        if (!started[m]) {
          for (const auto& t : r.sends) {
            const int c = g.same_node(me, t.peer) ? 0 : 1;
            const step_cost& sc = prm.steps[kind][static_cast<std::size_t>(c)];
            const double gt = e.message[c].at(static_cast<double>(t.bytes));
            // A message never arrives before its round starts, whatever the fitted start-up.
            msg x{clock[m] + std::max(0.0, sc.start_s + sc.scale * gt), {}};
            if (features) {
              x.f = feat[m];
              x.f[feature_index(kind, c, 0)] += 1;
              x.f[feature_index(kind, c, 1)] += gt;
            }
            arrival[{me, t.peer, t.tag}] = std::move(x);
          }
          start[m] = clock[m];
          started[m] = 1;
        }
        bool ready = true;
        for (const auto& t : r.recvs)
          if (!arrival.contains({t.peer, me, t.tag})) {
            ready = false;
            break;
          }
        if (!ready) break;
        // The latest of: this member's own injections, one after the other; its copies of the
        // received data, one after the other (a root of a linear gather takes its messages in
        // turn); each receive's arrival.
        double end = clock[m];
        double injecting = 0;  // the member's own busy time in the round, before local work
        const std::vector<double>* path = nullptr;
        std::vector<double> own[2];
        for (int dir = 0; dir < 2; ++dir) {
          double t_busy = clock[m];
          if (features) own[dir] = feat[m];
          for (const auto& t : dir == 0 ? r.sends : r.recvs) {
            const int c = g.same_node(me, t.peer) ? 0 : 1;
            const double busy = e.message[c].at(static_cast<double>(t.bytes)) - e.message[c].at(0);
            t_busy += prm.steps[kind][static_cast<std::size_t>(c)].scale * busy;
            if (features) own[dir][feature_index(kind, c, 1)] += busy;
          }
          injecting = std::max(injecting, t_busy - clock[m]);
          if (t_busy > end) {
            end = t_busy;
            path = features ? &own[dir] : nullptr;
          }
        }
        for (const auto& t : r.recvs) {
          const msg& x = arrival.at({t.peer, me, t.tag});
          if (x.t > end) {
            end = x.t;
            path = features ? &x.f : nullptr;
          }
        }
        if (features && path) feat[m] = *path;
        const double local = prm.copy_per_byte_s * static_cast<double>(r.local_bytes);
        end += local;
        if (features) feat[m][feature_count - 1] += static_cast<double>(r.local_bytes);
        out.class_seconds[inter ? 1 : 0] += end - start[m];
        out.kind_seconds[kind][inter ? 1 : 0] += end - start[m];
        out.kind_busy_seconds[kind][inter ? 1 : 0] += injecting + local;
        clock[m] = end;
        started[m] = 0;
        ++next[m];
        moved = true;
      }
    }
  }
  std::size_t last = 0;
  for (std::size_t m = 0; m < n; ++m) {
    if (next[m] < s[m].rounds.size()) out.seconds = std::numeric_limits<double>::infinity();
    if (clock[m] >= out.seconds) {
      out.seconds = clock[m];
      last = m;
    }
    out.class_seconds[0] += prm.call_overhead_s;  // every member's set-up
  }
  out.joules = call_energy(e, out, size, g.nodes());
  if (features && n) {
    out.features = feat[last];
    out.member_features.assign(nf, 0.0);
    for (const auto& f : feat)
      for (std::size_t i = 0; i < nf; ++i)
        out.member_features[i] += f[i];
  }
  return out;
}

}  // namespace detail

std::vector<prediction> estimator::predict(operation op, std::size_t bytes, int size, int nodes,
                                           bool block, std::size_t chunk,
                                           std::span<const algorithm> only) const {
  const auto g = detail::synthetic_group(size, nodes, block);
  std::vector<prediction> out;
  for (algorithm a : detail::candidates(op, size)) {
    if (!only.empty() && std::find(only.begin(), only.end(), a) == only.end()) continue;
    const detail::sim_result r = detail::simulate(*this, op, a, *g, bytes, chunk, false);
    out.push_back({a, r.seconds, r.joules});
  }
  return out;
}

algorithm estimator::choose(operation op, std::size_t bytes, int size, int nodes, bool block,
                            double time_budget) const {
  return cheapest(predict(op, bytes, size, nodes, block), time_budget);
}

algorithm cheapest(const std::vector<prediction>& costs, double time_budget) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& x : costs)
    fastest = std::min(fastest, x.seconds);
  const prediction* best = nullptr;
  for (const auto& x : costs)
    if (x.seconds <= fastest * (1 + time_budget) && (!best || x.joules < best->joules)) best = &x;
  return best ? best->algo : algorithm::automatic;
}

void estimator::save(const std::filesystem::path& file) const {
  nlohmann::json j;
  j["kind"] = "gaea-coll-calibration";
  j["version"] = file_version;
  j["source"] = source_;
  j["power_w"] = {power_w[0], power_w[1]};
  j["call_joules"] = call_joules;
  j["idle_w"] = idle_w;
  j["switch_w"] = switch_w;
  for (std::size_t k = 0; k < step_power_w.size() && k < kinds; ++k)
    if (step_power_w[k].size() == 2)
      j["step_power_w"][detail::to_string(static_cast<detail::step_kind>(k))] = {
          {"intra", step_power_w[k][0]}, {"inter", step_power_w[k][1]}};
  for (int c = 0; c < 2; ++c)
    j["message"][c == 0 ? "intra" : "inter"] = {{"bytes", message[c].bytes},
                                                {"seconds", message[c].seconds}};
  for (std::size_t o = 0; o < ops.size(); ++o) {
    nlohmann::json& jo = j["operations"][std::string(to_string(static_cast<operation>(o)))];
    jo["copy_per_byte_s"] = ops[o].copy_per_byte_s;
    jo["call_overhead_s"] = ops[o].call_overhead_s;
    for (std::size_t k = 0; k < kinds; ++k)
      for (int c = 0; c < 2; ++c) {
        const step_cost& sc = ops[o].steps[k][static_cast<std::size_t>(c)];
        jo["steps"][detail::to_string(static_cast<detail::step_kind>(k))]
          [c == 0 ? "intra" : "inter"] = {
              {"start_s", sc.start_s}, {"scale", sc.scale}, {"samples", sc.samples}};
      }
  }
  output_file out(file, "gaea::coll: calibration file");
  out.write(j.dump(2) + "\n");
  out.commit();
}

estimator estimator::load(const std::filesystem::path& file) {
  const std::string text = read_input_file(file, "gaea::coll: calibration file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw error("gaea::coll: calibration file " + file.string() + " is not JSON: " + e.what());
  }
  auto need = [&](const nlohmann::json& o, const std::string& key) -> double {
    if (!o.contains(key) || !o[key].is_number() || o[key].get<double>() < 0 ||
        !std::isfinite(o[key].get<double>()))
      throw error("gaea::coll: calibration file " + file.string() + ": '" + key +
                  "' missing, not a number or negative");
    return o[key].get<double>();
  };
  // Start-ups and call overheads are relative to the message curve, which holds one call's
  // set-up: they may be negative.
  auto signed_number = [&](const nlohmann::json& o, const std::string& key) -> double {
    if (!o.contains(key) || !o[key].is_number() || !std::isfinite(o[key].get<double>()))
      throw error("gaea::coll: calibration file " + file.string() + ": '" + key +
                  "' missing or not a number");
    return o[key].get<double>();
  };
  if (j.value("kind", "") != "gaea-coll-calibration" || j.value("version", 0) != file_version)
    throw error("gaea::coll: " + file.string() + " is not a version-" +
                std::to_string(file_version) + " gaea-coll-calibration file");
  estimator e;
  if (!j.contains("power_w") || !j["power_w"].is_array() || j["power_w"].size() != 2)
    throw error("gaea::coll: calibration file " + file.string() +
                ": 'power_w' must be [intra, inter]");
  e.power_w[0] = j["power_w"][0].get<double>();
  e.power_w[1] = j["power_w"][1].get<double>();
  e.call_joules = need(j, "call_joules");
  e.idle_w = need(j, "idle_w");
  e.switch_w = need(j, "switch_w");
  if (j.contains("step_power_w")) {
    e.step_power_w.assign(kinds, {-1.0, -1.0});
    for (std::size_t k = 0; k < kinds; ++k) {
      const std::string name = detail::to_string(static_cast<detail::step_kind>(k));
      if (!j["step_power_w"].contains(name)) continue;
      const auto& x = j["step_power_w"][name];
      for (int c = 0; c < 2; ++c)
        e.step_power_w[k][static_cast<std::size_t>(c)] =
            signed_number(x, c == 0 ? "intra" : "inter");
    }
  }
  for (int c = 0; c < 2; ++c) {
    const char* cls = c == 0 ? "intra" : "inter";
    const std::string where = "gaea::coll: calibration file " + file.string() + ": message." + cls;
    if (!j.contains("message") || !j["message"].contains(cls)) throw error(where + " missing");
    message_curve& m = e.message[c];
    try {
      m.bytes = j["message"][cls].at("bytes").get<std::vector<double>>();
      m.seconds = j["message"][cls].at("seconds").get<std::vector<double>>();
    } catch (const std::exception& x) {
      throw error(where + ": 'bytes' and 'seconds' must be arrays of numbers (" + x.what() + ")");
    }
    if (m.bytes.size() < 2 || m.bytes.size() != m.seconds.size())
      throw error(where + ": 'bytes' and 'seconds' must have the same length, at least 2 (got " +
                  std::to_string(m.bytes.size()) + " and " + std::to_string(m.seconds.size()) +
                  ")");
    for (std::size_t i = 0; i < m.bytes.size(); ++i)
      if (!std::isfinite(m.seconds[i]) || m.seconds[i] < 0 || !std::isfinite(m.bytes[i]) ||
          (i > 0 && m.bytes[i] <= m.bytes[i - 1]))
        throw error(where + ": sizes must ascend and times be non-negative (point " +
                    std::to_string(i) + ")");
  }
  for (std::size_t o = 0; o < e.ops.size(); ++o) {
    const std::string op_name(to_string(static_cast<operation>(o)));
    if (!j.contains("operations") || !j["operations"].contains(op_name))
      throw error("gaea::coll: calibration file " + file.string() + ": operations." + op_name +
                  " missing");
    const nlohmann::json& jo = j["operations"][op_name];
    op_params& p = e.ops[o];
    p.copy_per_byte_s = need(jo, "copy_per_byte_s");
    p.call_overhead_s = signed_number(jo, "call_overhead_s");
    for (std::size_t k = 0; k < kinds; ++k) {
      const std::string name = detail::to_string(static_cast<detail::step_kind>(k));
      for (int c = 0; c < 2; ++c) {
        const char* cls = c == 0 ? "intra" : "inter";
        if (!jo.contains("steps") || !jo["steps"].contains(name) ||
            !jo["steps"][name].contains(cls))
          throw error("gaea::coll: calibration file " + file.string() + ": operations." + op_name +
                      ".steps." + name + "." + cls + " missing");
        const auto& x = jo["steps"][name][cls];
        p.steps[k][static_cast<std::size_t>(c)] = {signed_number(x, "start_s"), need(x, "scale"),
                                                   static_cast<std::size_t>(need(x, "samples"))};
      }
    }
  }
  e.source_ = file.string() + " (" + j.value("source", std::string("unknown")) + ")";
  return e;
}

std::vector<algorithm> algorithms_of(operation op, int size) {
  return detail::candidates(op, size);
}

const estimator* active_estimator() {
  if (!runtime::initialized()) return nullptr;
  return detail::service_of(runtime::current()).model();
}

}  // namespace gaea::coll

namespace gaea::coll::detail {

std::optional<algorithm> estimator_choice(const group_state& g, const call_shape& c) {
  const estimator* e = g.svc->model();
  if (!e || g.size() < 2) return std::nullopt;
  const auto a = static_cast<algorithm>(static_cast<std::uint8_t>(g.svc->remember(
      {g.id, static_cast<std::uint8_t>(c.op), static_cast<std::uint8_t>(algorithm::automatic),
       c.uniform, c.bytes},
      [&] {
        return static_cast<double>(e->choose(c.op, c.bytes, g.size(), g.nodes(), g.block));
      })));
  // The estimator compares algorithms by group size alone: one that cannot run this call (Bruck
  // on alltoallv) leaves it to the rules.
  const entry* chosen = find_entry(c.op, a);
  if (!chosen || !why_not(*chosen, {c.op, g.size(), c.uniform, &g, &g.svc->cfg()}).empty())
    return std::nullopt;
  return a;
}

namespace {
constexpr const char* step_names[] = {"sync",       "tree",        "scatter",  "allgather",
                                      "pipeline",   "reduce",      "exchange", "bruck",
                                      "local_copy", "copy_private"};
static_assert(std::size(step_names) == static_cast<std::size_t>(step_kind::count_));
}  // namespace

const char* to_string(step_kind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  return i < std::size(step_names) ? step_names[i] : "?";
}

}  // namespace gaea::coll::detail

namespace gaea::coll {

std::span<const char* const> step_kind_names() noexcept {
  return detail::step_names;
}

}  // namespace gaea::coll
