// gaea::read_input_file / check_input_file: regular files within their cap are read whole;
// FIFOs, devices, directories, missing and oversized files are refused before any read.
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {
struct scratch {
  fs::path dir;
  scratch() {
    dir = fs::temp_directory_path() / ("gaea_input_file_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};
}  // namespace

TEST_CASE("read_input_file reads a regular file whole", "[input_file]") {
  scratch s;
  const fs::path f = s.dir / "a.txt";
  std::ofstream(f) << "hello\n";
  CHECK(gaea::read_input_file(f, "text") == "hello\n");
  CHECK(gaea::check_input_file(f, "text", 6) == 6);
  CHECK(gaea::input_file_problem(f).empty());
}

TEST_CASE("read_input_file refuses what is not a bounded regular file", "[input_file]") {
  scratch s;
  const fs::path fifo = s.dir / "p";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO without a writer would block open(): refused by its type, at once.
  CHECK_THROWS_WITH(gaea::read_input_file(fifo, "xyz file"),
                    Contains("xyz file '" + fifo.string() + "': is a FIFO"));
  CHECK_THROWS_WITH(gaea::read_input_file("/dev/zero", "machine file"),
                    Contains("'/dev/zero': is a character device; only a regular file"));
  CHECK_THROWS_WITH(gaea::read_input_file(s.dir, "mask"), Contains("is a directory"));
  CHECK_THROWS_WITH(gaea::read_input_file(s.dir / "none", "mask"), Contains("no such file"));
  CHECK_THROWS_WITH(gaea::read_input_file("", "mask"), Contains("the file name is empty"));
  const fs::path big = s.dir / "big";
  std::ofstream(big) << "0123456789";
  CHECK_THROWS_WITH(gaea::read_input_file(big, "profile", 9),
                    Contains("is 10 bytes, more than the 9"));
  // A sparse 4 GiB file is refused by its size, not read.
  fs::resize_file(big, std::uint64_t{4} << 30);
  CHECK_THROWS_WITH(gaea::read_input_file(big, "xyz file"),
                    Contains("is 4294967296 bytes, more than the 67108864"));
}
