#pragma once
/// \file
/// Command line of gaea-lu, its checks, and the automatic choices (block size, process grid,
/// threads per rank).

#include <cstdint>
#include <optional>
#include <string>

#include "matrix_gen.hpp"

namespace lu {

struct options {
  std::int64_t n = 2048;   ///< matrix order (from the file with --input)
  std::int64_t block = 0;  ///< tile size; 0: automatic
  int prow = 0, pcol = 0;  ///< process grid; 0: automatic
  bool pivot = false;      ///< partial pivoting
  bool overlap = true;     ///< prefetch the next panel during the update
  matrix_kind kind = matrix_kind::diag_dominant;
  std::uint64_t seed = 42;
  std::string input, dataset = "A";  ///< HDF5 input file and dataset
  std::string output;                ///< HDF5 output file for the factors
  int threads = 0;                   ///< threads per rank; 0: automatic
  int factor_check = -1;             ///< ‖A − LU‖ check: -1 auto (n <= 1024), 0 off, 1 on
  std::string json;                  ///< --json target: every figure ("-": standard output)
  bool corrupt_for_test = false;     ///< hidden: perturb a factor to prove the checks fail
  bool pivot_check = false;          ///< hidden: fail unless the pivots are serial LAPACK dgetrf's
};

/// Parses argv into `opt` by the programs' convention (apps/common/cli.hpp): nullopt to run,
/// else the exit status (0 after --help/--version, 2 after a bad command line, the message
/// printed). Pure: no MPI, same result on every rank; call it before the runtime exists.
std::optional<int> parse_options(int argc, char** argv, options& opt);

/// Largest matrix order accepted (--n or the --input's extent).
inline constexpr std::int64_t max_order = std::int64_t{1} << 26;

/// Fills the automatic choices and checks the values against `ranks` and the matrix order
/// (already set in opt.n). Throws gaea::error with a message naming the bad value; the same on
/// every rank.
void resolve_options(options& opt, int ranks, int ranks_on_node);

}  // namespace lu
