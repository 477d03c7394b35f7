// The SCF's guess and incremental Fock build against serial references: the SAD density holds
// the molecule's electrons, and G(D0) + G(D1 - D0) (incremental) equals G(D1) (full) to 1e-10
// on water in 6-31G*, at any rank count; in-core builds (stored whole or in part) equal direct
// ones.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "basis.hpp"
#include "fock_build.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/ga/global_array.hpp"
#include "guess.hpp"
#include "integrals.hpp"
#include "molecule.hpp"
#include "test_support.hpp"

using namespace scf;
using gaea::test::rt;

namespace {
const std::string water = std::string(GAEA_SCF_MOLECULES) + "/water.xyz";

basis_set load(const molecule& mol, const std::string& name, shell_form form) {
  basis_request br;
  br.name = name;
  br.form = form;
  return load_basis(br, mol);
}

/// Full G of `x` (symmetrised, as the SCF uses it), on every rank.
matrix g_of(fock_builder& fock, const matrix& x, const basis_set& b, gaea::global_array<double>& d,
            gaea::global_array<double>& g) {
  const auto n = b.nbf;
  if (rt().rank() == 0)
    d.put({{0, 0}, {n - 1, n - 1}}, std::span<const double>(x.data(), x.size()));
  d.sync();
  fock.build(d, shell_max_abs(x, b), g);
  matrix out(n, n);
  g.get({{0, 0}, {n - 1, n - 1}}, std::span<double>(out.data(), out.size()));
  g.sync();  // every rank has read G before the next build zeroes it
  return 0.5 * (out + out.transpose());
}

// Two densities far apart: D0 the SAD guess, D1 the core Hamiltonian's (a strong test of
// incremental builds); and the Schwarz bounds.
struct test_densities {
  matrix q, d0, d1;
};
test_densities densities(const molecule& mol, const basis_set& b) {
  const matrix s = overlap(b);
  const matrix h = kinetic(b) + nuclear_attraction(b, mol);
  Eigen::GeneralizedSelfAdjointEigenSolver<matrix> es(h, s);
  const matrix c = es.eigenvectors().leftCols(mol.electrons() / 2);
  return {schwarz_bounds(b), sad_density(mol, b, s), c * c.transpose()};
}
}  // namespace

TEST_CASE("scf: the SAD density's trace with the overlap is the electron count", "[scf][guess]") {
  for (const char* name : {"sto-3g", "6-31G*", "cc-pVDZ"}) {
    for (const int charge : {0, 2}) {
      const molecule mol = read_xyz(water, bohr_constant::nwchem, charge);
      const basis_set b = load(mol, name, shell_form::spherical);
      const matrix s = overlap(b);
      const matrix d = sad_density(mol, b, s);
      INFO("basis " << name << ", charge " << charge);
      CHECK(std::abs(2.0 * d.cwiseProduct(s).sum() - static_cast<double>(mol.electrons())) < 1e-10);
      CHECK((d - d.transpose()).cwiseAbs().maxCoeff() < 1e-14);
      // Atoms do not see each other: no O-H block.
      CHECK(d.block(0, b.nbf - 1, 1, 1).cwiseAbs().maxCoeff() == 0.0);
    }
  }
}

TEST_CASE("scf: atomic occupations are aufbau shells, spherically averaged", "[scf][guess]") {
  const std::vector<double> o = atomic_occupations(8);  // 1s2 2s2 2p4
  REQUIRE(o.size() == 5);
  CHECK(o[0] == 1.0);
  CHECK(o[1] == 1.0);
  CHECK(std::abs(o[2] - 2.0 / 3.0) < 1e-15);
  CHECK(std::abs(o[4] - 2.0 / 3.0) < 1e-15);
  CHECK(atomic_occupations(1) == std::vector<double>{0.5});
  CHECK_THROWS_WITH(atomic_occupations(0), Catch::Matchers::Contains("atomic number 0"));
}

TEST_CASE("scf: an incremental Fock build on dD equals the full build to 1e-10", "[scf][fock]") {
  const molecule mol = read_xyz(water, bohr_constant::nwchem, 0);
  for (const shell_form form : {shell_form::cartesian, shell_form::spherical}) {
    const basis_set b = load(mol, "6-31G*", form);
    const auto [q, d0, d1] = densities(mol, b);
    for (const integral_mode mode : {integral_mode::direct, integral_mode::incore}) {
      fock_options fo;
      fo.block_bf = 4;  // several blocks, so tasks spread over ranks
      fo.integrals = mode;
      fock_builder fock(b, q, fo);
      const auto n = b.nbf;
      gaea::global_array<double> d("test-density", {n, n}), g("test-g", {n, n});
      const matrix full = g_of(fock, d1, b, d, g);
      const matrix incr = g_of(fock, d0, b, d, g) + g_of(fock, matrix(d1 - d0), b, d, g);
      INFO("form " << (form == shell_form::cartesian ? "cartesian" : "spherical") << ", "
                   << to_string(mode));
      CHECK(full.cwiseAbs().maxCoeff() > 1.0);  // a real Fock matrix, not zeros
      CHECK((full - incr).cwiseAbs().maxCoeff() < 1e-10);
      // A zero dD screens every task: G(0) = 0.
      CHECK(g_of(fock, matrix::Zero(n, n), b, d, g).cwiseAbs().maxCoeff() == 0.0);
    }
  }
}

