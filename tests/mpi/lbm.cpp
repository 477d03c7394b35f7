// The lattice Boltzmann mini-app. Fields are bit-identical whatever the decomposition
// (all ranks vs everything on rank 0), and a restart continues exactly, also on another
// decomposition. The validations are in lbm_validation.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "cases.hpp"
#include "gaea/ga/global_array.hpp"
#include "lattice.hpp"
#include "mask.hpp"
#include "snapshot.hpp"
#include "solver.hpp"
#include "test_support.hpp"

using namespace gaea;
using namespace lbm;
using Catch::Matchers::Contains;
using gaea::test::rt;

namespace {

// Every boundary kind at once: velocity inlet, pressure outlet, resting wall, moving lid, solid
// cells that straddle tile edges, and a body force.
config mixed() {
  config c;
  c.name = "mixed";
  c.nx = 30;
  c.ny = 22;
  c.tau = 0.7;
  c.fy = -2e-6;
  c.sides[left] = {side_kind::velocity, 0.04, 0.0, 1.0};
  c.sides[right] = {side_kind::pressure, 0.0, 0.0, 1.0};
  c.sides[bottom] = {side_kind::wall, 0, 0, 1};
  c.sides[top] = {side_kind::velocity, 0.05, 0.0, 1.0};
  c.solid.assign(static_cast<std::size_t>(c.nx * c.ny), 0);
  for (index_t y = 8; y < 14; ++y)
    for (index_t x = 12; x < 17; ++x)
      c.solid[static_cast<std::size_t>(y * c.nx + x)] = 1;
  c.solid[static_cast<std::size_t>(3 * c.nx + 3)] = 1;
  return c;
}

// Periodic both ways with a force and an obstacle: every ghost region wraps.
config periodic() {
  config c;
  c.name = "periodic";
  c.nx = 26;
  c.ny = 18;
  c.tau = 0.9;
  c.fx = 1e-5;
  c.fy = 3e-6;
  for (auto& s : c.sides)
    s.kind = side_kind::periodic;
  c.solid.assign(static_cast<std::size_t>(c.nx * c.ny), 0);
  for (index_t y = 0; y < 5; ++y)  // touches the bottom edge: wraps onto the top row
    c.solid[static_cast<std::size_t>(y * c.nx + 25)] = 1;
  return c;
}

// periodic() only 7 rows high: split over y, tiles are 1 to 4 rows high, so the overlapped step's
// interior is empty or one row and its strip is most of the tile.
config thin() {
  config c = periodic();
  c.name = "thin";
  c.ny = 7;
  c.solid.resize(static_cast<std::size_t>(c.nx * c.ny));
  return c;
}

std::vector<double> whole(solver& s) {
  const config& c = s.problem();
  std::vector<double> v(static_cast<std::size_t>(9 * c.ny * c.nx));
  s.populations().sync();  // every rank has finished its last step
  s.populations().get({{0, 0, 0}, {8, c.ny - 1, c.nx - 1}}, v);
  return v;
}

// A directory all ranks agree on.
std::string shared_tmpdir(const char* tag) {
  const auto pids = gaea::test::allgather(static_cast<std::int64_t>(::getpid()));
  return (std::filesystem::temp_directory_path() /
          ("gaea-lbm-" + std::string(tag) + "-" + std::to_string(pids[0])))
      .string();
}

}  // namespace

TEST_CASE("lbm: one rank and all ranks give bit-identical fields", "[lbm]") {
  for (const config& c : {mixed(), periodic(), thin()}) {
    INFO("case " << c.name);
    std::vector<double> ref, got;
    std::uint64_t sum_ref = 0, sum_got = 0;
    {
      solver one(c, {1, 1}, 1);  // everything on rank 0, in the blocking order
      one.set_overlap(false);
      one.step(60);
      ref = whole(one);
      sum_ref = one.checksum();
    }
    std::vector<std::vector<int>> grids = {{}};  // the squarest grid of all ranks
    if (rt().size() > 1) grids.push_back({rt().size(), 1});
    for (const auto& g : grids)
      for (const bool streaming : {false, true})
        for (const bool overlap : {false, true}) {
          solver all(c, g, 2);
          all.set_streaming_stores(streaming);  // non-temporal stores write the same values
          all.set_overlap(overlap);  // interior during the exchange, then the strip: same values
          INFO("grid " << all.grid()[0] << " x " << all.grid()[1] << ", streaming stores "
                       << streaming << ", overlap " << overlap);
          CHECK(all.grid()[0] * all.grid()[1] == (g.empty() ? rt().size() : g[0] * g[1]));
          all.step(60);
          got = whole(all);
          sum_got = all.checksum();
          REQUIRE(got.size() == ref.size());
          CHECK(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(double)) == 0);
          CHECK(sum_got == sum_ref);
          CHECK(all.time().ghost_wait <= all.time().ghosts);
          if (!overlap) CHECK(all.time().ghost_wait == 0);
        }
    // The flow is not trivial: populations moved away from rest.
    double dev = 0;
    for (std::size_t k = 0; k < ref.size(); ++k)
      dev = std::max(
          dev,
          std::abs(ref[k] - equilibrium(static_cast<int>(k / static_cast<std::size_t>(c.nx * c.ny)),
                                        1.0, 0.0, 0.0)));
    CHECK(dev > 1e-4);
  }
  if (rt().size() == 4) {  // a real 2-D decomposition
    solver s(mixed(), {}, 1);
    CHECK(s.grid() == std::vector<int>{2, 2});
  }
}

