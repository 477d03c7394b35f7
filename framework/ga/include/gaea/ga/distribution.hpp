#pragma once
/// \file
/// gaea::ga::distribution — how an N-D index space is cut into one block per rank.

#include <string>
#include <vector>

#include "gaea/ga/patch.hpp"

namespace gaea::ga {

/// A piece of a patch and the rank that owns it.
struct owned_patch {
  int rank;
  patch piece;
};

/// Regular block distribution over a process grid. Block boundaries are kept per dimension, so
/// irregular distributions only need other boundaries. Ranks beyond the grid own nothing.
/// Thread safety: immutable after construction.
class distribution {
 public:
  /// `dims`: extents (each > 0, at most max_dims of them). `chunk`: optional minimum block extent
  /// per dimension (0 or missing = no constraint). `name` appears in error messages.
  /// Throws gaea::Error for bad dims or chunk.
  distribution(const std::string& name, const index& dims, int nprocs, const index& chunk = {});

  int ndim() const noexcept { return static_cast<int>(dims_.size()); }
  const index& dims() const noexcept { return dims_; }
  /// Processes per dimension.
  const std::vector<int>& grid() const noexcept { return grid_; }
  /// Block of `rank` (empty patch if it owns nothing).
  patch block(int rank) const;
  /// Number of elements `rank` owns.
  index_t block_elements(int rank) const { return block(rank).elements(); }
  /// The owners of a (validated) patch and their pieces, in rank order.
  std::vector<owned_patch> locate(const patch& p) const;
  /// Calls fn(rank, piece, owner_block) for every owner of a (validated) patch, in rank order,
  /// without allocating.
  template <class Fn>
  void for_each_owner(const patch& p, Fn&& fn) const;
  /// Start indices of the blocks along dimension d (size grid()[d] + 1, last = dims[d]).
  const std::vector<index_t>& boundaries(int d) const {
    return starts_.at(static_cast<std::size_t>(d));
  }

  /// Throws gaea::Error unless `p` is a valid patch of this space: same rank, lo <= hi, in bounds.
  void validate(const patch& p, const char* op) const;

 private:
  std::string name_;
  index dims_;
  int nprocs_;
  std::vector<int> grid_;
  std::vector<std::vector<index_t>> starts_;
};

template <class Fn>
void distribution::for_each_owner(const patch& p, Fn&& fn) const {
  const std::size_t n = dims_.size();
  index first(n), last(n), c(n);
  for (std::size_t d = 0; d < n; ++d) {
    const auto& s = starts_[d];
    first[d] = std::upper_bound(s.begin(), s.end(), p.lo[d]) - s.begin() - 1;
    last[d] = std::upper_bound(s.begin(), s.end(), p.hi[d]) - s.begin() - 1;
  }
  c = first;
  while (true) {
    int rank = 0;
    patch b{index(n), index(n)};
    for (std::size_t d = 0; d < n; ++d) {
      rank = rank * grid_[d] + static_cast<int>(c[d]);
      b.lo[d] = starts_[d][static_cast<std::size_t>(c[d])];
      b.hi[d] = starts_[d][static_cast<std::size_t>(c[d]) + 1] - 1;
    }
    const patch piece = b.intersect(p);
    if (!piece.empty()) fn(rank, piece, b);
    // Odometer over the block coordinates, last dimension fastest.
    std::size_t d = n;
    while (d-- > 0) {
      if (++c[d] <= last[d]) break;
      c[d] = first[d];
    }
    if (d == static_cast<std::size_t>(-1)) break;
  }
}

}  // namespace gaea::ga
