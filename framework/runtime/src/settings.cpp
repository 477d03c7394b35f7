// The runtime's GAEA_* settings, read and validated at start-up before anything collective.

#include "detail/settings.hpp"

#include <exception>
#include <string>

#include "detail/report.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/dense/blas.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/meter.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea::detail {

namespace {
double parse_slowdown() {
  const std::string text = env::get_string("GAEA_MAX_SLOWDOWN");
  double v = -1;
  try {
    std::size_t pos = 0;
    v = std::stod(text, &pos);
    if (pos != text.size()) v = -1;
  } catch (const std::exception&) {  // not a number: the range check below reports it
  }
  if (!(v > 0 && v < 1))
    throw error("environment variable GAEA_MAX_SLOWDOWN='" + text +
                "' must be a fraction in (0, 1), e.g. 0.02 for 2%");
  return v;
}
}  // namespace

runtime_settings read_runtime_settings() {
  runtime_settings s;
  env::check_all();  // every set GAEA_* variable: known name, valid value
  s.mode = env::get_enum<progress::mode>("GAEA_PROGRESS");
  s.fixed_step = progress::fixed_step_params::from_env();
  s.max_slowdown = parse_slowdown();
  s.dvfs_kind =
      env::get_choice("GAEA_DVFS", {energy::actuator_kinds.begin(), energy::actuator_kinds.end()});
  s.throttle_kind = energy::throttle_kind_from_env();
  s.manager_kind = env::get_choice("GAEA_ENERGY_MANAGER",
                                   {energy::manager_kinds.begin(), energy::manager_kinds.end()});
  env::get_choice("GAEA_ENERGY_METER", {energy::meter_kinds.begin(), energy::meter_kinds.end()});
  s.report = env::get_string("GAEA_REPORT");
  if (s.report != "0" && s.report != "1" && !s.report.ends_with(".json"))
    throw error("environment variable GAEA_REPORT='" + s.report +
                "' must be 0, 1 or a file name ending in .json");
  s.trace = env::get_string("GAEA_TRACE");
  check_report_paths(s.report, s.trace);
  s.trace_events = static_cast<std::uint64_t>(env::get_int("GAEA_TRACE_EVENTS"));
  // The recorder's session: thread registration for every format (the wait-state samples carry
  // the thread's index), regions and counters only for the formats that hold them.
  if (!s.trace.empty())
    trace::start(s.trace_events, trace::format_of(s.trace) != trace::format::hdf5);
  else
    trace::stop();
  s.sysfs = energy::sysfs_root();
  s.model = energy::model_params::from_env(s.sysfs);
  s.bind = env::get_choice("GAEA_PROGRESS_BIND", {"auto", "none"});
  s.shared_cores = env::get_choice("GAEA_SHARED_CORES", {"auto", "yes", "no"});
  s.verbose = env::get_int("GAEA_VERBOSE") != 0;
  // One BLAS thread per rank unless asked (gaea/dense/blas.hpp): ranks fill the cores already.
  dense::apply_blas_threads_setting();
  const std::int64_t hang_timeout_s = env::get_int("GAEA_HANG_TIMEOUT");
  if (hang_timeout_s < 0 || hang_timeout_s > 1'000'000'000)
    throw error("environment variable GAEA_HANG_TIMEOUT='" + env::get_string("GAEA_HANG_TIMEOUT") +
                "' must be a number of seconds >= 0 (0 = off)");
  s.hang_timeout_ns = hang_timeout_s * 1'000'000'000;
  s.hang_warn_ns = env::get_int("GAEA_HANG_WARN") * 1'000'000'000;  // checked by check_all()
  s.transport = comm::config::from_env();
  // Read with the other settings, used by make_markup after MPI starts.
  s.geopm_library = env::get_string("GAEA_GEOPM_LIBRARY");
  return s;
}

}  // namespace gaea::detail
