// HDF5 I/O of global arrays — round trips of whole arrays and patches across
// distributions, attributes, several datasets per file, append, errors on every rank, the atomic
// rename (no file under the final name after a failed write), and a file written by 3 ranks
// (a ctest fixture) read by 1, 2 and 4.
#include <hdf5.h>
#include <stdlib.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ga_reference.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/detail/hdf5.hpp"

using namespace gaea;
using namespace gaea::test;
using Catch::Matchers::Contains;
using gaea::detail::h5_handle;

namespace {

// A fresh directory (named by rank 0, shared by all), removed when the test case ends.
struct temp_dir {
  std::string path;
  temp_dir() {
    char name[] = "/tmp/gaea_io_XXXXXX";
    if (rt().rank() == 0) path = mkdtemp(name);
    path = coll::broadcast(coll::world(), path, 0);
  }
  ~temp_dir() {
    rt().barrier();
    if (rt().rank() == 0) std::filesystem::remove_all(path);
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
  // Names of the files in the directory (to catch leftover temporaries).
  std::vector<std::string> listing() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

bool has_attribute(const std::string& file, const std::string& set, const char* name) {
  const h5_handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  const h5_handle d(H5Dopen2(f.get(), set.c_str(), H5P_DEFAULT), H5Dclose);
  return H5Aexists(d.get(), name) > 0;
}

const index d2{13, 11};

}  // namespace

TEMPLATE_TEST_CASE("ga io: whole arrays round-trip into every other distribution", "[ga][io]",
                   double, float, cplx, cplxf, std::int64_t, std::int32_t) {
  using T = TestType;
  temp_dir dir;
  const auto lays = layouts(d2);
  // double: every layout; the other types: block -> block+ghosts and block_cyclic -> irregular.
  const bool every = std::is_same_v<T, double>;
  for (std::size_t i = 0; i < lays.size(); i += every ? 1 : 4) {
    const auto& [nw, lw] = lays[i];
    const auto& [nr, lr] = lays[(i + 2) % lays.size()];
    INFO("written from " << nw << ", read into " << nr);
    const std::string f = dir.file("whole_" + std::to_string(i) + ".h5");
    global_array<T> a("A", d2, lw), b("B", d2, lr);
    fill(a, 1);
    fill(b, 2);
    ga::write(a, f, "data");
    ga::read(b, f, "data");
    CHECK(mismatches(whole(b), reference<T>(d2, 1), "read") == 0);
    CHECK(all(ghosts_untouched(b)));
    const ga::dataset_info info = ga::describe(f, "data");
    CHECK(info.element_type == ga::detail::to_string(a.core().type()));
    CHECK(info.dims == d2);
    CHECK(info.array_dims == d2);
    CHECK(info.patch_lo == index{0, 0});
    CHECK(info.writer_ranks == rt().size());
    CHECK(info.layout_kind == (nw.rfind("block_cyclic", 0) == 0 ? "block_cyclic"
                               : nw.rfind("block", 0) == 0      ? "block"
                                                                : "irregular"));
    // The stored layout recreates the writer's tiles on the same number of ranks.
    global_array<T> c("C", d2, info.layout);
    for (int r = 0; r < rt().size(); ++r) {
      const auto tc = c.tiles(r), ta = a.tiles(r);
      REQUIRE(tc.size() == ta.size());
      for (std::size_t k = 0; k < tc.size(); ++k)
        CHECK(tc[k].box == ta[k].box);
    }
    CHECK(c.layout().ghosts() == a.layout().ghosts());
  }
  if (every && rt().rank() == 0) {
    for (const char* attr : {"gaea_format", "element_type", "array_dims", "patch_lo", "layout",
                             "tile_grid", "boundaries_0", "boundaries_1", "ghosts", "writer_ranks"})
      CHECK(has_attribute(dir.file("whole_0.h5"), "data", attr));
    CHECK(has_attribute(dir.file("whole_4.h5"), "data", "tile"));          // block-cyclic
    CHECK(has_attribute(dir.file("whole_4.h5"), "data", "process_grid"));  // block-cyclic
    // Nothing but the final files: every temporary was renamed.
    CHECK(dir.listing() == std::vector<std::string>{"whole_0.h5", "whole_1.h5", "whole_2.h5",
                                                    "whole_3.h5", "whole_4.h5"});
  }
}

TEST_CASE("ga io: a patch goes to its own dataset and comes back anywhere", "[ga][io]") {
  temp_dir dir;
  const std::string f = dir.file("patch.h5");
  const auto lays = layouts(d2);
  global_array<cplx> a("A", d2, lays[4].second), b("B", d2, lays[3].second);
  fill(a, 3);
  fill(b, 4);
  const patch src{{2, 3}, {9, 7}}, dst{{4, 1}, {11, 5}};  // 8 x 5 both
  ga::write(a, f, "part", src);
  const auto info = ga::describe(f, "part");
  CHECK(info.dims == index{8, 5});
  CHECK(info.patch_lo == index{2, 3});
  CHECK(info.array_dims == d2);
  ga::read(b, f, "part", dst);
  const auto ra = reference<cplx>(d2, 3);
  auto want = reference<cplx>(d2, 4);
  for (index_t i = 0; i <= 7; ++i)
    for (index_t j = 0; j <= 4; ++j)
      want[static_cast<std::size_t>((dst.lo[0] + i) * d2[1] + dst.lo[1] + j)] =
          ra[static_cast<std::size_t>((src.lo[0] + i) * d2[1] + src.lo[1] + j)];
  CHECK(mismatches(whole(b), want, "patch read") == 0);
  CHECK(all(ghosts_untouched(b)));
  // The patch does not fit the whole array, nor a patch of another shape.
  CHECK_THROWS_WITH(ga::read(b, f, "part"),
                    Contains("wrong shape") && Contains("[8, 5]") && Contains("[13, 11]"));
  CHECK_THROWS_WITH(ga::read(b, f, "part", patch{{0, 0}, {4, 7}}), Contains("wrong shape"));
  // 3-D with ghosts, one patch crossing every tile.
  const index d3{6, 5, 7};
  global_array<std::int32_t> x("X", d3, ga::layout_spec::block().with_ghosts({1, 1, 2})),
      y("Y", d3, layouts(d3)[1].second);
  fill(x, 5);
  fill(y, 6);
  const patch mid{{1, 1, 1}, {4, 3, 5}};
  ga::write(x, f, "cube", mid);
  ga::read(y, f, "cube", mid);
  auto want3 = reference<std::int32_t>(d3, 6);
  const auto rx = reference<std::int32_t>(d3, 5);
  for_each_element(mid, [&](const index& e) {
    want3[static_cast<std::size_t>(linear(e, d3))] = rx[static_cast<std::size_t>(linear(e, d3))];
  });
  CHECK(mismatches(whole(y), want3, "3-D patch") == 0);
}

TEST_CASE("ga io: several datasets in one file, groups, append", "[ga][io]") {
  temp_dir dir;
  const std::string f = dir.file("multi.h5");
  global_array<double> a("A", d2, ga::layout_spec::block_cyclic({3, 4}));
  global_array<std::int64_t> step("step", {1});
  fill(a, 7);
  step.fill(42);
  {
    ga::h5_writer w(f);
    w.write(a, "fields/a");
    w.write(step, "step");
    CHECK_FALSE(std::filesystem::exists(f));  // nothing under the final name before commit
    w.commit();
  }
  CHECK(std::filesystem::exists(f));
  global_array<double> b("B", d2);
  ga::read(b, f, "fields/a");
  CHECK(mismatches(whole(b), reference<double>(d2, 7), "grouped") == 0);
  // append keeps what is there and adds; an existing dataset is an error.
  ga::write(b, f, "copy", ga::write_mode::append);
  CHECK(ga::describe(f, "step").element_type == "int64");
  CHECK(ga::describe(f, "copy").dims == d2);
  CHECK_THROWS_WITH(ga::write(b, f, "copy", ga::write_mode::append), Contains("exists already"));
  // create replaces the file: only the new dataset is left.
  ga::write(b, f, "only");
  CHECK_THROWS_WITH(ga::describe(f, "step"), Contains("no such dataset"));
  if (rt().rank() == 0) CHECK(dir.listing() == std::vector<std::string>{"multi.h5"});
}

TEST_CASE("ga io: application attributes and the shape of any dataset", "[ga][io]") {
  temp_dir dir;
  const std::string f = dir.file("attrs.h5");
  global_array<double> a("A", d2, ga::layout_spec::block_cyclic({3, 4}));
  fill(a, 3);
  auto write_all = [&](ga::h5_writer& w) {
    w.write(a, "g/a");
    w.attribute("step", std::int64_t{-12345678901});
    w.attribute("tau", 0.5625);
    w.attribute("case", std::string("cavity"));
    w.attribute("block", std::int64_t{4}, "g/a");
  };
  {
    ga::h5_writer w(f);
    write_all(w);
    CHECK_THROWS_WITH(w.attribute("block", std::int64_t{5}, "g/a"), Contains("exists already"));
    CHECK_THROWS_WITH(w.commit(), Contains("failed write"));  // the writer is spoiled
  }
  CHECK_FALSE(std::filesystem::exists(f));
  {
    ga::h5_writer w(f);
    w.write(a, "g/a");
    CHECK_THROWS_WITH(w.attribute("x", 1.0, "nowhere"), Contains("no such object"));
  }
  {
    ga::h5_writer w(f);
    write_all(w);
    w.commit();
  }
  CHECK(ga::read_attribute_as<std::int64_t>(f, "step") == -12345678901);
  CHECK(ga::read_attribute_as<double>(f, "tau") == 0.5625);
  CHECK(ga::read_attribute_as<std::string>(f, "case") == "cavity");
  CHECK(ga::read_attribute_as<std::int64_t>(f, "block", "g/a") == 4);
  CHECK(ga::read_attribute_as<double>(f, "block", "g/a") == 4.0);  // an integer widens
  CHECK(std::get<double>(ga::read_attribute(f, "tau", "/")) == 0.5625);
  CHECK_THROWS_WITH(ga::read_attribute_as<std::int64_t>(f, "tau"), Contains("requested kind"));
  CHECK_THROWS_WITH(ga::read_attribute(f, "nope"), Contains("'nope'") && Contains("no such"));
  CHECK_THROWS_WITH(ga::read_attribute(f, "step", "g/b"), Contains("no such object"));
  CHECK_THROWS_WITH(ga::read_attribute(f, "array_dims", "g/a"), Contains("not a scalar"));
  CHECK_THROWS_WITH(ga::read_attribute(dir.file("missing.h5"), "step"), Contains("no such file"));
  // append keeps the attributes; the data still reads back.
  ga::write(a, f, "b", ga::write_mode::append);
  CHECK(ga::read_attribute_as<std::string>(f, "case") == "cavity");
  // inspect: any dataset, also one without Gaea's attributes (written here with plain HDF5).
  const ga::dataset_shape s = ga::inspect(f, "g/a");
  CHECK(s.element_type == "double");
  CHECK(s.dims == d2);
  const std::string plain = dir.file("plain.h5");
  if (rt().rank() == 0) {
    const h5_handle h(H5Fcreate(plain.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const hsize_t dims[3] = {2, 3, 5};
    const h5_handle sp(H5Screate_simple(3, dims, nullptr), H5Sclose);
    const h5_handle d(H5Dcreate2(h.get(), "u8", H5T_NATIVE_UINT8, sp.get(), H5P_DEFAULT,
                                 H5P_DEFAULT, H5P_DEFAULT),
                      H5Dclose);
  }
  rt().barrier();
  const ga::dataset_shape u = ga::inspect(plain, "u8");
  CHECK(u.dims == index{2, 3, 5});
  CHECK(u.element_type == "uint of 1 bytes");
  CHECK_THROWS_WITH(ga::inspect(plain, "x"), Contains("no such dataset"));
  CHECK_THROWS_WITH(ga::inspect(dir.file("missing.h5"), "x"), Contains("no such file"));
}

TEST_CASE("ga io: errors are clear and raised on every rank", "[ga][io][errors]") {
  temp_dir dir;
  const std::string f = dir.file("e.h5");
  global_array<double> a("A", d2);
  fill(a, 1);
  ga::write(a, f, "data");
  CHECK_THROWS_WITH(ga::read(a, dir.file("missing.h5"), "data"),
                    Contains("missing.h5") && Contains("no such file"));
  CHECK_THROWS_WITH(ga::read(a, f, "nope"), Contains("'nope'") && Contains("no such dataset"));
  CHECK_THROWS_WITH(ga::read(a, f, "nope/deeper"), Contains("no such dataset"));
  global_array<double> wrong_shape("W", {11, 13});
  CHECK_THROWS_WITH(ga::read(wrong_shape, f, "data"),
                    Contains("wrong shape") && Contains("[13, 11]") && Contains("[11, 13]"));
  global_array<std::int32_t> wrong_type("I", d2);
  CHECK_THROWS_WITH(ga::read(wrong_type, f, "data"),
                    Contains("wrong element type") && Contains("double") && Contains("int32"));
  global_array<float> wrong_float("F", d2);
  CHECK_THROWS_WITH(ga::read(wrong_float, f, "data"), Contains("holds double"));
  if (rt().rank() == 0) std::ofstream(dir.file("text.h5")) << "not hdf5\n";
  rt().barrier();
  CHECK_THROWS_WITH(ga::read(a, dir.file("text.h5"), "data"), Contains("not an HDF5 file"));
  CHECK_THROWS_WITH(ga::write(a, dir.file("text.h5"), "x", ga::write_mode::append),
                    Contains("not an HDF5 file"));
  CHECK_THROWS_WITH(ga::write(a, f, "bad", patch{{0, 0}, {20, 3}}), Contains("outside the array"));
  CHECK_THROWS_WITH(ga::write(a, dir.file("no/such/dir.h5"), "x"),
                    Contains("directory") && Contains("does not exist"));
  // Never replaced: a directory, a device (the rename would turn it into a regular file).
  CHECK_THROWS_WITH(ga::write(a, dir.path, "x"), Contains("is a directory"));
  CHECK_THROWS_WITH(ga::write(a, "/dev/null", "x"), Contains("'/dev/null': is a character device"));
  // After all that, every rank is still in step and the file is intact.
  global_array<double> b("B", d2, layouts(d2)[1].second);
  ga::read(b, f, "data");
  CHECK(mismatches(whole(b), reference<double>(d2, 1), "after errors") == 0);
}

TEST_CASE("ga io: a write that fails midway leaves nothing under the final name", "[ga][io]") {
  temp_dir dir;
  const std::string fresh = dir.file("fresh.h5"), kept = dir.file("kept.h5");
  global_array<double> a("A", d2, layouts(d2)[2].second);
  fill(a, 1);
  const int victim = rt().size() - 1;
  // A new file: the fault (after the data is written on every rank) leaves no file at all.
  ga::detail::inject_write_fault(victim);
  CHECK_THROWS_WITH(ga::write(a, fresh, "data"),
                    Contains("injected fault on rank " + std::to_string(victim)));
  rt().barrier();
  CHECK_FALSE(std::filesystem::exists(fresh));
  // An existing file survives a failed replacement and a failed append unchanged.
  ga::write(a, kept, "old");
  for (auto mode : {ga::write_mode::create, ga::write_mode::append}) {
    ga::h5_writer w(kept, mode);
    w.write(a, "first");
    ga::detail::inject_write_fault(victim);
    CHECK_THROWS_WITH(w.write(a, "second"), Contains("injected fault"));
    CHECK_THROWS_WITH(w.commit(), Contains("failed write"));
  }
  rt().barrier();
  CHECK(ga::describe(kept, "old").dims == d2);
  CHECK_THROWS_WITH(ga::describe(kept, "first"), Contains("no such dataset"));
  if (rt().rank() == 0) CHECK(dir.listing() == std::vector<std::string>{"kept.h5"});
}

// The fixture step (ctest test_ga_io.write_np3, run on 3 ranks) writes this file; every other
// run reads it with its own rank count and distributions.
namespace {
const index fixture_dims{19, 17};
const patch fixture_patch{{3, 2}, {15, 9}};
}  // namespace

TEST_CASE("ga io fixture: write with 3 ranks", "[.][io-fixture-write]") {
  global_array<double> a("A", fixture_dims, ga::layout_spec::block_cyclic({4, 3}));
  global_array<cplx> z("Z", fixture_dims,
                       ga::layout_spec::irregular({{0, 6, 11}, {0}}).with_ghosts({1, 1}));
  fill(a, 8);
  fill(z, 9);
  ga::h5_writer w(GAEA_IO_FIXTURE);
  w.write(a, "a");
  w.write(z, "z_patch", fixture_patch);
  w.commit();
}

TEST_CASE("ga io: read a file written by 3 ranks with this rank count", "[ga][io]") {
  REQUIRE(std::filesystem::exists(GAEA_IO_FIXTURE));  // run through ctest: fixture ga_io_np3
  CHECK(ga::describe(GAEA_IO_FIXTURE, "a").writer_ranks == 3);
  const auto lays = layouts(fixture_dims);
  for (const auto& [name, lay] : lays) {
    INFO("read into " << name);
    global_array<double> a("A", fixture_dims, lay);
    fill(a, 1);
    ga::read(a, GAEA_IO_FIXTURE, "a");
    CHECK(mismatches(whole(a), reference<double>(fixture_dims, 8), "fixture a") == 0);
  }
  global_array<cplx> z("Z", fixture_dims, lays[4].second);
  fill(z, 1);
  ga::read(z, GAEA_IO_FIXTURE, "z_patch", fixture_patch);
  auto want = reference<cplx>(fixture_dims, 1);
  const auto rz = reference<cplx>(fixture_dims, 9);
  for_each_element(fixture_patch, [&](const index& e) {
    const auto k = static_cast<std::size_t>(linear(e, fixture_dims));
    want[k] = rz[k];
  });
  CHECK(mismatches(whole(z), want, "fixture z patch") == 0);
}
