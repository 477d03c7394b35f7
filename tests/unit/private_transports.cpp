// comm's UCX_TLS rewrite: the user's transports, never UCX's group-accessible sysv.
#include <catch2/catch.hpp>

#include "detail/private_transports.hpp"
#include "gaea/base/error.hpp"

using gaea::comm::detail::kernel_modules;

namespace {
std::string private_transports(std::string_view tls, kernel_modules km = {true, true}) {
  return gaea::comm::detail::private_transports(tls, km);
}
}  // namespace

TEST_CASE("private transports: sysv is left out of every transport list", "[comm][security]") {
  CHECK(private_transports("") == "^sysv");
  CHECK(private_transports("all") == "^sysv");
  CHECK(private_transports("sm") == "posix,xpmem,knem,cma");
  CHECK(private_transports("shm,self") == "posix,xpmem,knem,cma,self");
  CHECK(private_transports("mm,tcp") == "posix,xpmem,tcp");
  CHECK(private_transports("tcp") == "tcp");
  CHECK(private_transports("sm,posix,tcp") == "posix,xpmem,knem,cma,tcp");
  CHECK(private_transports("^tcp") == "^tcp,sysv");
  CHECK(private_transports("^sysv,tcp") == "^sysv,tcp");
  // Transports whose kernel module is missing are not named (UCX would warn about each).
  CHECK(private_transports("sm", {}) == "posix,cma");
  CHECK(private_transports("mm", {}) == "posix");
  CHECK(private_transports("shm", {false, true}) == "posix,xpmem,cma");
}

TEST_CASE("private transports: a list naming sysv is refused with the reason", "[comm][security]") {
  CHECK_THROWS_WITH(private_transports("sysv,tcp"), Catch::Contains("UCX_TLS='sysv,tcp'") &&
                                                        Catch::Contains("0660") &&
                                                        Catch::Contains("posix"));
}
