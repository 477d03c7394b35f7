// gaea::energy sysfs helpers: the root, path joining, reading and sysfs-style writing.

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "energy_fake_tree.hpp"
#include "gaea/energy/sysfs.hpp"

using namespace gaea::energy;
using energy_test::fake_root;

TEST_CASE("sysfs root and paths", "[energy][sysfs]") {
  ::unsetenv("GAEA_SYSFS_ROOT");
  CHECK(sysfs_root() == "/");
  ::setenv("GAEA_SYSFS_ROOT", "/tmp/fake", 1);
  CHECK(sysfs_root() == "/tmp/fake");
  ::unsetenv("GAEA_SYSFS_ROOT");
  CHECK(under("/", "/sys/class/powercap") == "/sys/class/powercap");
  CHECK(under("/tmp/fake", "/sys/class/powercap") == "/tmp/fake/sys/class/powercap");
  CHECK(under("/tmp/fake/", "sys/x") == "/tmp/fake/sys/x");
}

TEST_CASE("read_line, read_int and write_line", "[energy][sysfs]") {
  fake_root t;
  t.write("/sys/a", "  42 ");
  t.write("/sys/b", "event=0x02");
  CHECK(read_int(t.at("/sys/a")) == 42);
  CHECK(read_line(t.at("/sys/b")) == "event=0x02");
  CHECK_FALSE(read_int(t.at("/sys/b")));
  CHECK_FALSE(read_line(t.at("/sys/missing")));

  REQUIRE(write_line(t.at("/sys/a"), "7"));
  CHECK(read_int(t.at("/sys/a")) == 7);
  // Like sysfs: no file is created.
  errno = 0;
  CHECK_FALSE(write_line(t.at("/sys/missing"), "1"));
  CHECK(errno == ENOENT);
  CHECK_FALSE(std::filesystem::exists(t.at("/sys/missing")));
}
