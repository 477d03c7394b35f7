#pragma once
// Internal to energy: the module's GAEA_* settings, declared in settings.cpp, read by the energy
// code that uses them (sysfs.cpp, throttle.cpp, meter.cpp, geopm_cli.cpp, model.cpp).

#include <string>

#include "gaea/base/env.hpp"

namespace gaea::energy::detail {

extern const env::setting<std::string> throttle_setting;    // GAEA_THROTTLE
extern const env::setting<std::string> sysfs_root_setting;  // GAEA_SYSFS_ROOT
extern const env::setting<std::string> meter_setting;       // GAEA_ENERGY_METER
extern const env::setting<std::string> geopm_bin_dir;       // GAEA_GEOPM_BIN_DIR
extern const env::setting<std::string> model_file;          // GAEA_ENERGY_MODEL

}  // namespace gaea::energy::detail
