// gaea::temporary_registration: a signal removes registered temporary directories with what
// they hold and still ends the process by that signal, also when another chaining handler was
// installed over the cleanup one and the cleanup one again over it (no endless ping-pong).
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "gaea/base/temporaries.hpp"

namespace fs = std::filesystem;

namespace {
fs::path scratch_dir(const char* what) {
  const fs::path d = fs::temp_directory_path() /
                     ("gaea_temporaries_" + std::string(what) + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Another module's handler in the style of the energy module's: restores what it found and
// re-raises.
struct sigaction g_found {};
extern "C" void chaining_handler(int sig) {
  ::sigaction(sig, &g_found, nullptr);
  ::raise(sig);
}

// Runs `body` in a child and returns its wait status.
template <class Body>
int in_child(Body body) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGTERM, SIG_DFL);  // not the test framework's handler: the default action
    body();
    ::_exit(0);  // not reached: the signal ends the child
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return status;
}
}  // namespace

TEST_CASE("SIGTERM removes a registered temporary directory and its contents", "[temporaries]") {
  const fs::path d = scratch_dir("dir");
  const fs::path tmp = d / "trace.otf2.tmp.1.abc";
  const int status = in_child([&] {
    gaea::temporary_registration r(tmp, gaea::temporary_kind::directory);
    fs::create_directories(tmp / "trace" / "deeper");
    std::ofstream(tmp / "trace.def") << "x";
    std::ofstream(tmp / "trace" / "0.evt") << "x";
    std::ofstream(tmp / "trace" / "deeper" / "1.evt") << "x";
    ::raise(SIGTERM);
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK_FALSE(fs::exists(tmp));
  CHECK(fs::is_empty(d));
  fs::remove_all(d);
}

TEST_CASE("cleanup and another chaining handler installed over each other end the process",
          "[temporaries]") {
  const fs::path d = scratch_dir("chain");
  const fs::path tmp = d / "out.h5.tmp.1.abc";
  const int status = in_child([&] {
    gaea::install_temporary_cleanup();
    struct sigaction mine {};
    mine.sa_handler = chaining_handler;
    sigemptyset(&mine.sa_mask);
    ::sigaction(SIGTERM, &mine, &g_found);  // found: the cleanup handler
    gaea::temporary_registration r(tmp);    // re-installs the cleanup over it
    std::ofstream(tmp) << "partial";
    ::alarm(10);  // a ping-pong between the two would never end the child otherwise
    ::raise(SIGTERM);
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK_FALSE(fs::exists(tmp));
  fs::remove_all(d);
}

TEST_CASE("a registration is released by release() and by its destructor", "[temporaries]") {
  const fs::path d = scratch_dir("release");
  std::ofstream(d / "kept") << "x";
  {
    gaea::temporary_registration r(d / "kept");
    CHECK(r.registered());
    r.release();
    CHECK_FALSE(r.registered());
    gaea::remove_temporaries();
    CHECK(fs::exists(d / "kept"));
  }
  { gaea::temporary_registration r(d / "kept"); }
  gaea::remove_temporaries();
  CHECK(fs::exists(d / "kept"));
  fs::remove_all(d);
}
