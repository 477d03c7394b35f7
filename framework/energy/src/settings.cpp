// The energy module's GAEA_* settings (gaea-info --env lists them with the other modules').

#include "detail/settings.hpp"

#include "gaea/energy/meter.hpp"
#include "gaea/energy/throttle.hpp"

namespace gaea::energy::detail {

const env::setting<std::string> throttle_setting{
    {"GAEA_THROTTLE", "auto",
     "clock-modulation throttle (T0..T7) used by the collectives' energy strategy: auto (MSR "
     "IA32_CLOCK_MODULATION if writable, else none) | msr | simulated (records transitions "
     "for the energy model) | off",
     env::value_kind::choice, "auto|msr|simulated|off", 0, "energy"},
    throttle_kinds};
const env::setting<std::string> sysfs_root_setting{
    {"GAEA_SYSFS_ROOT",
     "/",
     "root under which /sys and /dev are looked up (tests point it at fake trees)",
     env::value_kind::text,
     {},
     0,
     "energy"}};
const env::setting<std::string> meter_setting{
    {"GAEA_ENERGY_METER", "auto",
     "energy meter: auto (RAPL powercap, then perf power events, then RAPL through msr-safe, "
     "then GEOPM's CPU_ENERGY, each used only after it proves it works, else the model) | rapl | "
     "perf | msr-safe | geopm | model",
     env::value_kind::choice, "auto|rapl|perf|msr-safe|geopm|model", 0, "energy"},
    meter_kinds};
const env::setting<std::string> geopm_bin_dir{
    {"GAEA_GEOPM_BIN_DIR",
     "",
     "directory holding GEOPM's geopmread and geopmwrite (the GEOPM meter and DVFS backend); "
     "empty = found on PATH",
     env::value_kind::text,
     {},
     0,
     "energy"}};
const env::setting<std::string> model_file{
    {"GAEA_ENERGY_MODEL",
     "",
     "JSON file with the power-model parameters (see framework/energy/README.md); empty = "
     "documented defaults",
     env::value_kind::text,
     {},
     0,
     "energy"}};

}  // namespace gaea::energy::detail
