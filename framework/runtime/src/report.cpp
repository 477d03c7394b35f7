// GAEA_REPORT and GAEA_TRACE at finalize: every rank's telemetry, operations and energy are
// gathered to rank 0, which prints a summary, writes it as JSON, and writes the time series to
// HDF5. Files are written through gaea::output_file (a temporary beside the target, renamed
// once complete); their paths are checked at start-up (check_report_paths()).
#include "detail/report.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "gaea/base/output_file.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/progress/clock.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea {

namespace {
// Layout of one rank's summary (doubles, so one MPI_Gather moves it).
enum field : std::size_t {
  f_wall,
  f_cpu,
  f_state_wall,                                        // 4 states
  f_state_cpu = f_state_wall + progress::wait_states,  // 4 states
  f_waits = f_state_cpu + progress::wait_states,
  f_wakeups,
  f_blocks,
  f_mode_switches,
  f_dvfs_lowered,
  f_dvfs_raised,
  f_low_cpu,
  f_penalty,
  f_joules,
  f_measured,
  f_node_leader,
  f_node_pus,  // hardware threads of the node, from its first rank only
  f_transitions,
  f_op_count,                                // comm::op_kinds
  f_op_bytes = f_op_count + comm::op_kinds,  // comm::op_kinds
  f_count = f_op_bytes + comm::op_kinds
};

void write_json(const std::string& file, const nlohmann::json& j) {
  output_file out(file, "GAEA_REPORT");
  out.write(j.dump(2) + "\n");
  out.commit();
}

// The trace file, closed on every path; close() reports whether HDF5 could flush it.
struct h5_file {
  hid_t id;
  explicit h5_file(hid_t f) : id(f) {}
  bool close() {
    const bool ok = H5Fclose(id) >= 0;
    id = -1;
    return ok;
  }
  ~h5_file() {
    if (id >= 0) H5Fclose(id);
  }
  h5_file(const h5_file&) = delete;
  h5_file& operator=(const h5_file&) = delete;
};

template <class T>
void write_column(hid_t group, const char* name, hid_t type, const std::vector<T>& v) {
  const hsize_t n = v.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t set = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (set < 0 || (n > 0 && H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)) {
    if (set >= 0) H5Dclose(set);
    H5Sclose(space);
    throw error(std::string("GAEA_TRACE: cannot write dataset ") + name);
  }
  H5Dclose(set);
  H5Sclose(space);
}

void write_string_attr(hid_t obj, const char* name, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}
}  // namespace

void detail::check_report_paths(const std::string& report, const std::string& trace) {
  if (report != "0" && report != "1") check_output_path(report, "GAEA_REPORT");
  if (!trace.empty()) check_output_path(trace, "GAEA_TRACE");
}

