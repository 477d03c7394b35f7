#pragma once
// Internal to the runtime: every GAEA_* setting the runtime itself reads, read and validated at
// once at start-up (settings.cpp), before anything collective.

#include <cstdint>
#include <filesystem>
#include <string>

#include "gaea/comm/types.hpp"
#include "gaea/energy/model.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/progress/fixed_step.hpp"

namespace gaea::detail {

struct runtime_settings {
  progress::mode mode{};                   // GAEA_PROGRESS
  progress::fixed_step_params fixed_step;  // GAEA_ADAPTIVE_FIXED_*
  double max_slowdown = 0;                 // GAEA_MAX_SLOWDOWN
  std::string dvfs_kind;                   // GAEA_DVFS
  std::string throttle_kind;               // GAEA_THROTTLE
  std::string manager_kind;                // GAEA_ENERGY_MANAGER
  std::string geopm_library;               // GAEA_GEOPM_LIBRARY
  std::string report;                      // GAEA_REPORT: "0", "1" or a .json file
  std::string trace;                       // GAEA_TRACE: "" or a file
  std::uint64_t trace_events = 0;          // GAEA_TRACE_EVENTS
  std::filesystem::path sysfs;             // energy::sysfs_root()
  energy::model_params model;              // the energy model of this node
  std::string bind;                        // GAEA_PROGRESS_BIND: "auto" or "none"
  std::string shared_cores;                // GAEA_SHARED_CORES: "auto", "yes" or "no"
  bool verbose = false;                    // GAEA_VERBOSE
  std::int64_t hang_timeout_ns = 0;        // GAEA_HANG_TIMEOUT (0: off)
  std::int64_t hang_warn_ns = 0;           // GAEA_HANG_WARN (0: off)
  comm::config transport;                  // GAEA_MAX_TRANSFER, GAEA_RKEY_*, ...
};

// Checks every set GAEA_* variable (env::check_all) and reads the runtime's own, throwing
// gaea::error on the first bad value. Also starts or stops the trace recorder's session and
// applies the BLAS thread setting, as both depend on settings read here only. Local: every rank
// reads its own environment, the same everywhere, so a bad value fails on every rank alike.
runtime_settings read_runtime_settings();

}  // namespace gaea::detail
