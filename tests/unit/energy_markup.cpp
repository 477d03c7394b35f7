// Region markup for a site energy manager (gaea/energy/markup.hpp) against a fake libgeopm
// (tests/energy_site/fake_libgeopm.c): when it is chosen, what it registers and calls, and the
// reasons it gives when the manager is absent, the library missing or incomplete.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "energy_fake_tree.hpp"
#include "gaea/base/error.hpp"
#include "gaea/energy/markup.hpp"

using namespace gaea::energy;
using energy_test::fake_root;

namespace {

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// Points FAKE_GEOPM_LOG at a fresh file while it lives; lines() reads it back.
class call_log {
 public:
  call_log() : path_((t_.root() / "calls.log").string()) {
    ::setenv("FAKE_GEOPM_LOG", path_.c_str(), 1);
  }
  ~call_log() { ::unsetenv("FAKE_GEOPM_LOG"); }
  call_log(const call_log&) = delete;
  call_log& operator=(const call_log&) = delete;
  // The calls of this process, without the pid column.
  std::vector<std::string> lines() const {
    std::ifstream in(path_);
    std::vector<std::string> out;
    const std::string pid = std::to_string(::getpid()) + " ";
    for (std::string l; std::getline(in, l);)
      if (l.starts_with(pid)) out.push_back(l.substr(pid.size()));
    return out;
  }

 private:
  fake_root t_;
  std::string path_;
};

markup_config config(std::string kind, std::string library, bool present) {
  markup_config c;
  c.kind = std::move(kind);
  c.library = std::move(library);
  c.manager_present = present;
  return c;
}

}  // namespace

TEST_CASE("markup: with a manager present, the wait region is registered with the network hint",
          "[energy][markup]") {
  call_log log;
  const markup_choice c = make_markup(config("auto", GAEA_FAKE_LIBGEOPM, true));
  INFO(c.reason);
  REQUIRE(c.markup->active());
  CHECK(c.markup->name() == "GEOPM");
  CHECK(contains(c.reason, "GEOPM manages the frequency"));
  CHECK(contains(c.reason, "gaea_wait"));
  const auto l = log.lines();
  REQUIRE(l.size() == 1);
  std::istringstream in(l[0]);
  std::string what, name, hint;
  std::uint64_t id = 0;
  in >> what >> name >> hint >> id;
  CHECK(what == "region");
  CHECK(name == "gaea_wait");
  CHECK(hint == "0x4");  // GEOPM_REGION_HINT_NETWORK (GEOPM 3)
  CHECK(id == c.markup->region_id());
}

TEST_CASE("markup: enter and exit reach the library in pairs with the registered id",
          "[energy][markup]") {
  call_log log;
  const markup_choice c = make_markup(config("geopm", GAEA_FAKE_LIBGEOPM, false));
  REQUIRE(c.markup->active());
  for (int i = 0; i < 3; ++i) {
    c.markup->enter();
    c.markup->exit();
  }
  CHECK(c.markup->entered() == 3);
  CHECK(c.markup->refused() == 0);
  const auto l = log.lines();
  REQUIRE(l.size() == 7);
  const std::string id = std::to_string(c.markup->region_id());
  for (std::size_t i = 1; i < l.size(); i += 2) {
    CHECK(l[i] == "enter " + id);
    CHECK(l[i + 1] == "exit " + id);
  }
}

TEST_CASE("markup: without a manager, auto marks nothing and does not load the library",
          "[energy][markup]") {
  call_log log;
  const markup_choice c = make_markup(config("auto", GAEA_FAKE_LIBGEOPM, false));
  CHECK_FALSE(c.markup->active());
  CHECK(c.markup->name() == "none");
  CHECK(contains(c.reason, "no energy manager"));
  CHECK(contains(c.reason, "GEOPM_PROFILE"));
  c.markup->enter();  // none: does nothing
  c.markup->exit();
  CHECK(c.markup->entered() == 0);
  CHECK(log.lines().empty());
}

TEST_CASE("markup: own keeps Gaea's control even with a manager present", "[energy][markup]") {
  call_log log;
  const markup_choice c = make_markup(config("own", GAEA_FAKE_LIBGEOPM, true));
  CHECK_FALSE(c.markup->active());
  CHECK(contains(c.reason, "GAEA_ENERGY_MANAGER=own"));
  CHECK(log.lines().empty());
}

TEST_CASE("markup: a library without geopm_prof_exit is refused and named", "[energy][markup]") {
  call_log log;
  const markup_choice c = make_markup(config("auto", GAEA_FAKE_LIBGEOPM_NO_EXIT, true));
  CHECK_FALSE(c.markup->active());
  CHECK(contains(c.reason, "has no geopm_prof_exit"));
  CHECK(contains(c.reason, "Gaea controls DVFS and throttling itself"));
  CHECK(log.lines().empty());  // refused before any region is registered
}

TEST_CASE("markup: a missing library is refused with the loader's reason", "[energy][markup]") {
  fake_root t;
  const std::string missing = (t.root() / "libgeopm.so.2").string();
  const markup_choice c = make_markup(config("geopm", missing, true));
  CHECK_FALSE(c.markup->active());
  CHECK(contains(c.reason, "GAEA_ENERGY_MANAGER=geopm: cannot load GEOPM's library"));
  CHECK(contains(c.reason, missing));
  CHECK(contains(c.reason, "geopmlaunch"));  // what a site must provide
}

TEST_CASE("markup: an unknown kind names GAEA_ENERGY_MANAGER", "[energy][markup]") {
  CHECK_THROWS_WITH(
      make_markup(config("slurm", "", true)),
      Catch::Contains("GAEA_ENERGY_MANAGER='slurm'") && Catch::Contains("auto|geopm|own"));
}

TEST_CASE("markup: GEOPM's launcher environment counts as a manager present", "[energy][markup]") {
  for (std::string_view var : geopm_manager_variables)
    ::unsetenv(std::string(var).c_str());
  CHECK_FALSE(geopm_manager_present());
  ::setenv("GEOPM_CTL", "", 1);  // set but empty: not present
  CHECK_FALSE(geopm_manager_present());
  ::setenv("GEOPM_CTL", "process", 1);
  CHECK(geopm_manager_present());
  ::unsetenv("GEOPM_CTL");
}
