#pragma once
// Internal to the runtime: what runtime.cpp needs from report.cpp, and what the two trace
// writers (report.cpp's HDF5 series, trace_export.cpp's JSON/OTF2) share.

#include <cstdint>
#include <string>
#include <vector>

#include "gaea/energy/model.hpp"
#include "gaea/progress/telemetry.hpp"

namespace gaea::detail {

// Checks, at runtime start-up and on every rank (before anything collective, so that every rank
// fails alike), that GAEA_REPORT (when it names a .json file) and GAEA_TRACE (when set) name
// files that can be written at finalize: a regular file or a new name, in an existing writable
// directory. Throws gaea::error naming the variable, the path and the reason. The directory must
// be visible to every rank (rank 0 writes the files).
void check_report_paths(const std::string& report, const std::string& trace);

// The program's command line: argv[0..argc) when both are given, else this process's
// /proc/self/cmdline (empty when it cannot be read).
std::vector<std::string> command_line(const int* argc, char* const* const* argv);

// A wait-state sample's frequency (0 in the sample means f_max) and the CPU's modelled dynamic
// power then: busy (run or spin) or idle (sleep or block) at that frequency.
struct sample_power {
  std::int64_t khz = 0;
  double power_w = 0;
};
inline sample_power modelled_power(const energy::model_params& model,
                                   const progress::trace_sample& s) {
  const std::int64_t khz = s.khz == 0 ? model.f_max_khz : s.khz;
  const double u = s.state <= static_cast<std::uint8_t>(progress::wait_state::spin);
  return {khz, energy::cpu_dynamic_power_w(model, u, khz)};
}

}  // namespace gaea::detail
