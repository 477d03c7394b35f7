// The runtime's GAEA_* settings, read and validated at start-up before anything collective.

#include "detail/settings.hpp"

#include <string>

#include "detail/report.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/dense/blas.hpp"
#include "gaea/energy/actuator.hpp"
#include "gaea/energy/markup.hpp"
#include "gaea/energy/sysfs.hpp"
#include "gaea/energy/throttle.hpp"
#include "gaea/progress/settings.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea::detail {

namespace {
// The runtime's GAEA_* settings (gaea-info --env lists them with the other modules'). The
// energy backends' kinds are energy's lists; the runtime reads them to choose the backends.
const env::setting<std::string> bind_setting{
    {"GAEA_PROGRESS_BIND", "auto",
     "placement of the progress thread: auto (SMT sibling, else a spare core, else unpinned) | "
     "none",
     env::value_kind::choice, "auto|none", 0, "runtime"}};
const env::setting<std::string> shared_cores_setting{
    {"GAEA_SHARED_CORES", "auto",
     "whether other ranks share this rank's cores: auto (when a node's ranks outnumber its "
     "hardware threads) | yes (also when they look dedicated, e.g. other jobs or emulated "
     "hosts on the same CPUs: waits yield as on an oversubscribed node, as Open MPI's "
     "mpi_yield_when_idle) | no",
     env::value_kind::choice, "auto|yes|no", 0, "runtime"}};
const env::setting<std::string> dvfs_setting{
    {"GAEA_DVFS", "auto",
     "frequency actuator used around blocking sleeps and in collectives: auto (cpufreq if "
     "writable, else GEOPM's CPU_FREQUENCY_MAX_CONTROL through geopmwrite, else none) | cpufreq "
     "| geopm | simulated (records transitions for the energy model) | off (msr is accepted and "
     "gives none: clock modulation is GAEA_THROTTLE's)",
     env::value_kind::choice, "auto|cpufreq|geopm|msr|simulated|off", 0, "runtime"},
    energy::actuator_kinds};
const env::setting<std::string> manager_setting{
    {"GAEA_ENERGY_MANAGER", "auto",
     "who controls the frequency during waits: auto (when GEOPM's controller runs for the job, "
     "Gaea marks its waits as a GEOPM region and writes no frequency or duty itself; else "
     "Gaea's own DVFS and throttle) | geopm (markup whenever libgeopm loads) | own (Gaea's "
     "own DVFS and throttle)",
     env::value_kind::choice, "auto|geopm|own", 0, "runtime"},
    energy::manager_kinds};
const env::setting<std::string> geopm_library_setting{
    {"GAEA_GEOPM_LIBRARY",
     "",
     "GEOPM's runtime library for region markup (a path or a name for dlopen); empty = "
     "libgeopm.so.2, then libgeopm.so",
     env::value_kind::text,
     {},
     0,
     "runtime"}};
const env::setting<std::string> report_setting{
    {"GAEA_REPORT",
     "0",
     "0 = no report; 1 = rank 0 prints a progress/energy summary over all ranks at finalize; "
     "a file name ending in .json = write that summary as JSON",
     env::value_kind::report,
     {},
     0,
     "runtime"}};
const env::setting<std::string> trace_setting{
    {"GAEA_TRACE",
     "",
     "trace file written at finalize, format by name: *.json = Chrome trace JSON (Perfetto, "
     "chrome://tracing), *.otf2 = OTF2 archive (Vampir, otf2-print), any other name = HDF5 "
     "time series (wait states, frequency, modelled power); JSON and OTF2 also hold the "
     "application regions (get/put/acc, fence, counters, tasks, collectives, barrier) per rank "
     "and thread; empty = off",
     env::value_kind::text,
     {},
     0,
     "runtime"}};
const env::setting<std::int64_t> trace_events_setting{
    {"GAEA_TRACE_EVENTS",
     "1M",
     "bound of each thread's trace buffers (K/M/G): at most this many region/counter events "
     "and as many wait-state samples per thread; later ones are dropped and counted (in the "
     "file and on stderr)",
     env::value_kind::size,
     {},
     1,
     "runtime"}};
const env::setting<double> max_slowdown_setting{
    {"GAEA_MAX_SLOWDOWN",
     "0.02",
     "fraction of run time the auto policy may add in wake-up latency; past it auto spins "
     "longer. The report says whether it held",
     env::value_kind::fraction,
     {},
     0,
     "runtime"}};
const env::setting<std::int64_t> hang_timeout_setting{
    {"GAEA_HANG_TIMEOUT",
     "0",
     "seconds after which a Gaea wait (barrier, collective, remote operation) that has not "
     "completed becomes an error naming what it waited for, which ends the job; 0 = off",
     env::value_kind::seconds,
     {},
     0,
     "runtime"}};
const env::setting<std::int64_t> hang_warn_setting{
    {"GAEA_HANG_WARN",
     "60",
     "seconds after which a Gaea wait that has not completed prints one warning naming what it "
     "waits for and what the ranks it waits for are doing; the wait goes on (GAEA_HANG_TIMEOUT "
     "ends it); 0 = off",
     env::value_kind::seconds,
     {},
     0,
     "runtime"}};
const env::setting<bool> verbose_setting{
    {"GAEA_VERBOSE", "0",
     "1 = rank 0 prints the set-up at start (ranks, nodes, progress mode and placement, "
     "topology) "
     "to stderr; gaea-info prints every rank's",
     env::value_kind::choice, "0|1", 0, "runtime"}};
}  // namespace

runtime_settings read_runtime_settings() {
  runtime_settings s;
  env::check_all();  // every set GAEA_* variable: known name, valid value
  s.mode = progress::mode_from_env();
  s.fixed_step = progress::fixed_step_params::from_env();
  s.max_slowdown = max_slowdown_setting.read();
  s.dvfs_kind = dvfs_setting.read();
  s.throttle_kind = energy::throttle_kind_from_env();
  s.manager_kind = manager_setting.read();
  s.report = report_setting.read();
  s.trace = trace_setting.read();
  check_report_paths(s.report, s.trace);
  s.trace_events = static_cast<std::uint64_t>(trace_events_setting.read());
  // The recorder's session: thread registration for every format (the wait-state samples carry
  // the thread's index), regions and counters only for the formats that hold them.
  if (!s.trace.empty())
    trace::start(s.trace_events, trace::format_of(s.trace) != trace::format::hdf5);
  else
    trace::stop();
  s.sysfs = energy::sysfs_root();
  s.model = energy::model_params::from_env(s.sysfs);
  s.bind = bind_setting.read();
  s.shared_cores = shared_cores_setting.read();
  s.verbose = verbose_setting.read();
  // One BLAS thread per rank unless asked (gaea/dense/blas.hpp): ranks fill the cores already.
  dense::apply_blas_threads_setting();
  s.hang_timeout_ns = hang_timeout_setting.read() * 1'000'000'000;  // at most 1e9 s: checked
  s.hang_warn_ns = hang_warn_setting.read() * 1'000'000'000;
  s.transport = comm::config::from_env();
  // Read with the other settings, used by make_markup after MPI starts.
  s.geopm_library = geopm_library_setting.read();
  return s;
}

}  // namespace gaea::detail
