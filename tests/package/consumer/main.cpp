// Smallest Gaea application, built against an installed Gaea via find_package(Gaea).
#include <cstdio>
#include <exception>

#include <gaea/runtime/runtime.hpp>

int main(int argc, char** argv) {
  try {
    gaea::runtime rt(&argc, &argv);
    std::printf("gaea consumer: rank %d of %d\n", rt.rank(), rt.size());
    std::fflush(stdout);
    rt.barrier();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gaea consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
