// gaea::base: what every module shares. This example reads a small settings file the way Gaea's
// programs do: named enums parsed with gaea::parse (a gaea::error listing the accepted names on a
// typo), a typed GAEA_* setting declared the way each module declares its own (gaea::env::setting),
// input read with read_input_file and output written atomically with gaea::output_file. Single
// process; no MPI.
#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/env.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/base/output_file.hpp"

namespace {
// An enum with a name table: gaea::to_string, gaea::parse and gaea::choices come with it.
enum class shape { square, disc, ring };
constexpr gaea::enum_name<shape> shape_names[] = {
    {shape::square, "square"}, {shape::disc, "disc"}, {shape::ring, "ring"}};
constexpr gaea::enum_names<shape> enum_names_of(shape) noexcept {
  return {"shape", shape_names};
}

// A typed setting, declared where it is read: registered at load into the table that
// gaea::env::check_all() validates against (and, for Gaea's modules, gaea-info --env prints).
const gaea::env::setting<shape> shape_setting{
    {"GAEA_EXAMPLE_SHAPE", "disc", "the example's fall-back shape: square|disc|ring",
     gaea::env::value_kind::choice, "square|disc|ring", 0, "example"}};
}  // namespace

int main() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path();
  const fs::path settings = dir / ("gaea-example-base." + std::to_string(::getpid()) + ".txt");
  int failures = 0;
  try {
    {  // Written to a temporary beside the target and renamed into place by commit().
      gaea::output_file out(settings, "example settings");
      out.write("disc\n");
      out.commit();
    }
    std::string text = gaea::read_input_file(settings, "example settings");
    text.erase(text.find_last_not_of('\n') + 1);
    const shape s = gaea::parse<shape>(text);
    if (s != shape::disc || gaea::to_string(s) != "disc") ++failures;

    try {  // A typo is an error that names the accepted values.
      (void)gaea::parse<shape>("circle");
      ++failures;
    } catch (const gaea::error& e) {
      std::printf("base: expected error: %s\n", e.what());
    }
    // The setting's value, or its default when unset (disc); a bad value is a gaea::error
    // naming the variable, the value and the accepted ones.
    const shape fallback = shape_setting.read();
    if (!shape_setting.raw() && fallback != shape::disc) ++failures;

    fs::remove(settings);
    std::printf("base: parsed '%s' from %s (choices %s), GAEA_EXAMPLE_SHAPE=%s: %s\n",
                std::string(gaea::to_string(s)).c_str(), settings.filename().c_str(),
                gaea::choices<shape>().c_str(), std::string(gaea::to_string(fallback)).c_str(),
                failures == 0 ? "ok" : "FAILED");
  } catch (const gaea::error& e) {
    std::fprintf(stderr, "base: error: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
