// A job's shared memory is its user's only: every SysV segment a rank created and every
// /dev/shm file it holds open has no group or other permission bits, with arrays, counters and
// UCX's message queues alive (issue 39: UCX's sysv segments were 0660). The second-uid probe of
// the same objects is tests/hostile/cases/isolation.cmake.
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gaea/counters/shared_counter.hpp"
#include "gaea/ga/global_array.hpp"
#include "test_support.hpp"

namespace {
struct shared_object {
  std::string what;
  unsigned mode;
};

// SysV segments created by this process (/proc/sysvipc/shm: cpid column), with their modes.
std::vector<shared_object> own_sysv_segments() {
  std::vector<shared_object> out;
  std::ifstream in("/proc/sysvipc/shm");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    for (std::string w; h >> w;)
      header.push_back(w);
  }
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string shmid, perms, cpid;
    std::string w;
    for (std::size_t i = 0; i < header.size() && row >> w; ++i) {
      if (header[i] == "shmid") shmid = w;
      if (header[i] == "perms") perms = w;
      if (header[i] == "cpid") cpid = w;
    }
    if (cpid == std::to_string(::getpid()))
      out.push_back(
          {"SysV segment " + shmid, static_cast<unsigned>(std::stoul(perms, nullptr, 8))});
  }
  return out;
}

// Files in /dev/shm this process holds open (UCX's posix segments and queues, Gaea's tables).
std::vector<shared_object> own_shm_files() {
  std::vector<shared_object> out;
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc/self/fd", ec)) {
    const fs::path target = fs::read_symlink(e.path(), ec);
    if (ec || !target.string().starts_with("/dev/shm/")) continue;
    struct stat st {};
    if (::stat(e.path().c_str(), &st) == 0)
      out.push_back({target.string(), static_cast<unsigned>(st.st_mode & 07777)});
  }
  return out;
}
}  // namespace

TEST_CASE("isolation: a job's shared memory has no group or other access",
          "[security][regression]") {
  using gaea::test::rt;
  gaea::global_array<double> a("isolated", {std::int64_t{1} << 16});
  a.fill(1.0);
  gaea::counters::shared_counter c("isolated_counter");
  (void)c.fetch_add(1);
  a.sync();
  std::vector<shared_object> objects = own_sysv_segments();
  for (auto& f : own_shm_files())
    objects.push_back(std::move(f));
  for (const auto& o : objects) {
    INFO("rank " << rt().rank() << ": " << o.what << " has mode " << std::oct << o.mode);
    CHECK((o.mode & 077) == 0);
  }
  // With shared memory among several ranks of a node there is something to check.
  const char* tls = std::getenv("UCX_TLS");
  const bool shm = tls && std::string(tls) == "sm";
  if (shm && rt().size() > 1) CHECK(!objects.empty());
}
