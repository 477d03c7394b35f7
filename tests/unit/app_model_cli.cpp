// gaea-model lu | lbm | scf (apps/model/app_commands): the --ranks syntax, and each subcommand's
// --json table equal to the library's prediction for the same case.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checked_json.hpp"

#include "app_commands.hpp"
#include "gaea/base/error.hpp"
#include "gaea/model/apps.hpp"

using Catch::Matchers::Contains;
using gaea_model::parse_ranks;
namespace m = gaea::model;

namespace {

m::machine small_machine() {
  m::machine mc;
  mc.name = "cli-test";
  mc.nodes = 1024;
  mc.cores_per_node = 4;
  mc.ranks_per_node = 4;
  mc.intra = {0.5e-6, 0.2e-6, 0.1e-6, 1e-10, 0.3e-6};
  mc.inter = {2e-6, 1e-6, 0.5e-6, 1e-9, 1e-6};
  mc.copy_s_per_byte = 2e-10;
  mc.add_s_per_byte = 3e-10;
  mc.dgemm_flops_per_core = 1e9;
  mc.memory_bytes_per_node = 1e10;
  return mc;
}

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gaea_model_cli_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Parses `args` (without the program name) and runs the chosen subcommand on `mc`.
int run(const std::vector<std::string>& args, const m::machine& mc) {
  CLI::App app{"test"};
  gaea_model::app_commands cmds(app);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  app.parse(rev);
  REQUIRE(cmds.chosen());
  return cmds.run(mc);
}

nlohmann::json read_json(const std::string& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("--ranks takes counts, doubling ranges and lists", "[model][cli]") {
  CHECK(parse_ranks("4") == std::vector<std::int64_t>{4});
  CHECK(parse_ranks("512-4096") == std::vector<std::int64_t>{512, 1024, 2048, 4096});
  CHECK(parse_ranks("3-20") == std::vector<std::int64_t>{3, 6, 12});
  CHECK(parse_ranks("1,2-8,4,6") == std::vector<std::int64_t>{1, 2, 4, 8, 6});
  CHECK_THROWS_WITH(parse_ranks("0"), Contains("'0'") && Contains("1 <= A <= B"));
  CHECK_THROWS_WITH(parse_ranks("8-2"), Contains("'8-2'"));
  CHECK_THROWS_WITH(parse_ranks("4,x"), Contains("'x' is not N or A-B"));
  CHECK_THROWS_WITH(parse_ranks(""), Contains("is not N or A-B"));
}

TEST_CASE("gaea-model lu writes the library's prediction per rank count", "[model][cli]") {
  const m::machine mc = small_machine();
  const std::string out = temp("lu.json");
  REQUIRE(run({"lu", "--machine", "unused.json", "--n", "4096", "--block", "128", "--ranks", "1-4",
               "--json", out},
              mc) == 0);
  const auto j = read_json(out);
  REQUIRE(j["points"].size() == 3);
  const auto& p4 = j["points"][2];
  CHECK(p4["ranks"] == 4);
  CHECK(p4["grid"] == "2x2");
  const m::lu_breakdown want = m::predict_lu(mc, {4096, 128, 2, 2, true});
  CHECK(p4["total_s"].get<double>() == Approx(want.total_s));
  CHECK(p4["comm_s"].get<double>() == Approx(want.comm_s));
  std::filesystem::remove(out);
  // A grid that does not match the one rank count is an error (exit 1), not a prediction.
  CHECK(run({"lu", "--machine", "x", "--n", "1000", "--grid", "2x3", "--ranks", "4"}, mc) == 1);
}

TEST_CASE("gaea-model lbm and scf read the apps' profiles", "[model][cli]") {
  const m::machine mc = small_machine();
  const std::string lbm_profile = temp("lbm.txt"), scf_profile = temp("scf.txt");
  std::ofstream(lbm_profile)
      << R"({"nx":512,"ny":256,"ranks":1,"steps":10,"compute_s":0.5,"periodic":false})"
      << "\n";
  std::ofstream(scf_profile) << R"({"nbf":96,"blocks":5,"tasks":120,"ranks":1,"threads":1,)"
                             << R"("integrals_s":1.2,"max_task_s":0.04,"diag_s":0.003,"accs":435})"
                             << "\n";
  const std::string lbm_out = temp("lbm.json"), scf_out = temp("scf.json");
  REQUIRE(
      run({"lbm", "--machine", "x", "--profile", lbm_profile, "--ranks", "2", "--json", lbm_out},
          mc) == 0);
  const auto lj = read_json(lbm_out);
  const auto [lp, lc0] = m::read_lbm_profile(lbm_profile);
  m::lbm_case lc = lc0;
  lc.ranks = 2;
  CHECK(lj["points"][0]["step_s"].get<double>() == Approx(m::predict_lbm(mc, lc, lp).total_s));
  CHECK(lj["nx"] == 512);

  REQUIRE(run({"scf", "--machine", "x", "--profile", scf_profile, "--ranks", "8",
               "--progress-thread", "both", "--json", scf_out},
              mc) == 0);
  const auto sj = read_json(scf_out);
  REQUIRE(sj["points"].size() == 2);
  CHECK(sj["points"][0]["progress_thread"] == true);
  CHECK(sj["points"][1]["progress_thread"] == false);
  CHECK(sj["points"][0]["total_s"].get<double>() < sj["points"][1]["total_s"].get<double>());
  // A missing profile is an error naming the file (exit 1).
  CHECK(run({"scf", "--machine", "x", "--profile", temp("none.txt")}, mc) == 1);
  for (const auto& f : {lbm_profile, scf_profile, lbm_out, scf_out})
    std::filesystem::remove(f);
}
