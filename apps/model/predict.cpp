// gaea-model predict scale: the counter experiment of [PGAS-BGQ Fig. 10] and collectives at any
// P on a described machine.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/model/operations.hpp"
#include "gaea/model/setup.hpp"

namespace gaea_model {

namespace model = gaea::model;

namespace {

// Memory and set-up per rank of connections ([PGAS-BGQ eq. 3-6]) under three designs, for an app
// that talks to 8 neighbours (LBM) and one that talks to everyone (the SCF's gets and accumulates).
nlohmann::json print_setup(const model::machine& m, const std::vector<std::int64_t>& ranks) {
  constexpr std::int64_t regions = 20, cache = 256;
  std::printf(
      "\n# connections per rank: %lld arrays and counters alive, 1 worker; endpoint %.0f B "
      "/ %.0f us, key %.0f B\n",
      static_cast<long long>(regions), m.setup.endpoint_bytes, m.setup.endpoint_s * 1e6,
      m.setup.rkey_bytes);
  std::printf(
      "# eager: endpoints to all at start-up, all keys per region; first-use: endpoints "
      "and keys of the peers addressed; LFU: keys bounded to %lld per region\n",
      static_cast<long long>(cache));
  std::printf("%8s %12s %14s | %16s %16s | %12s %14s\n", "P", "eager_MiB", "eager_setup_s",
              "first_use_8_MiB", "first_use_all", "lfu_all_MiB", "lfu_setup_s");
  nlohmann::json rows = nlohmann::json::array();
  for (const std::int64_t p : ranks) {
    model::setup_case c;
    c.ranks = p;
    c.regions = regions;
    c.clique = p - 1;
    const model::setup_cost eager = model::predict_setup(m, c);
    c.endpoints = c.keys = model::connect_policy::first_use;
    c.clique = std::min<std::int64_t>(8, p - 1);
    const model::setup_cost near = model::predict_setup(m, c);
    c.clique = p - 1;
    const model::setup_cost all = model::predict_setup(m, c);
    c.key_cache = cache;
    const model::setup_cost lfu = model::predict_setup(m, c);
    constexpr double mib = 1 << 20;
    std::printf("%8lld %12.2f %14.4f | %16.2f %16.2f | %12.2f %14.4f\n", static_cast<long long>(p),
                eager.bytes() / mib, eager.endpoint_s + eager.region_s, near.bytes() / mib,
                all.bytes() / mib, lfu.bytes() / mib, lfu.endpoint_s + lfu.region_s);
    rows.push_back({{"ranks", p},
                    {"eager_bytes", eager.bytes()},
                    {"eager_setup_s", eager.endpoint_s + eager.region_s},
                    {"first_use_8_bytes", near.bytes()},
                    {"first_use_all_bytes", all.bytes()},
                    {"lfu_all_bytes", lfu.bytes()},
                    {"lfu_all_setup_s", lfu.endpoint_s + lfu.region_s}});
  }
  return rows;
}

}  // namespace

int predict_scale(const model::machine& m, const std::filesystem::path& machine_file,
                  const std::vector<std::int64_t>& ranks, double owner_compute_s,
                  const std::string& json_out) {
  const std::int64_t most = m.nodes * m.ranks_per_node;
  std::printf("# machine '%s': %lld nodes x %lld ranks (%s)\n", m.name.c_str(),
              static_cast<long long>(m.nodes), static_cast<long long>(m.ranks_per_node),
              m.source.c_str());
  std::printf(
      "# fetch-and-add on rank 0's counter, ranks 1..P-1 back to back (us per call); "
      "owner computing %.0f us kernels\n",
      owner_compute_s * 1e6);
  std::printf("%8s %12s %12s %12s %12s %12s | %12s %12s %12s\n", "P", "thread_idle", "thread_busy",
              "nothread_idle", "nothread_busy", "atomic", "barrier_us", "allred8B_us",
              "bcast64K_us");
  nlohmann::json rows = nlohmann::json::array();
  for (const std::int64_t p : ranks) {
    if (p < 2 || p > most)
      throw gaea::error("gaea-model predict: P = " + std::to_string(p) + " outside [2, " +
                        std::to_string(most) + "] (machine '" + m.name +
                        "': " + std::to_string(m.nodes) + " nodes x " +
                        std::to_string(m.ranks_per_node) + " ranks)");
    model::counter_load load;
    load.clients = p - 1;
    load.ranks_per_node = m.ranks_per_node;
    auto fa = [&](model::counter_mode s, double compute, bool thread) {
      model::machine mm = m;
      mm.progress_thread = thread;
      model::counter_load l = load;
      l.service = s;
      l.owner_compute_s = compute;
      return model::fetch_add_s(mm, l);
    };
    const double ti = fa(model::counter_mode::progress, 0, true);
    const double tb = fa(model::counter_mode::progress, owner_compute_s, true);
    const double ni = fa(model::counter_mode::owner, 0, false);
    const double nb = fa(model::counter_mode::owner, owner_compute_s, false);
    const double at = fa(model::counter_mode::atomic, 0, true);
    using gaea::coll::operation;
    const double bar = model::collective_s(m, operation::barrier, 0, p);
    const double ar = model::collective_s(m, operation::allreduce, 8, p);
    const double bc = model::collective_s(m, operation::broadcast, 65536, p);
    std::printf("%8lld %12.2f %12.2f %12.2f %12.2f %12.2f | %12.2f %12.2f %12.2f\n",
                static_cast<long long>(p), ti * 1e6, tb * 1e6, ni * 1e6, nb * 1e6, at * 1e6,
                bar * 1e6, ar * 1e6, bc * 1e6);
    rows.push_back({{"ranks", p},
                    {"fetch_add_thread_idle_s", ti},
                    {"fetch_add_thread_busy_s", tb},
                    {"fetch_add_nothread_idle_s", ni},
                    {"fetch_add_nothread_busy_s", nb},
                    {"fetch_add_atomic_s", at},
                    {"barrier_s", bar},
                    {"allreduce_8B_s", ar},
                    {"broadcast_64KiB_s", bc}});
  }
  const nlohmann::json setup = print_setup(m, ranks);
  const nlohmann::json points = reference_points(m, machine_file);
  if (!json_out.empty()) {
    nlohmann::json j{{"kind", "gaea-model-scale"},
                     {"version", 1},
                     {"machine", m.name},
                     {"source", m.source},
                     {"owner_compute_s", owner_compute_s},
                     {"rows", rows},
                     {"setup", setup},
                     {"reference_points", points}};
    write_json(json_out, j, "gaea-model scale --json");
  }
  return 0;
}

}  // namespace gaea_model
