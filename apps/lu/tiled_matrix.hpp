#pragma once
/// \file
/// The N×N matrix of the LU mini-app: a 2-D block-cyclic global_array<double> plus the tile
/// arithmetic (tile extents, owners, this rank's tiles by tile coordinates).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gaea/ga/global_array.hpp"
#include "kernels.hpp"

namespace lu {

/// A tile of the matrix held by this rank (zero-copy into the global array's storage).
struct local_tile {
  index_t ti = 0, tj = 0;  ///< tile coordinates
  double* data = nullptr;  ///< row-major with leading dimension ld
  index_t rows = 0, cols = 0;
  index_t ld = 0;  ///< the rank's local matrix width: its tiles are one row-major matrix
  block_map map() const { return map_block(data, rows, cols, ld); }
  double& at(index_t i, index_t j) const { return data[i * ld + j]; }
};

/// Owns the global array. Collective construction; queries are local and thread-safe.
class tiled_matrix {
 public:
  /// Collective. `n` > 0, 0 < `nb` <= n, `p`·`q` = ranks (checked by the caller's options).
  tiled_matrix(std::string name, index_t n, index_t nb, int p, int q);

  index_t n() const noexcept { return n_; }
  index_t nb() const noexcept { return nb_; }
  index_t tiles() const noexcept { return nt_; }  ///< tiles per dimension
  int prow() const noexcept { return p_; }
  int pcol() const noexcept { return q_; }
  int my_prow() const noexcept { return myr_; }
  int my_pcol() const noexcept { return myc_; }
  int rank() const noexcept { return me_; }
  /// Rows (or columns) of tile row (column) t.
  index_t extent(index_t t) const noexcept { return t + 1 < nt_ ? nb_ : n_ - t * nb_; }
  index_t start(index_t t) const noexcept { return t * nb_; }
  int owner(index_t ti, index_t tj) const noexcept {
    return static_cast<int>(ti % p_) * q_ + static_cast<int>(tj % q_);
  }
  bool mine(index_t ti, index_t tj) const noexcept { return owner(ti, tj) == me_; }
  /// This rank's tile (ti, tj); requires mine(ti, tj).
  const local_tile& tile(index_t ti, index_t tj) const {
    return local_[static_cast<std::size_t>((ti / p_) * local_cols_ + tj / q_)];
  }
  /// Rows (columns) of this rank's local matrix above (left of) tile row ti (column tj), which
  /// must be in this rank's process row (column). The local matrix holds all of this rank's
  /// tiles, row-major with leading dimension local_ld(), as ScaLAPACK lays them out.
  index_t local_row(index_t ti) const noexcept { return ti / p_ * nb_; }
  index_t local_col(index_t tj) const noexcept { return tj / q_ * nb_; }
  index_t local_rows() const noexcept { return local_rows_; }
  index_t local_ld() const noexcept { return local_ld_; }
  /// The first tile row (column) >= t in this rank's process row (column); tiles() if none.
  index_t first_row_from(index_t t) const noexcept { return first_from(t, myr_, p_); }
  index_t first_col_from(index_t t) const noexcept { return first_from(t, myc_, q_); }
  /// This rank's local matrix (empty when it owns no tile).
  double* local_data() const noexcept { return local_data_; }
  /// All tiles of this rank.
  const std::vector<local_tile>& local_tiles() const noexcept { return local_; }
  /// The patch of tile (ti, tj).
  gaea::ga::patch tile_patch(index_t ti, index_t tj) const {
    return {{start(ti), start(tj)}, {start(ti) + extent(ti) - 1, start(tj) + extent(tj) - 1}};
  }
  gaea::global_array<double>& array() noexcept { return a_; }
  const gaea::global_array<double>& array() const noexcept { return a_; }

 private:
  index_t n_, nb_, nt_;
  int p_, q_, me_, myr_, myc_;
  index_t first_from(index_t t, int mine, int stride) const noexcept {
    const index_t f = t + ((mine - t % stride) % stride + stride) % stride;
    return std::min(f, nt_);
  }
  index_t local_cols_ = 0;                 ///< tiles per local tile row
  index_t local_rows_ = 0, local_ld_ = 0;  ///< the local matrix's extents
  double* local_data_ = nullptr;
  gaea::global_array<double> a_;
  std::vector<local_tile> local_;
};

}  // namespace lu
