// gaea-lu's deterministic test matrices and right-hand sides, element by element from the seed.

#include "matrix_gen.hpp"

namespace lu {

namespace {

// SplitMix64 finaliser: a good 64-bit mix, cheap enough to call once per element.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [-0.5, 0.5) from the top 53 bits.
double uniform(std::uint64_t h) noexcept {
  return static_cast<double>(h >> 11) * 0x1.0p-53 - 0.5;
}

}  // namespace

// Element (i, j) given the seed's hash.
double element(std::uint64_t seed_hash, std::int64_t i, std::int64_t j) noexcept {
  return uniform(mix(seed_hash ^ mix(static_cast<std::uint64_t>(i) * 0x100000001b3ULL +
                                     static_cast<std::uint64_t>(j))));
}

double matrix_element(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t i,
                      std::int64_t j) noexcept {
  double v = element(mix(seed), i, j);
  if (kind == matrix_kind::diag_dominant && i == j) v += static_cast<double>(n);
  return v;
}

void fill_block(matrix_kind kind, std::uint64_t seed, std::int64_t n, std::int64_t i0,
                std::int64_t j0, std::int64_t rows, std::int64_t cols, double* out,
                std::int64_t ld) noexcept {
  const std::uint64_t sh = mix(seed);
  for (std::int64_t i = 0; i < rows; ++i) {
    double* row = out + i * ld;
    for (std::int64_t j = 0; j < cols; ++j)
      row[j] = element(sh, i0 + i, j0 + j);
    if (const std::int64_t d = i0 + i - j0;
        kind == matrix_kind::diag_dominant && d >= 0 && d < cols)
      row[d] += static_cast<double>(n);
  }
}

double rhs_element(std::uint64_t seed, std::int64_t i) noexcept {
  return uniform(mix(mix(seed ^ 0x5bd1e995ULL) + static_cast<std::uint64_t>(i)));
}

}  // namespace lu
