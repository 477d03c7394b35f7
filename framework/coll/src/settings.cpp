// Reading the GAEA_COLL_* settings from the environment, once per runtime.

#include "detail/settings.hpp"

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

namespace gaea::coll::detail {

namespace {
// The collectives' GAEA_* settings (gaea-info --env lists them with the other modules').
const env::setting<std::string> algo_setting{
    {"GAEA_COLL_ALGO",
     "",
     "algorithm per collective, overriding the estimator: comma-separated operation=algorithm "
     "(operations barrier|broadcast|reduce|allreduce|allgather|alltoall|gather|scatter; "
     "algorithms dissemination|binomial|linear|scatter_allgather|chain|recursive_doubling|ring|"
     "hierarchical|bruck|pairwise|send_recv|shm|hybrid_scatter_allgather|hybrid_chain), e.g. "
     "alltoall=bruck,broadcast=chain",
     env::value_kind::text,
     {},
     0,
     "coll"}};
const env::setting<std::int64_t> chunk_setting{
    {"GAEA_COLL_CHUNK",
     "64K",
     "pipeline chunk of the chain broadcast in bytes (K/M/G)",
     env::value_kind::size,
     {},
     1,
     "coll"}};
const env::setting<std::int64_t> shm_bytes_setting{
    {"GAEA_COLL_SHM_BYTES",
     "128K",
     "collectives of groups within one node go through shared memory (algorithm shm): each "
     "member's two buffers of this many bytes (K/M/G; rounded down to 64); 0 = never (message "
     "algorithms only)",
     env::value_kind::size,
     {},
     0,
     "coll"}};
const env::setting<std::int64_t> single_copy_setting{
    {"GAEA_COLL_SHM_SINGLE_COPY",
     "32K",
     "shared-memory broadcasts, allgathers/gathers, alltoalls and allreduces (up to 2 MiB) "
     "of at least this many bytes per part copy straight between the members' buffers "
     "(process_vm_readv/writev, where the kernel allows it between the members) instead of "
     "through the region (K/M/G); 0 = never. Unless set, off where a node's ranks outnumber "
     "its hardware threads",
     env::value_kind::size,
     {},
     0,
     "coll"}};
const env::setting<energy_mode> energy_setting{
    {"GAEA_COLL_ENERGY", "auto",
     "per-call energy strategy of the collectives (lowest frequency for the call, throttling "
     "by step): auto (on where a hardware DVFS or throttle actuator is writable, for calls whose "
     "transitions add at most GAEA_MAX_SLOWDOWN of their predicted time) | on | off",
     env::value_kind::choice, "auto|on|off", 0, "coll"}};
const env::setting<bool> check_setting{
    {"GAEA_COLL_CHECK", "0",
     "1 = every collective first agrees on its arguments (one small allreduce), so that "
     "mismatched calls fail on every member; 0 = mismatches are found by the members that "
     "exchange data",
     env::value_kind::choice, "0|1", 0, "coll"}};
const env::setting<std::string> calibration_setting{
    {"GAEA_COLL_CALIBRATION",
     "",
     "calibration file (JSON, from gaea-coll-calibrate) of the collectives' time and power "
     "model; empty = documented defaults",
     env::value_kind::text,
     {},
     0,
     "coll"}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}
}  // namespace

settings settings::from_env() {
  settings s;
  if (auto v = algo_setting.raw()) {
    std::string_view rest = *v;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = trim(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (item.empty()) continue;
      const std::size_t eq = item.find('=');
      const auto op = parse_operation(trim(item.substr(0, eq)));
      const auto algo = eq == std::string_view::npos ? std::optional<algorithm>{}
                                                     : parse_algorithm(trim(item.substr(eq + 1)));
      if (!op || !algo || !implements(*algo, *op))
        throw error("GAEA_COLL_ALGO='" + *v + "': '" + std::string(item) +
                    "' is not operation=algorithm with an algorithm of that operation "
                    "(e.g. alltoall=bruck,broadcast=chain; see framework/coll/README.md)");
      s.algo[static_cast<std::size_t>(*op)] = *algo;
    }
  }
  s.chunk = static_cast<std::size_t>(chunk_setting.read());  // at least 1: checked by the setting
  const std::int64_t shm = shm_bytes_setting.read();
  if (shm != 0 && shm < 4096)
    throw error("GAEA_COLL_SHM_BYTES=" + std::to_string(shm) +
                ": 0 (no shared memory) or at least 4096 bytes");
  s.shm_bytes = static_cast<std::size_t>(shm) / 64 * 64;
  s.shm_single_copy = static_cast<std::size_t>(single_copy_setting.read());
  s.shm_single_copy_set = single_copy_setting.raw().has_value();
  s.energy = energy_setting.read();
  s.check = check_setting.read();
  s.calibration = calibration_setting.read();
  return s;
}

// Called by gaea::gaea's gaea_settings_anchor.cpp so that every program loads this module and
// so registers its settings (cmake/gaea_settings_anchor.cpp says why).
void link_settings() noexcept {}

}  // namespace gaea::coll::detail
