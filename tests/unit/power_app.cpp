// gaea-power as a program: calibrate against a fake RAPL package whose energy follows the
// child's CPU time (the fit recovers the law and the file it writes loads as GAEA_ENERGY_MODEL),
// a meter that reads 0 J (exit 3, nothing written), and an output path that cannot be written
// (an error before any phase).

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>
#include "checked_json.hpp"

#include "energy_fake_rapl.hpp"
#include "energy_fake_tree.hpp"
#include "gaea/energy/model.hpp"

using energy_test::fake_rapl;
using energy_test::fake_root;

namespace {

struct result {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs gaea-power with `args`, its output in files beside the fake tree. With `rapl`, the fake
// package advances with the child's CPU time while it runs.
// `model`: GAEA_ENERGY_MODEL for the child (unset when empty).
result run(const fake_root& t, std::vector<std::string> args, fake_rapl* rapl = nullptr,
           const std::string& model = "") {
  const auto out = t.root() / "stdout", err = t.root() / "stderr";
  if (model.empty())
    ::unsetenv("GAEA_ENERGY_MODEL");
  else
    ::setenv("GAEA_ENERGY_MODEL", model.c_str(), 1);
  ::unsetenv("GAEA_ENERGY_METER");
  args.insert(args.begin(), GAEA_POWER_BIN);
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (rapl) rapl->start(pid);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  if (rapl) rapl->stop();
  result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("gaea-power calibrate recovers a fake package's law and writes a model file", "[power]") {
  fake_root t;
  // Node floor 24 W on 2 core-shares, 9 W per busy core of the child (see energy_calibration.cpp
  // for why 15 % is both safe on a loaded machine and tight enough to catch a wrong fit).
  fake_rapl rapl(t, fake_rapl::law(24, 9));
  const auto model = t.root() / "model.json", table = t.root() / "phases.json";
  const result r = run(t,
                       {"calibrate", "--root", t.root().string(), "--meter", "auto", "--output",
                        model.string(), "--json", table.string(), "--threads", "1,2", "--cores",
                        "2", "--phase-ms", "800", "--sample-ms", "20"},
                       &rapl);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "meter rapl-powercap (measured"));
  CHECK(contains(r.out, "fitted: RMS relative error"));
  CHECK(contains(r.out, "no low-frequency phases"));
  const gaea::energy::model_params p = gaea::energy::model_params::load(model);
  CHECK(2 * (p.p_static_w + p.p_dyn_other_w) == Approx(24).epsilon(0.15));
  CHECK(p.p_dyn_w == Approx(9).epsilon(0.15));
  CHECK(p.p_static_w / p.p_dyn_other_w == Approx(4.0));  // the defaults' split, 4 W : 1 W
  CHECK(contains(p.note, "fitted by gaea-power calibrate at 20"));
  CHECK(contains(p.note, "on rapl-powercap (package 0 (whole node)), 3 phases of 800 ms"));
  CHECK(contains(p.note, "RMS relative error"));
  const nlohmann::json j = nlohmann::json::parse(slurp(table));
  REQUIRE(j["phases"].size() == 3);
  CHECK(j["phases"][0]["name"] == "idle");
  CHECK(j["fitted_error"]["max_rel"].get<double>() < 0.15);
  CHECK(j["fitted"]["p_dyn_w"].get<double>() == p.p_dyn_w);

  // check with the fitted file: the model now matches the meter, and says which file it used.
  const result c = run(t,
                       {"check", "--root", t.root().string(), "--cores", "2", "--phase-ms", "500",
                        "--sample-ms", "20"},
                       &rapl, model.string());
  INFO(c.out << c.err);
  REQUIRE(c.status == 0);
  CHECK(contains(c.out, "parameters: " + model.string() + " (fitted by gaea-power calibrate"));
  CHECK(contains(c.out, "energy: measured "));
  CHECK(contains(c.out, "model: RMS relative error"));
  // The defaults (4 + 1 W per core-share, 10 W per busy core) are far from this package.
  const result d = run(t,
                       {"check", "--root", t.root().string(), "--cores", "2", "--phase-ms", "500",
                        "--sample-ms", "20", "--json", table.string()},
                       &rapl);
  REQUIRE(d.status == 0);
  const nlohmann::json dj = nlohmann::json::parse(slurp(table));
  CHECK(dj["model_error"]["max_rel"].get<double>() > 0.3);
  CHECK(dj["parameters"]["source"] == "defaults");
}

TEST_CASE("gaea-power without a meter that proves itself: exit 3, nothing written", "[power]") {
  fake_root t;
  fake_rapl rapl(t, fake_rapl::law(24, 9));  // never started: energy_uj stays where it is
  const auto model = t.root() / "model.json";
  result r = run(t, {"calibrate", "--root", t.root().string(), "--output", model.string(),
                     "--phase-ms", "100"});
  INFO(r.out << r.err);
  CHECK(r.status == 3);
  CHECK(contains(r.out, "no hardware meter proved itself"));
  CHECK(contains(r.out, "rejected rapl-powercap: read 0.000000 J"));
  CHECK_FALSE(std::filesystem::exists(model));
  for (const auto& e : std::filesystem::directory_iterator(t.root()))
    CHECK(e.path().filename().string().rfind("model.json", 0) != 0);  // no temporary either
  r = run(t, {"check", "--root", t.root().string(), "--phase-ms", "100"});
  CHECK(r.status == 3);
}

TEST_CASE("gaea-power calibrate: an output path that cannot be written fails before any phase",
          "[power]") {
  fake_root t;
  // A meter that would not prove itself: were it tried first, the exit would be 3, not 1.
  fake_rapl rapl(t, fake_rapl::law(24, 9));
  const std::vector<std::string> bad{(t.root() / "missing-dir" / "model.json").string(),
                                     t.root().string()};  // a directory
  for (const std::string& out : bad) {
    const result r =
        run(t, {"calibrate", "--root", t.root().string(), "--output", out, "--phase-ms", "60000"});
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK(contains(r.err, "gaea-power calibrate --output"));
    CHECK(r.out.empty());  // no meter chosen, no phase run (a phase would take a minute)
  }
  const result r = run(t, {"calibrate", "--root", t.root().string(), "--output",
                           (t.root() / "m.json").string(), "--json", "/dev/full"});
  CHECK(r.status == 1);
  CHECK(contains(r.err, "gaea-power calibrate --json"));
}

TEST_CASE("gaea-power follows the programs' command-line convention", "[power]") {
  fake_root t;
  result r = run(t, {"--version"});
  CHECK(r.status == 0);
  CHECK(contains(r.out, "gaea-power (Gaea "));
  r = run(t, {"calibrate", "--output", (t.root() / "m.json").string(), "--threads", "0"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "gaea-power: error: "));
  r = run(t, {"calibrate"});  // --output is required
  CHECK(r.status == 2);
  r = run(t, {"check", "--dvfs", "cpufreq"});  // check runs at f_max only
  CHECK(r.status == 2);
}
