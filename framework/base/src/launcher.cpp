#include "gaea/base/launcher.hpp"

#include <chrono>
#include <cstdlib>
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

void grace_before_exit() {
  if (size() > 1) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace gaea::launcher
