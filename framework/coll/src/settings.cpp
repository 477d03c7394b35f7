// Reading the GAEA_COLL_* settings from the environment, once per runtime.

#include "detail/settings.hpp"

#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"

namespace gaea::coll::detail {

namespace {
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
  if (auto v = env::raw("GAEA_COLL_ALGO")) {
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
  const std::int64_t chunk = env::get_int("GAEA_COLL_CHUNK");
  if (chunk <= 0)
    throw error("GAEA_COLL_CHUNK=" + std::to_string(chunk) + ": the chunk must be positive");
  s.chunk = static_cast<std::size_t>(chunk);
  const std::int64_t shm = env::get_int("GAEA_COLL_SHM_BYTES");
  if (shm != 0 && shm < 4096)
    throw error("GAEA_COLL_SHM_BYTES=" + std::to_string(shm) +
                ": 0 (no shared memory) or at least 4096 bytes");
  s.shm_bytes = static_cast<std::size_t>(shm) / 64 * 64;
  s.shm_single_copy = static_cast<std::size_t>(env::get_int("GAEA_COLL_SHM_SINGLE_COPY"));
  s.shm_single_copy_set = env::raw("GAEA_COLL_SHM_SINGLE_COPY").has_value();
  s.energy = env::get_enum<energy_mode>("GAEA_COLL_ENERGY");
  s.check = env::get_choice("GAEA_COLL_CHECK", {"0", "1"}) == "1";
  s.calibration = env::get_string("GAEA_COLL_CALIBRATION");
  return s;
}

}  // namespace gaea::coll::detail
