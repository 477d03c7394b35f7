// gaea-lu's command line, its checks, and the automatic block size, process grid and threads.

#include "options.hpp"
#include "gaea/model/apps.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <thread>

#include "cli.hpp"
#include "gaea/base/error.hpp"

namespace lu {

std::optional<int> parse_options(int argc, char** argv, options& o) {
  CLI::App app{
      "gaea-lu: blocked right-looking LU of an N×N block-cyclic global array, with the next "
      "panel prefetched while the trailing update runs, and built-in validation (HPL scaled "
      "residual)."};
  apps::conventions(app, "gaea-lu");
  std::string grid, overlap = "on", matrix = "dd";
  app.add_option("--n", o.n, "matrix order N (ignored with --input)")->capture_default_str();
  app.add_option("--block", o.block, "tile size (default: automatic)");
  app.add_option("--grid", grid, "process grid PxQ with P*Q = ranks (default: squarest)");
  app.add_flag("--pivot", o.pivot, "partial pivoting (LAPACK dgetrf's pivots)");
  app.add_option("--matrix", matrix, "generated matrix: dd (diagonally dominant) or general")
      ->check(CLI::IsMember({"dd", "general"}))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the generated matrix and right-hand side")
      ->capture_default_str();
  app.add_option("--input", o.input, "read A from this HDF5 file instead of generating it");
  app.add_option("--dataset", o.dataset, "dataset of --input")->capture_default_str();
  app.add_option("--output", o.output, "write the factors (datasets LU, pivots) to this file");
  app.add_option("--overlap", overlap, "prefetch the next panel during the update: on|off")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "threads per rank (default: cores per rank)");
  std::string fcheck = "auto";
  app.add_option("--factor-check", fcheck,
                 "check |A - LU|_F / |A|_F (gathers the factors): auto (N <= 1024)|on|off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  apps::add_json_option(app, o.json);
  app.add_flag("--corrupt-for-test", o.corrupt_for_test)->group("");  // hidden
  app.add_flag("--pivot-check", o.pivot_check)->group("");            // hidden (tests)
  app.callback([&] {
    o.overlap = overlap == "on";
    o.kind = matrix == "general" ? matrix_kind::general : matrix_kind::diag_dominant;
    o.factor_check = fcheck == "auto" ? -1 : fcheck == "on" ? 1 : 0;
    if (!grid.empty()) {
      static const std::regex re(R"(\s*(\d+)\s*[xX]\s*(\d+)\s*)");
      std::smatch mm;
      if (!std::regex_match(grid, mm, re))
        throw gaea::error("--grid '" + grid + "' is not of the form PxQ (e.g. 2x2)");
      try {
        o.prow = std::stoi(mm[1].str());
        o.pcol = std::stoi(mm[2].str());
      } catch (const std::out_of_range&) {
        throw gaea::error("--grid '" + grid + "': a dimension is out of range");
      }
    }
  });
  return apps::parse(app, argc, argv);
}

void resolve_options(options& o, int ranks, int ranks_on_node) {
  // 2^26 is far beyond any matrix this code can hold (36 PB), and keeps every n*n*8 below 2^63.
  if (o.n <= 0 || o.n > max_order)
    throw gaea::error("--n " + std::to_string(o.n) + " must be in [1, " +
                      std::to_string(max_order) + "]");
  if (o.prow != 0 || o.pcol != 0) {
    if (o.prow <= 0 || o.pcol <= 0 || static_cast<long>(o.prow) * o.pcol != ranks)
      throw gaea::error("--grid " + std::to_string(o.prow) + "x" + std::to_string(o.pcol) +
                        " does not match the " + std::to_string(ranks) +
                        " ranks (P*Q must equal the rank count)");
  } else {
    const auto [p, q] = gaea::model::lu_default_grid(ranks);  // the model predicts this grid
    o.prow = static_cast<int>(p);
    o.pcol = static_cast<int>(q);
  }
  if (o.block < 0 || o.block > o.n)
    throw gaea::error("--block " + std::to_string(o.block) +
                      " must be between 1 and N=" + std::to_string(o.n));
  if (o.block == 0) o.block = gaea::model::lu_default_block(o.n, o.prow, o.pcol);
  if (o.threads < 0)
    throw gaea::error("--threads " + std::to_string(o.threads) + " must be positive");
  if (o.threads == 0) {
    // The CPUs this process may run on: mpirun binds ranks to cores by default (then one
    // thread), otherwise the node's cores are shared among its ranks.
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    cpu_set_t set;
    CPU_ZERO(&set);
    const int allowed =
        sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(1, CPU_COUNT(&set)) : hw;
    o.threads = allowed < hw ? allowed : std::max(1, hw / std::max(1, ranks_on_node));
  }
}

}  // namespace lu
