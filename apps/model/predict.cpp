// gaea-model predict scale: the counter experiment of [PGAS-BGQ Fig. 10] and collectives at any
// P on a described machine.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/model/operations.hpp"

namespace gaea_model {

namespace model = gaea::model;

int predict_scale(const model::machine& m, const std::vector<std::int64_t>& ranks,
                  double owner_compute_s, const std::string& json_out) {
  const std::int64_t most = m.nodes * m.ranks_per_node;
  std::printf("# machine '%s': %lld nodes x %lld ranks (%s)\n", m.name.c_str(),
              static_cast<long long>(m.nodes), static_cast<long long>(m.ranks_per_node),
              m.source.c_str());
  std::printf("# fetch-and-add on rank 0's counter, ranks 1..P-1 back to back (us per call); "
              "owner computing %.0f us kernels\n",
              owner_compute_s * 1e6);
  std::printf("%8s %12s %12s %12s %12s %12s | %12s %12s %12s\n", "P", "thread_idle",
              "thread_busy", "nothread_idle", "nothread_busy", "atomic", "barrier_us",
              "allred8B_us", "bcast64K_us");
  nlohmann::json rows = nlohmann::json::array();
  for (const std::int64_t p : ranks) {
    if (p < 2 || p > most)
      throw gaea::error("gaea-model predict: P = " + std::to_string(p) + " outside [2, " +
                        std::to_string(most) + "] (machine '" + m.name + "': " +
                        std::to_string(m.nodes) + " nodes x " +
                        std::to_string(m.ranks_per_node) + " ranks)");
    model::counter_load load;
    load.clients = p - 1;
    load.ranks_per_node = m.ranks_per_node;
    auto fa = [&](model::counter_service s, double compute, bool thread) {
      model::machine mm = m;
      mm.progress_thread = thread;
      model::counter_load l = load;
      l.service = s;
      l.owner_compute_s = compute;
      return model::fetch_add_s(mm, l);
    };
    const double ti = fa(model::counter_service::progress, 0, true);
    const double tb = fa(model::counter_service::progress, owner_compute_s, true);
    const double ni = fa(model::counter_service::owner, 0, false);
    const double nb = fa(model::counter_service::owner, owner_compute_s, false);
    const double at = fa(model::counter_service::atomic, 0, true);
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
  if (!json_out.empty()) {
    nlohmann::json j{{"kind", "gaea-model-scale"}, {"version", 1},       {"machine", m.name},
                     {"source", m.source},         {"owner_compute_s", owner_compute_s},
                     {"rows", rows}};
    gaea::output_file out(json_out, "gaea-model predict --json");
    out.write(j.dump(2) + "\n");
    out.commit();
  }
  return 0;
}

}  // namespace gaea_model
