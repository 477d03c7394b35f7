// The set-up model of gaea/model/setup.hpp.
#include "gaea/model/setup.hpp"

#include <algorithm>
#include <string>

#include "gaea/base/error.hpp"

namespace gaea::model {

setup_cost predict_setup(const machine& m, const setup_case& c) {
  if (c.ranks < 1 || c.regions < 0 || c.workers < 1 || c.clique < 0 || c.clique > c.ranks - 1 ||
      c.key_cache < 0)
    throw error("gaea::model::predict_setup: ranks = " + std::to_string(c.ranks) + ", clique = " +
                std::to_string(c.clique) + ", regions = " + std::to_string(c.regions) +
                ", workers = " + std::to_string(c.workers) +
                ", key_cache = " + std::to_string(c.key_cache) +
                " (need ranks, workers >= 1, regions, key_cache >= 0, 0 <= clique <= ranks - 1)");
  const setup_params& s = m.setup;
  const auto peers = [&](connect_policy p) {
    return static_cast<double>(p == connect_policy::eager ? c.ranks - 1 : c.clique);
  };
  setup_cost out;
  const double ep = static_cast<double>(c.workers) * peers(c.endpoints);
  out.endpoint_bytes = ep * s.endpoint_bytes;
  out.endpoint_s = ep * s.endpoint_s;
  double keys = peers(c.keys);
  if (c.key_cache > 0) keys = std::min(keys, static_cast<double>(c.key_cache));
  const double regions = static_cast<double>(c.regions);
  out.key_bytes = regions * keys * s.rkey_bytes;
  const double exchange =
      c.keys == connect_policy::eager ? static_cast<double>(c.ranks) * s.exchange_s_per_rank : 0;
  out.region_s = regions * (s.region_s + exchange + keys * s.rkey_s);
  return out;
}

}  // namespace gaea::model