TEST_CASE("scf: in-core Fock builds equal direct ones, stored whole or in part", "[scf][fock]") {
  const molecule mol = read_xyz(water, bohr_constant::nwchem, 0);
  for (const char* name : {"6-31G*", "cc-pVDZ"}) {
    const basis_set b = load(mol, name, shell_form::spherical);
    const auto [q, d0, d1] = densities(mol, b);
    const auto n = b.nbf;
    gaea::global_array<double> d("test-density", {n, n}), g("test-g", {n, n});
    fock_options direct_opt;
    direct_opt.block_bf = 4;
    direct_opt.integrals = integral_mode::direct;
    fock_builder direct(b, q, direct_opt);
    CHECK_FALSE(direct.incore());
    // The first build stores, the later ones replay: D1, the density change, D0 at a loose
    // threshold (an early build), and D1 again.
    const std::vector<matrix> ds = {d1, matrix(d1 - d0), d0, d1};
    // Build k with `builder`: D = ds[k] everywhere, G symmetrised.
    auto run = [&](fock_builder& builder, std::size_t k) {
      const double thr = k == 2 ? 1e-9 : 0.0;
      if (rt().rank() == 0)
        d.put({{0, 0}, {n - 1, n - 1}}, std::span<const double>(ds[k].data(), ds[k].size()));
      d.sync();
      builder.build(d, shell_max_abs(ds[k], b), g, thr);
      matrix out(n, n);
      g.get({{0, 0}, {n - 1, n - 1}}, std::span<double>(out.data(), out.size()));
      g.sync();
      return matrix(0.5 * (out + out.transpose()));
    };
    std::vector<matrix> ref;
    for (std::size_t k = 0; k < ds.size(); ++k)
      ref.push_back(run(direct, k));
    for (const double limit_mb : {0.0, 0.02}) {  // whole store; a partial one (rest recomputed)
      fock_options fo = direct_opt;
      fo.integrals = integral_mode::incore;
      fo.incore_store_limit_mb = limit_mb;
      fock_builder incore(b, q, fo);
      REQUIRE(incore.incore());
      CHECK_THAT(incore.integrals_description(), Catch::Matchers::StartsWith("in-core"));
      for (std::size_t k = 0; k < ds.size(); ++k) {
        const double thr = k == 2 ? 1e-9 : 0.0;
        const matrix got = run(incore, k);
        INFO("basis " << name << ", store limit " << limit_mb << " MB, build " << k);
        CHECK(ref[k].cwiseAbs().maxCoeff() > 0.1);
        // The loose build's direct integrals come from an engine at the loose precision too
        // (errors ~1e-7, by design); the stored ones are the tight ones.
        CHECK((got - ref[k]).cwiseAbs().maxCoeff() < (thr > 0 ? 1e-6 : 1e-11));
      }
      const incore_stats& st = incore.stored();
      CHECK(st.stored_tasks > 0);
      CHECK(st.bytes > 0);
      if (limit_mb > 0)
        CHECK(st.recomputed_tasks > 0);
      else
        CHECK(st.recomputed_tasks == 0);
    }
    // A budget too small: direct, and the description says why.
    fock_options tiny = direct_opt;
    tiny.integrals = integral_mode::incore;
    tiny.integral_memory_mb = 1e-4;
    fock_builder fallback(b, q, tiny);
    CHECK_FALSE(fallback.incore());
    CHECK_THAT(fallback.integrals_description(),
               Catch::Matchers::Contains("over the budget") &&
                   Catch::Matchers::Contains("falling back to direct"));
  }
}

TEST_CASE("scf: integral modes by name", "[scf][fock]") {
  CHECK(parse_integral_mode("auto") == integral_mode::automatic);
  CHECK(parse_integral_mode("direct") == integral_mode::direct);
  CHECK(parse_integral_mode("incore") == integral_mode::incore);
  CHECK_FALSE(parse_integral_mode("pk").has_value());
  CHECK(to_string(integral_mode::incore) == "incore");
}
