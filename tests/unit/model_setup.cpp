// gaea::model::predict_setup: the space/time attributes of [PGAS-BGQ eq. 3-6] for Gaea's designs.
#include <catch2/catch.hpp>

#include "gaea/base/error.hpp"
#include "gaea/model/setup.hpp"

using namespace gaea::model;

TEST_CASE("eager connections grow with P per rank, first-use ones with the clique") {
  machine m;
  m.setup = {1000, 10e-6, 100, 1e-6, 50e-6, 0.5e-6};
  setup_case c;
  c.ranks = 4096;
  c.clique = 4095;
  c.regions = 10;
  c.workers = 2;
  const setup_cost eager = predict_setup(m, c);
  CHECK(eager.endpoint_bytes == Approx(2 * 4095 * 1000.0));
  CHECK(eager.endpoint_s == Approx(2 * 4095 * 10e-6));
  CHECK(eager.key_bytes == Approx(10 * 4095 * 100.0));
  CHECK(eager.region_s == Approx(10 * (50e-6 + 4096 * 0.5e-6 + 4095 * 1e-6)));
  c.endpoints = c.keys = connect_policy::first_use;
  c.clique = 8;
  const setup_cost near = predict_setup(m, c);
  CHECK(near.endpoint_bytes == Approx(2 * 8 * 1000.0));
  CHECK(near.key_bytes == Approx(10 * 8 * 100.0));
  CHECK(near.region_s == Approx(10 * (50e-6 + 8 * 1e-6)));
  // Talking to everyone, first use saves nothing in the end; a key cache bounds the keys.
  c.clique = 4095;
  CHECK(predict_setup(m, c).bytes() == Approx(eager.bytes()));
  c.key_cache = 256;
  CHECK(predict_setup(m, c).key_bytes == Approx(10 * 256 * 100.0));
  c.clique = 4096;
  CHECK_THROWS_WITH(predict_setup(m, c), Catch::Contains("clique = 4096"));
}
