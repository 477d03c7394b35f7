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
  /// Start indices of the blocks along dimension d (size grid()[d] + 1, last = dims[d]).
  const index& boundaries(int d) const { return starts_.at(static_cast<std::size_t>(d)); }

  /// Throws gaea::Error unless `p` is a valid patch of this space: same rank, lo <= hi, in bounds.
  void validate(const patch& p, const char* op) const;

 private:
  std::string name_;
  index dims_;
  int nprocs_;
  std::vector<int> grid_;
  std::vector<index> starts_;
};

}  // namespace gaea::ga