void runtime::write_report_and_trace() {
  const bool want_report = report_ != "0";
  const bool want_trace = !trace_.empty();
  // Both settings come from the environment, identical on every rank, so every rank joins.
  if (!want_report && !want_trace) return;
  comm::worker& w = worker();
  auto wait_request = [&](MPI_Request& req) {
    int done = 0;
    progress_->wait_until(w, [&] {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      return done != 0;
    });
  };

  // Rank 0's own writing may fail (full disk, I/O error); the error is kept, and once the trace
  // collective is done every rank throws it (so that no rank waits, and every rank says why).
  std::string problem;
  if (want_report) {
    std::vector<double> mine(f_count, 0.0);
    const progress::telemetry_totals t = progress_->totals();
    const energy_reading e = energy();
    const comm::op_totals ops = comm_->operation_totals();
    mine[f_wall] = elapsed();
    mine[f_cpu] = static_cast<double>(progress::process_cpu_ns()) * 1e-9;
    for (std::size_t s = 0; s < progress::wait_states; ++s) {
      mine[f_state_wall + s] = static_cast<double>(t.wall_ns[s]) * 1e-9;
      mine[f_state_cpu + s] = static_cast<double>(t.cpu_ns[s]) * 1e-9;
    }
    mine[f_waits] = static_cast<double>(t.waits);
    mine[f_wakeups] = static_cast<double>(t.wakeups);
    mine[f_blocks] = static_cast<double>(t.blocks);
    mine[f_mode_switches] = static_cast<double>(t.mode_switches);
    mine[f_dvfs_lowered] = static_cast<double>(t.dvfs_lowered);
    mine[f_dvfs_raised] = static_cast<double>(t.dvfs_raised);
    mine[f_low_cpu] = static_cast<double>(t.low_freq_cpu_ns) * 1e-9;
    mine[f_penalty] = static_cast<double>(t.penalty_ns) * 1e-9;
    mine[f_joules] = e.joules;
    mine[f_measured] = e.measured ? 1 : 0;
    mine[f_node_leader] = node_rank_ == 0 ? 1 : 0;
    mine[f_node_pus] = node_rank_ == 0 ? topology_->pus() : 0;
    mine[f_transitions] = static_cast<double>(actuator_->transition_count());
    for (std::size_t k = 0; k < comm::op_kinds; ++k) {
      mine[f_op_count + k] = static_cast<double>(ops.count[k]);
      mine[f_op_bytes + k] = static_cast<double>(ops.bytes[k]);
    }
    // Modules' sections follow the fixed fields (same keys on every rank).
    for (const auto& sec : sections_) {
      std::vector<double> v = sec.values();
      // A module bug, not a user error: say so, and keep the gather's widths equal.
      if (v.size() != sec.keys.size())
        std::fprintf(stderr, "gaea: report section '%s' gave %zu values for %zu keys\n",
                     sec.name.c_str(), v.size(), sec.keys.size());
      v.resize(sec.keys.size(), 0.0);
      mine.insert(mine.end(), v.begin(), v.end());
    }
    const std::size_t width = mine.size();
    std::vector<double> all(rank_ == 0 ? width * static_cast<std::size_t>(size_) : 0);
    MPI_Request req;
    MPI_Igather(mine.data(), static_cast<int>(width), MPI_DOUBLE, all.data(),
                static_cast<int>(width), MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
    wait_request(req);
    if (rank_ == 0) try {
        std::vector<double> sum(width, 0.0);
        double wall_max = 0, joules = 0, slowdown_max = 0;
        bool measured = e.measured;
        for (int r = 0; r < size_; ++r) {
          const double* v = all.data() + static_cast<std::size_t>(r) * width;
          for (std::size_t i = 0; i < width; ++i)
            sum[i] += v[i];
          wall_max = std::max(wall_max, v[f_wall]);
          slowdown_max = std::max(slowdown_max, v[f_wall] > 0 ? v[f_penalty] / v[f_wall] : 0.0);
          // A hardware meter covers the node: count it once per node. The model is per rank.
          if (!measured || v[f_node_leader] != 0) joules += v[f_joules];
        }
        const double budget = progress_->max_slowdown();
        const bool held = slowdown_max <= budget;
        nlohmann::json j;
        j["ranks"] = size_;
        j["nodes"] = nodes_;
        j["mode"] = std::string(progress::to_string(progress_->current_mode()));
        j["wall_s"] = wall_max;
        j["cpu_s"] = sum[f_cpu];
        j["cpu_per_rank_core_fraction"] = wall_max > 0 ? sum[f_cpu] / (wall_max * size_) : 0.0;
        j["hardware_threads"] = sum[f_node_pus];  // over all nodes
        j["cpu_fraction_of_hardware_threads"] =
            wall_max > 0 && sum[f_node_pus] > 0 ? sum[f_cpu] / (wall_max * sum[f_node_pus]) : 0.0;
        for (std::size_t s = 0; s < progress::wait_states; ++s) {
          const std::string name(progress::to_string(static_cast<progress::wait_state>(s)));
          j["wait_states"][name] = {{"wall_s", sum[f_state_wall + s]},
                                    {"cpu_s", sum[f_state_cpu + s]}};
        }
        j["waits"] = sum[f_waits];
        j["wakeups"] = sum[f_wakeups];
        j["blocks"] = sum[f_blocks];
        j["mode_switches"] = sum[f_mode_switches];
        j["dvfs"] = {{"actuator", std::string(actuator_->name())},
                     {"reason", dvfs_reason_},
                     {"lowered", sum[f_dvfs_lowered]},
                     {"raised", sum[f_dvfs_raised]},
                     {"transitions", sum[f_transitions]},
                     {"cpu_s_at_low_frequency", sum[f_low_cpu]}};
        j["energy"] = {{"joules", joules},
                       {"source", e.source},
                       {"kind", measured ? "measured" : "estimated"},
                       {"scope", e.scope},
                       {"meter_choice", meter_reason_}};
        j["slowdown"] = {{"estimated_max_rank", slowdown_max},
                         {"budget", budget},
                         {"held", held},
                         {"calibration", progress_->cal().describe()}};
        for (std::size_t k = 0; k < comm::op_kinds; ++k) {
          const std::string name(comm::to_string(static_cast<comm::op_kind>(k)));
          j["operations"][name] = {{"count", sum[f_op_count + k]}, {"bytes", sum[f_op_bytes + k]}};
        }
        std::string sections_text;
        for (std::size_t at = f_count; const auto& sec : sections_) {
          sections_text += "  " + sec.name + ":";
          for (std::size_t k = 0; k < sec.keys.size(); ++k, ++at) {
            j["sections"][sec.name][sec.keys[k]] = sum[at];
            if (sum[at] == 0) continue;
            char b[96];
            std::snprintf(b, sizeof b, " %s %.6g", sec.keys[k].c_str(), sum[at]);
            sections_text += b;
          }
          sections_text += "\n";
        }
        if (report_ == "1") {
          std::string line;
          for (std::size_t k = 0; k < comm::op_kinds; ++k) {
            char b[96];
            std::snprintf(b, sizeof b, "%s%s %.0f (%.1f MB)", line.empty() ? "" : ", ",
                          std::string(comm::to_string(static_cast<comm::op_kind>(k))).c_str(),
                          sum[f_op_count + k], sum[f_op_bytes + k] / 1e6);
            line += b;
          }
          const auto& sw = j["wait_states"];
          std::fprintf(
              stderr,
              "gaea report: %d ranks on %d node%s, %.3f s, mode %s\n"
              "  CPU %.3f s (%.1f%% of %.0f hardware threads' worth); waiting: spin %.3f s, "
              "sleep %.3f s, "
              "block %.3f s (wall, all threads)\n"
              "  waits %.0f, wake-ups %.0f, blocks %.0f, mode switches %.0f\n"
              "  DVFS %s: %.0f lowered, %.0f raised, %.3f CPU-s at low frequency\n"
              "  energy %.3f J (%s, %s: %s)\n"
              "  slowdown estimate %.2f%% (budget %.2f%%: %s)\n"
              "  operations: %s\n%s",
              size_, nodes_, nodes_ == 1 ? "" : "s", wall_max, j["mode"].get<std::string>().c_str(),
              sum[f_cpu], 100.0 * j["cpu_fraction_of_hardware_threads"].get<double>(),
              sum[f_node_pus], sw["spin"]["wall_s"].get<double>(),
              sw["sleep"]["wall_s"].get<double>(), sw["block"]["wall_s"].get<double>(),
              sum[f_waits], sum[f_wakeups], sum[f_blocks], sum[f_mode_switches],
              std::string(actuator_->name()).c_str(), sum[f_dvfs_lowered], sum[f_dvfs_raised],
              sum[f_low_cpu], joules, measured ? "measured" : "estimated", e.source.c_str(),
              e.scope.c_str(), 100 * slowdown_max, 100 * budget, held ? "held" : "exceeded",
              line.c_str(), sections_text.c_str());
        } else {
          write_json(report_, j);
        }
      } catch (const std::exception& ex) {
        problem = ex.what();
      }
  }

  if (want_trace) {
    std::uint64_t dropped = 0;
    const std::vector<progress::trace_sample> mine = progress_->trace(&dropped);
    const auto bytes = std::as_bytes(std::span(mine));
    const std::vector<std::byte> in(bytes.begin(), bytes.end());
    // Rank 0 writes: only it receives the others' traces (empty elsewhere).
    const auto all = comm::detail::gatherv(MPI_COMM_WORLD, in, 0, wait_request);
    if (rank_ == 0) try {
        // HDF5's own error dump would only repeat, less clearly, the error thrown here.
        H5E_auto2_t print = nullptr;
        void* print_data = nullptr;
        H5Eget_auto2(H5E_DEFAULT, &print, &print_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        struct restore_printing {
          H5E_auto2_t f;
          void* d;
          ~restore_printing() { H5Eset_auto2(H5E_DEFAULT, f, d); }
        } restore{print, print_data};
        output_file out(trace_, "GAEA_TRACE");
        // A full disk shows here, before HDF5 starts (a failed create leaves it in a state that
        // breaks its clean-up at exit): 26 bytes per sample, room for the metadata of each rank.
        std::uint64_t samples = 0;
        for (const auto& part : all)
          samples += part.size() / sizeof(progress::trace_sample);
        out.reserve(26 * samples + 16384 + 4096 * static_cast<std::uint64_t>(size_));
        out.close_for_name();  // HDF5 writes it by name
        h5_file h5{H5Fcreate(out.temporary().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)};
        if (h5.id < 0) throw error("GAEA_TRACE: cannot create '" + out.temporary().string() + "'");
        const hid_t file = h5.id;
        write_string_attr(file, "power_source",
                          "estimated (model: P_dyn * u * (f/f_max)^3 per thread)");
        write_string_attr(file, "states", "0 run, 1 spin, 2 sleep, 3 block");
        for (int r = 0; r < size_; ++r) {
          const auto& part = all[static_cast<std::size_t>(r)];
          std::vector<progress::trace_sample> s(part.size() / sizeof(progress::trace_sample));
          std::memcpy(s.data(), part.data(), s.size() * sizeof(progress::trace_sample));
          std::vector<double> t(s.size()), power(s.size());
          std::vector<std::int64_t> khz(s.size());
          std::vector<std::uint8_t> state(s.size()), thread(s.size());
          for (std::size_t i = 0; i < s.size(); ++i) {
            t[i] = static_cast<double>(s[i].t_ns - start_ns_) * 1e-9;
            khz[i] = s[i].khz == 0 ? model_.f_max_khz : s[i].khz;
            state[i] = s[i].state;
            thread[i] = s[i].thread;
            const double u = s[i].state <= static_cast<std::uint8_t>(progress::wait_state::spin);
            power[i] = energy::cpu_dynamic_power_w(model_, u, khz[i]);
          }
          const std::string name = "rank_" + std::to_string(r);
          const hid_t g = H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
          if (g < 0) throw error("GAEA_TRACE '" + trace_ + "': cannot create group " + name);
          struct group_closer {
            hid_t g;
            ~group_closer() { H5Gclose(g); }
          } closer{g};
          write_column(g, "t_s", H5T_NATIVE_DOUBLE, t);
          write_column(g, "state", H5T_NATIVE_UINT8, state);
          write_column(g, "thread", H5T_NATIVE_UINT8, thread);
          write_column(g, "khz", H5T_NATIVE_INT64, khz);
          write_column(g, "power_w", H5T_NATIVE_DOUBLE, power);
        }
        if (!h5.close()) throw error("GAEA_TRACE '" + trace_ + "': HDF5 failed to write the file");
        out.commit();
      } catch (const std::exception& ex) {
        problem += (problem.empty() ? "" : "; ") + std::string(ex.what());
      }
  }
  // Rank 0's verdict to every rank (collective: both settings are the same everywhere).
  const std::vector<char> mine(problem.begin(), problem.end());
  const auto verdict = comm::detail::broadcast(MPI_COMM_WORLD, mine, 0, wait_request);
  if (!verdict.empty())
    throw error("rank 0 could not write its output: " +
                std::string(verdict.begin(), verdict.end()));
}

}  // namespace gaea
