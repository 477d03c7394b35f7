// The apps' shared input checks (input_checks.hpp): finite range validators, the thread cap,
// cross-rank agreement on errors and on inputs that every rank must read the same.

#include "input_checks.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace apps {

namespace {
std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

CLI::Validator finite_in(double lo, double hi, bool lo_open) {
  const std::string range = (lo_open ? "(" : "[") + g(lo) + ", " + g(hi) + "]";
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        // Not a number at all: CLI11's own conversion reports it.
        if (end == text.c_str() || *end != '\0') return {};
        if (!std::isfinite(v) || errno == ERANGE)
          return "value " + text + " is not a finite number in " + range;
        if (v < lo || (lo_open && v == lo) || v > hi)
          return "value " + text + " is not in " + range;
        return {};
      },
      "FLOAT in " + range);
}

int cap_threads(int requested, std::string_view app, bool warn) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (requested <= hw) return requested;
  if (warn)
    std::fprintf(stderr,
                 "%.*s: warning: --threads %d exceeds the %d hardware threads of this machine; "
                 "using %d\n",
                 static_cast<int>(app.size()), app.data(), requested, hw, hw);
  return hw;
}

void agree(const std::string& problem) {
  const int rank = gaea::runtime::current().rank();
  gaea::coll::agree(gaea::coll::world(), problem.empty() || rank == 0
                                             ? problem
                                             : "rank " + std::to_string(rank) + ": " + problem);
}

void on_every_rank(const std::function<void()>& read) {
  std::string problem;
  try {
    read();
  } catch (const std::exception& e) {
    problem = e.what();
    if (problem.empty()) problem = "unknown error";
  }
  agree(problem);
}

void same_on_every_rank(const std::string& what, const std::string& mine) {
  const int rank = gaea::runtime::current().rank();
  const std::string root = gaea::coll::broadcast(gaea::coll::world(), mine, 0);
  std::string problem;
  if (mine != root)
    problem = what + " differ between ranks: rank 0 has " + root + ", rank " +
              std::to_string(rank) + " has " + mine;
  gaea::coll::agree(gaea::coll::world(), problem);
}

std::uint64_t fnv1a(const void* bytes, std::size_t n, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace apps
