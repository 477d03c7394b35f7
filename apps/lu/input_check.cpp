// The check that a matrix read with --input holds only finite values.

#include "input_check.hpp"

#include <cmath>
#include <cstdio>

#include "input_checks.hpp"

namespace lu {

void check_input_finite(const tiled_matrix& m, const std::string& path,
                        const std::string& dataset) {
  std::string problem;
  for (const local_tile& t : m.local_tiles()) {
    for (index_t i = 0; i < t.rows && problem.empty(); ++i)
      for (index_t j = 0; j < t.cols; ++j) {
        const double v = t.at(i, j);
        if (std::isfinite(v)) continue;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", v);
        problem = "--input '" + path + "', dataset '" + dataset + "': element (" +
                  std::to_string(m.start(t.ti) + i) + ", " + std::to_string(m.start(t.tj) + j) +
                  ") is " + buf + "; the matrix must be finite";
        break;
      }
    if (!problem.empty()) break;
  }
  apps::agree(problem);
}

}  // namespace lu
