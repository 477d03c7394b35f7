// Issue 8: the built-in validations of the lattice Boltzmann mini-app at a small size —
// Poiseuille flow against the analytic parabola and the lid-driven cavity against Ghia, Ghia &
// Shin (1982). Registered on one rank only: a step costs one ghost exchange (two barriers), which
// on 2 oversubscribed cores takes milliseconds, and test_lbm already shows that every
// decomposition gives bit-identical fields, so these numbers are the same on any rank count.
#include <catch2/catch.hpp>

#include "cases.hpp"
#include "solver.hpp"

using namespace lbm;

TEST_CASE("issue 8: Poiseuille flow converges to the parabola within 1 %", "[lbm][validation]") {
  case_params p;
  p.name = "poiseuille";
  p.nx = 4;
  p.ny = 16;
  p.tau = 0.8;
  const flow_case fc = make_case(p);
  solver s(fc.cfg, {}, 1);
  s.step(50);  // far from steady: the check must notice
  CHECK_FALSE(check_poiseuille(s).pass);
  s.step(1950);  // about 8 viscous times H^2 / (nu pi^2)
  const check_result r = check_poiseuille(s);
  INFO(r.text);
  CHECK(r.pass);
  CHECK(r.error < 0.01);
}

TEST_CASE("issue 8: the cavity at Re 100 matches Ghia et al. at a small size",
          "[lbm][validation]") {
  // 32 x 32 cells with lid speed 0.15 reach steady state in ~3000 steps; the app's default
  // 128 x 128 run (README) gives 0.8 % in ~20000 steps. Same 2 % bound at both sizes.
  case_params p;
  p.name = "cavity";
  p.nx = 32;
  p.re = 100;
  p.u = 0.15;
  const flow_case fc = make_case(p);
  solver s(fc.cfg, {}, 1);
  s.step(300);  // the primary vortex has not formed yet: the check must notice
  CHECK_FALSE(check_cavity(s, fc.u, 0.02).pass);
  s.step(2700);
  const check_result r = check_cavity(s, fc.u, 0.02);
  INFO(r.text);
  CHECK(r.pass);
  // The reference values themselves (Table I / II, Re = 100) as stored.
  CHECK(ghia_u_re100.vel[8] == Approx(-0.20581));
  CHECK(ghia_v_re100.vel[7] == Approx(-0.24533));
}
