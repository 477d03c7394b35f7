// gaea::output_file: the target changes only on commit, temporaries never stay, non-regular
// targets and bad directories are refused, a full device is an error, signals remove temporaries.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"

namespace fs = std::filesystem;

namespace {
// A fresh directory per test, removed afterwards.
struct scratch {
  fs::path dir;
  scratch() {
    dir = fs::temp_directory_path() / ("gaea_output_file_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  int entries() const { return static_cast<int>(std::distance(fs::directory_iterator(dir), {})); }
};
void put(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}
}  // namespace

TEST_CASE("output_file replaces the target only on commit", "[output_file]") {
  scratch s;
  const fs::path target = s.dir / "out.txt";
  put(target, "good");
  {
    gaea::output_file f(target, "test");
    CHECK(f.temporary().parent_path() == s.dir);
    CHECK(f.temporary().filename().string().starts_with("out.txt.tmp."));
    f.write("new data");
    CHECK(s.read(target) == "good");
    CHECK(s.entries() == 2);
    // destroyed without commit
  }
  CHECK(s.read(target) == "good");
  CHECK(s.entries() == 1);
  {
    gaea::output_file f(target, "test");
    f.write("new ");
    f.write("data");
    f.commit();
    CHECK(f.committed());
  }
  CHECK(s.read(target) == "new data");
  CHECK(s.entries() == 1);
}

TEST_CASE("output_file written by name (close_for_name) commits what was written",
          "[output_file]") {
  scratch s;
  const fs::path target = s.dir / "named.h5";
  gaea::output_file f(target, "test");
  f.close_for_name();
  put(f.temporary(), "by name");
  f.commit();
  CHECK(s.read(target) == "by name");
  CHECK(s.entries() == 1);
}

TEST_CASE("output_file refuses non-regular targets and bad directories", "[output_file]") {
  scratch s;
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(gaea::output_file(s.dir, "test"), Contains("is a directory"));
  CHECK_THROWS_WITH(gaea::output_file(s.dir / "missing" / "x", "test"), Contains("does not exist"));
  put(s.dir / "plain", "x");
  CHECK_THROWS_WITH(gaea::output_file(s.dir / "plain" / "x", "test"),
                    Contains("is not a directory"));
  CHECK_THROWS_WITH(gaea::output_file("/dev/null", "test"), Contains("character device"));
  REQUIRE(::mkfifo((s.dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(gaea::output_file(s.dir / "fifo", "test"), Contains("a FIFO"));
  CHECK_THROWS_WITH(gaea::output_file("", "test"), Contains("empty"));
  CHECK_THROWS_WITH(gaea::check_output_path(s.dir.string() + "/", "GAEA_X"),
                    Contains("GAEA_X") && Contains("names a directory"));
  CHECK_NOTHROW(gaea::check_output_path(s.dir / "new.json", "test"));
  // The device is still a device and nothing was left in the directory.
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(s.entries() == 2);
}

TEST_CASE("a failed commit leaves the target and no temporary", "[output_file]") {
  scratch s;
  const fs::path target = s.dir / "keep.txt";
  put(target, "good");
  gaea::output_file f(target, "test");
  f.write("bad");
  fs::remove(f.temporary());  // as if removed on a failure path: the rename must fail
  CHECK_THROWS_AS(f.commit(), gaea::error);
  CHECK_FALSE(f.committed());
  CHECK(s.read(target) == "good");
  CHECK(s.entries() == 1);
}

TEST_CASE("remove_temporaries unlinks the live temporaries", "[output_file]") {
  scratch s;
  gaea::output_file a(s.dir / "a", "test"), b(s.dir / "b", "test");
  CHECK(s.entries() == 2);
  gaea::remove_temporaries();
  CHECK(s.entries() == 0);
  CHECK_THROWS_AS(a.commit(), gaea::error);
}

TEST_CASE("SIGTERM removes the temporaries and still ends the process", "[output_file]") {
  scratch s;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGTERM, SIG_DFL);  // not the test framework's handler: the default action
    gaea::output_file f(s.dir / "victim", "test");
    f.write("partial");
    ::raise(SIGTERM);
    ::_exit(0);  // not reached: the default action of SIGTERM ends the process
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(s.entries() == 0);
}

TEST_CASE("a full device is an error, not a short file", "[output_file]") {
  // /dev/full as the directory entry cannot be a target, but writing to a file on a full
  // filesystem behaves as writes to /dev/full do: ENOSPC. Exercise the write loop's error path
  // by writing the temporary through a descriptor that was redirected to /dev/full.
  if (::access("/dev/full", W_OK) != 0) {
    WARN("no writable /dev/full: not tested");
    return;
  }
  scratch s;
  gaea::output_file f(s.dir / "full", "test");
  const int full = ::open("/dev/full", O_WRONLY);
  REQUIRE(full >= 0);
  // The object's descriptor is the lowest free one opened for the temporary; find it by
  // replacing every descriptor that points at the temporary.
  struct stat tmp_st {};
  REQUIRE(::stat(f.temporary().c_str(), &tmp_st) == 0);
  for (int fd = 3; fd < 1024; ++fd) {
    struct stat st {};
    if (fd != full && ::fstat(fd, &st) == 0 && st.st_ino == tmp_st.st_ino &&
        st.st_dev == tmp_st.st_dev)
      ::dup2(full, fd);
  }
  ::close(full);
  CHECK_THROWS_WITH(f.write("data"), Catch::Matchers::Contains("No space left on device"));
  f.discard();
  CHECK(s.entries() == 0);
}