TEST_CASE("lbm: a restart from a snapshot continues bit-identically", "[lbm]") {
  const std::string dir = shared_tmpdir("restart");
  const config c = mixed();
  std::uint64_t straight = 0;
  {
    solver s(c, {}, 1);
    s.step(40);
    straight = s.checksum();
  }
  std::string file;
  {
    solver s(c, {}, 1);
    s.step(25);
    snapshot_extra ex{{1.0, 2.0, 3.0}, 20};
    file = write_snapshot(s, dir, ex);
    if (rt().rank() == 0) write_xdmf(dir, c, {{25, file}});
  }
  CHECK(std::filesystem::exists(file));
  CHECK(std::filesystem::exists(std::filesystem::path(dir) / "lbm.xmf"));
  {
    // Restart on a different decomposition: everything on rank 0.
    solver s(c, {1, 1}, 1);
    const snapshot_extra ex = read_snapshot(s, file);
    CHECK(s.steps_done() == 25);
    CHECK(ex.monitor_step == 20);
    CHECK(ex.monitor == std::vector<double>{1.0, 2.0, 3.0});
    s.step(15);
    CHECK(s.checksum() == straight);
  }
  {
    solver s(c, {}, 1);
    read_snapshot(s, file);
    s.step(15);
    CHECK(s.checksum() == straight);
  }
  config other = c;
  other.nx = 31;
  other.solid.clear();
  solver wrong(other, {}, 1);
  CHECK_THROWS_WITH(read_snapshot(wrong, file), Contains("30 x 22") && Contains("31 x 22"));
  rt().barrier();
  if (rt().rank() == 0) std::filesystem::remove_all(dir);
}

TEST_CASE("lbm: masks and bad input", "[lbm]") {
  {
    std::istringstream in("P1\n# a comment\n3 2\n1 0 0\n0 0 1\n");
    const mask m = read_netpbm(in, "p1");
    CHECK(m.nx == 3);
    CHECK(m.ny == 2);
    // The image's first row is the top (y = 1).
    CHECK(m.solid == std::vector<std::uint8_t>{0, 0, 1, 1, 0, 0});
  }
  {
    std::istringstream in("P2 2 2 255\n0 255\n200 10\n");
    CHECK(read_netpbm(in, "p2").solid == std::vector<std::uint8_t>{0, 1, 1, 0});
  }
  {
    std::string img = "P4\n10 1\n";
    img += static_cast<char>(0x80);
    img += static_cast<char>(0x40);
    std::istringstream in(img);
    const mask m = read_netpbm(in, "p4");
    CHECK(m.solid == std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  }
  {
    // Refused by the header before anything is allocated.
    std::istringstream in("P5 4 4 255\nabc");
    CHECK_THROWS_WITH(read_netpbm(in, "short"),
                      Contains("short") && Contains("announces 4 x 4 pixels, at least 16 bytes") &&
                          Contains("only 3 follow"));
  }
  {
    std::istringstream in("P2 2 2 255\n0 0 0 x");
    CHECK_THROWS_WITH(read_netpbm(in, "bad"), Contains("bad") && Contains("raster ends in row 1"));
  }
  {
    std::istringstream in("P3 1 1 255\n0 0 0\n");
    CHECK_THROWS_WITH(read_netpbm(in, "ppm"), Contains("not a PBM/PGM"));
  }
  config c = mixed();
  c.tau = 0.5;
  CHECK_THROWS_WITH(solver(c), Contains("tau"));
  c = mixed();
  c.sides[left].kind = side_kind::periodic;
  CHECK_THROWS_WITH(solver(c), Contains("left and right"));
  CHECK_THROWS_WITH(solver(mixed(), {rt().size() + 1, 1}), Contains("process grid"));
  case_params p;
  p.name = "cavity";
  p.re = 100;
  p.tau = 0.8;
  CHECK_THROWS_WITH(make_case(p), Contains("not both"));
  p = {};
  p.name = "mask";
  CHECK_THROWS_WITH(make_case(p), Contains("--mask"));
}
