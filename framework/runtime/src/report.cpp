// GAEA_REPORT and GAEA_TRACE at finalize: every rank's telemetry, operations and energy are
// gathered to rank 0 (measures as doubles, counts as int64), which prints a summary or writes it
// as JSON (built in report_summary.cpp), and writes the time series to HDF5. Files are written
// through gaea::output_file (a temporary beside the target, renamed once complete); their paths are
// checked at start-up (check_report_paths()).
#include "detail/report.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "detail/report_summary.hpp"
#include "detail/runtime_state.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/slurm.hpp"
#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/detail/hdf5.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea {

namespace {
void write_json(const std::string& file, const nlohmann::json& j) {
  output_file out(file, "GAEA_REPORT");
  out.write(j.dump(2) + "\n");
  out.commit();
}

template <class T>
void write_column(hid_t group, const char* name, hid_t type, const std::vector<T>& v) {
  const hsize_t n = v.size();
  const detail::h5_handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  const detail::h5_handle set(
      H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if (!set.ok() ||
      (n > 0 && H5Dwrite(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0))
    throw error(std::string("GAEA_TRACE: cannot write dataset ") + name);
}

void write_uint_attr(hid_t obj, const char* name, std::uint64_t value) {
  const detail::h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const detail::h5_handle a(
      H5Acreate2(obj, name, H5T_NATIVE_UINT64, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(a.get(), H5T_NATIVE_UINT64, &value);
}

void write_string_attr(hid_t obj, const char* name, const std::string& value) {
  const detail::h5_handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  const detail::h5_handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const detail::h5_handle a(
      H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  H5Awrite(a.get(), type.get(), value.c_str());
}
}  // namespace

void detail::check_report_paths(const std::string& report, const std::string& trace) {
  const bool report_file = report != "0" && report != "1";
  if (report_file) check_output_path(report, "GAEA_REPORT");
  if (!trace.empty()) trace::check_target(trace, "GAEA_TRACE");
  // One file written twice at finalize: the second writer would replace the first's output.
  if (report_file && !trace.empty()) {
    namespace fs = std::filesystem;
    auto resolved = [](const std::string& p) {
      std::error_code ec;
      fs::path c = fs::weakly_canonical(p, ec);
      return ec ? fs::absolute(p, ec).lexically_normal() : c;
    };
    std::error_code ec;
    const bool same = resolved(report) == resolved(trace) || fs::equivalent(report, trace, ec);
    if (same)
      throw error("GAEA_REPORT='" + report + "' and GAEA_TRACE='" + trace +
                  "' name the same file: the trace would replace the report; give them different "
                  "names");
  }
}

std::vector<std::string> detail::command_line(const int* argc, char* const* const* argv) {
  std::vector<std::string> out;
  if (argc && argv && *argv) {
    for (int i = 0; i < *argc && (*argv)[i]; ++i)
      out.emplace_back((*argv)[i]);
    return out;
  }
  // No argv given (gaea::runtime()): the kernel's copy, arguments separated by NUL bytes.
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  for (std::string arg; std::getline(in, arg, '\0');)
    out.push_back(arg);
  return out;
}

void runtime::write_report_and_trace() {
  const bool want_report = st_->cfg.report != "0";
  const bool want_trace = !st_->cfg.trace.empty();
  // Both settings come from the environment, identical on every rank, so every rank joins.
  if (!want_report && !want_trace) return;
  const auto wait_request = [this](MPI_Request& req) { st_->wait_mpi(req); };

  // Rank 0's own writing may fail (full disk, I/O error); the error is kept, and once the trace
  // collective is done every rank throws it (so that no rank waits, and every rank says why).
  std::string problem;
  if (want_report) {
    // The interval's end, read first: CPU and wall time over the same span (report_start_*).
    std::vector<std::int64_t> counts(detail::i_fixed, 0);
    counts[detail::i_end_ns] = gaea::monotonic_ns();
    const std::int64_t cpu_ns = gaea::process_cpu_ns() - st_->report_start_cpu_ns;
    counts[detail::i_start_ns] = st_->report_start_ns;
    std::vector<double> mine(detail::r_fixed, 0.0);
    const progress::telemetry_totals t = progress_->totals();
    const energy_reading e = energy();
    const comm::op_totals ops = comm_->operation_totals();
    mine[detail::r_cpu] = static_cast<double>(cpu_ns) * 1e-9;
    for (std::size_t s = 0; s < progress::wait_states; ++s) {
      mine[detail::r_state_wall + s] = static_cast<double>(t.wall_ns[s]) * 1e-9;
      mine[detail::r_state_cpu + s] = static_cast<double>(t.cpu_ns[s]) * 1e-9;
    }
    mine[detail::r_low_cpu] = static_cast<double>(t.low_freq_cpu_ns) * 1e-9;
    mine[detail::r_penalty] = static_cast<double>(t.penalty_ns) * 1e-9;
    mine[detail::r_joules] = e.joules;
    auto as_count = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
    counts[detail::i_node] = node_id_;
    counts[detail::i_node_leader] = node_rank_ == 0 ? 1 : 0;
    counts[detail::i_node_pus] = node_rank_ == 0 ? st_->where.topo->pus() : 0;
    counts[detail::i_measured] = e.measured ? 1 : 0;
    counts[detail::i_waits] = as_count(t.waits);
    counts[detail::i_wakeups] = as_count(t.wakeups);
    counts[detail::i_blocks] = as_count(t.blocks);
    counts[detail::i_mode_switches] = as_count(t.mode_switches);
    counts[detail::i_dvfs_lowered] = as_count(t.dvfs_lowered);
    counts[detail::i_dvfs_raised] = as_count(t.dvfs_raised);
    counts[detail::i_transitions] = as_count(st_->energy->actuator->transition_count());
    for (std::size_t k = 0; k < comm::op_kinds; ++k) {
      counts[detail::i_op_count + k] = as_count(ops.count[k]);
      counts[detail::i_op_bytes + k] = as_count(ops.bytes[k]);
    }
    // Modules' sections follow the fixed measures (same keys on every rank).
    for (const auto& sec : st_->sections) {
      std::vector<double> v = sec.values();
      // A module bug, not a user error: say so, and keep the gather's widths equal.
      if (v.size() != sec.keys.size())
        std::fprintf(stderr, "gaea: report section '%s' gave %zu values for %zu keys\n",
                     sec.name.c_str(), v.size(), sec.keys.size());
      v.resize(sec.keys.size(), 0.0);
      mine.insert(mine.end(), v.begin(), v.end());
    }
    const std::size_t width = mine.size();
    const auto ranks = static_cast<std::size_t>(size_);
    std::vector<double> all(rank_ == 0 ? width * ranks : 0);
    std::vector<std::int64_t> all_counts(rank_ == 0 ? detail::i_fixed * ranks : 0);
    MPI_Request req[2];
    MPI_Igather(mine.data(), static_cast<int>(width), MPI_DOUBLE, all.data(),
                static_cast<int>(width), MPI_DOUBLE, 0, runtime_communicator(), &req[0]);
    MPI_Igather(counts.data(), static_cast<int>(detail::i_fixed), MPI_INT64_T, all_counts.data(),
                static_cast<int>(detail::i_fixed), MPI_INT64_T, 0, runtime_communicator(), &req[1]);
    wait_request(req[0]);
    wait_request(req[1]);
    if (rank_ == 0) try {
        detail::report_context ctx;
        ctx.ranks = size_;
        ctx.nodes = nodes_;
        ctx.hosts.resize(static_cast<std::size_t>(nodes_));
        for (std::size_t r = 0; r < ranks; ++r) {
          const std::int64_t* c = all_counts.data() + r * detail::i_fixed;
          if (c[detail::i_node_leader] != 0 && c[detail::i_node] >= 0 && c[detail::i_node] < nodes_)
            ctx.hosts[static_cast<std::size_t>(c[detail::i_node])] =
                comm_->host(static_cast<int>(r));
        }
        ctx.mode = std::string(progress::to_string(progress_->current_mode()));
        ctx.command_line = st_->command_line;
        ctx.start_unix_ms = st_->report_start_unix_ms;
        ctx.actuator = std::string(st_->energy->actuator->name());
        ctx.dvfs_reason = st_->energy->dvfs_reason;
        ctx.energy_mode = energy_mode();
        ctx.markup_reason = st_->energy->markup_reason;
        ctx.markup_regions = st_->energy->markup->entered();
        ctx.throttle = std::string(st_->energy->throttle->name());
        ctx.throttle_reason = st_->energy->throttle_reason;
        ctx.throttle_refusal = st_->energy->throttle->refusal();
        ctx.energy_source = e.source;
        ctx.energy_scope = e.scope;
        ctx.meter_reason = st_->energy->meter_reason();
        if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job)
          ctx.slurm_energy = energy::slurm_energy_note(job);
        ctx.max_slowdown = progress_->max_slowdown();
        ctx.calibration = progress_->cal().describe();
        for (const auto& sec : st_->sections)
          ctx.sections.push_back({sec.name, sec.keys});
        const detail::report_summary summary = detail::summarize_report(ctx, all, all_counts);
        if (st_->cfg.report == "1")
          std::fputs(summary.text.c_str(), stderr);
        else
          write_json(st_->cfg.report, summary.json);
      } catch (const std::exception& ex) {
        problem = ex.what();
      }
  }

  if (want_trace && trace::format_of(st_->cfg.trace) != trace::format::hdf5) {
    const std::string why = write_event_trace();
    if (!why.empty()) problem += (problem.empty() ? "" : "; ") + why;
  } else if (want_trace) {
    std::uint64_t dropped = 0;
    const std::vector<progress::trace_sample> mine = progress_->trace(&dropped);
    const auto bytes = std::as_bytes(std::span(mine));
    const std::vector<std::byte> in(bytes.begin(), bytes.end());
    // Rank 0 writes: only it receives the others' traces (empty elsewhere).
    const auto all = comm::detail::gatherv(runtime_communicator(), in, 0, wait_request);
    std::vector<std::uint64_t> all_dropped(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    {
      MPI_Request req;
      MPI_Igather(&dropped, 1, MPI_UINT64_T, all_dropped.data(), 1, MPI_UINT64_T, 0,
                  runtime_communicator(), &req);
      wait_request(req);
    }
    if (rank_ == 0) try {
        // HDF5's own error dump would only repeat, less clearly, the error thrown here.
        const detail::h5_quiet quiet;
        output_file out(st_->cfg.trace, "GAEA_TRACE");
        // A full disk shows here, before HDF5 starts (a failed create leaves it in a state that
        // breaks its clean-up at exit): 26 bytes per sample, room for the metadata of each rank.
        std::uint64_t samples = 0;
        for (const auto& part : all)
          samples += part.size() / sizeof(progress::trace_sample);
        out.reserve(26 * samples + 16384 + 4096 * static_cast<std::uint64_t>(size_));
        out.close_for_name();  // HDF5 writes it by name
        // Closed on every path; reset() says whether HDF5 could flush it.
        detail::h5_handle h5(
            H5Fcreate(out.temporary().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!h5.ok()) throw error("GAEA_TRACE: cannot create '" + out.temporary().string() + "'");
        const hid_t file = h5.get();
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
            t[i] = static_cast<double>(s[i].t_ns - st_->start_ns) * 1e-9;
            const detail::sample_power p = detail::modelled_power(st_->energy->model, s[i]);
            khz[i] = p.khz;
            power[i] = p.power_w;
            state[i] = s[i].state;
            thread[i] = s[i].thread;
          }
          const std::string name = "rank_" + std::to_string(r);
          const detail::h5_handle group(
              H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
          if (!group.ok())
            throw error("GAEA_TRACE '" + st_->cfg.trace + "': cannot create group " + name);
          const hid_t g = group.get();
          write_column(g, "t_s", H5T_NATIVE_DOUBLE, t);
          write_column(g, "state", H5T_NATIVE_UINT8, state);
          write_column(g, "thread", H5T_NATIVE_UINT8, thread);
          write_column(g, "khz", H5T_NATIVE_INT64, khz);
          write_column(g, "power_w", H5T_NATIVE_DOUBLE, power);
          write_uint_attr(g, "dropped_samples", all_dropped[static_cast<std::size_t>(r)]);
        }
        if (!h5.reset())
          throw error("GAEA_TRACE '" + st_->cfg.trace + "': HDF5 failed to write the file");
        out.commit();
        std::uint64_t lost = 0;
        for (const std::uint64_t d : all_dropped)
          lost += d;
        if (lost > 0)
          std::fprintf(stderr,
                       "gaea: GAEA_TRACE: %llu wait-state samples were dropped (each thread keeps "
                       "at most GAEA_TRACE_EVENTS=%llu); the trace holds the earlier ones\n",
                       static_cast<unsigned long long>(lost),
                       static_cast<unsigned long long>(st_->cfg.trace_events));
      } catch (const std::exception& ex) {
        problem += (problem.empty() ? "" : "; ") + std::string(ex.what());
      }
  }
  // Rank 0's verdict to every rank (collective: both settings are the same everywhere).
  const std::vector<char> mine(problem.begin(), problem.end());
  const auto verdict = comm::detail::broadcast(runtime_communicator(), mine, 0, wait_request);
  if (!verdict.empty())
    throw error("rank 0 could not write its output: " +
                std::string(verdict.begin(), verdict.end()));
}

}  // namespace gaea
