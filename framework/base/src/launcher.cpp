// gaea::launcher: this process's rank and size as the launcher announces them, and print_error.

#include "gaea/base/launcher.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace gaea::launcher {

namespace {
int from_env(std::initializer_list<const char*> names, int fallback) {
  for (const char* v : names)
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return fallback;
}
}  // namespace

int rank() {
  return from_env({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0);
}

int size() {
  return from_env({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, 1);
}

void print_error(std::string_view program, std::string_view what, std::string_view hint) {
  const int r = rank();
  const bool several = size() > 1;
  if (several && r != 0) std::this_thread::sleep_for(std::chrono::seconds(2));
  std::string text(program);
  if (several) text += ": rank " + std::to_string(r);
  text.append(": error: ").append(what).append("\n").append(hint);
  std::fputs(text.c_str(), stderr);  // one write, so that ranks' lines do not interleave
  std::fflush(stderr);
}

}  // namespace gaea::launcher
