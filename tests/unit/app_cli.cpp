// The programs' command-line convention (apps/common/cli.hpp): the exit statuses and where the
// output goes, without a launcher.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "cli.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/launcher.hpp"
#include "gaea/base/version.hpp"

namespace {

struct command_line {
  std::vector<std::string> words;
  std::vector<char*> argv;
  explicit command_line(std::vector<std::string> w) : words(std::move(w)) {
    for (auto& s : words)
      argv.push_back(s.data());
  }
  int argc() const { return static_cast<int>(argv.size()); }
};

std::optional<int> run(std::vector<std::string> words, int* n = nullptr, bool* checked = nullptr) {
  CLI::App app{"test program"};
  apps::conventions(app, "gaea-test");
  static int sink = 0;
  app.add_option("--n", n ? *n : sink, "a number");
  app.callback([&] {
    if (checked) *checked = true;
    if ((n ? *n : sink) < 0) throw gaea::error("--n must not be negative");
  });
  command_line c(std::move(words));
  return apps::parse(app, c.argc(), c.argv.data());
}

}  // namespace

TEST_CASE("app cli: the convention's exit statuses", "[app_cli]") {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
                        "PMIX_RANK", "PMIX_SIZE"})
    unsetenv(v);
  int n = 0;
  bool checked = false;
  CHECK_FALSE(run({"gaea-test", "--n", "7"}, &n, &checked).has_value());
  CHECK(n == 7);
  CHECK(checked);
  CHECK(run({"gaea-test", "--help"}) == 0);
  CHECK(run({"gaea-test", "--version"}) == 0);
  CHECK(run({"gaea-test", "--no-such-flag"}) == apps::bad_command_line);
  CHECK(run({"gaea-test", "extra"}) == 2);
  CHECK(run({"gaea-test", "--n"}) == 2);
  CHECK(run({"gaea-test", "--n", "abc"}) == 2);
  // A gaea::error from a cross-option check is a bad command line too.
  CHECK(run({"gaea-test", "--n", "-1"}) == 2);
  CHECK(gaea::launcher::rank() == 0);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  CHECK(gaea::launcher::rank() == 3);
  unsetenv("OMPI_COMM_WORLD_RANK");
  CHECK(gaea::launcher::size() == 1);
  setenv("PMI_SIZE", "4", 1);
  CHECK(gaea::launcher::size() == 4);
  unsetenv("PMI_SIZE");
}
