#pragma once
/// \file
/// gaea::ga::distribution — how an N-D index space is cut into one block per rank.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gaea/ga/patch.hpp"

namespace gaea::ga {

/// A piece of a patch and the rank that owns it.
struct owned_patch {
  /// Runtime rank that owns the piece.
  int rank;
  /// The part of the patch in one of that rank's tiles (global indices).
  patch piece;
};

/// What update_ghosts() puts in the ghost cells beyond the array's edges: `periodic` wraps
/// around (the opposite edge's elements); `fixed` leaves them as they are (boundary values the
/// program sets, e.g. a Dirichlet condition). Inside the array both fill every ghost cell.
enum class boundary : std::uint8_t { periodic, fixed };

/// How an array's index space is cut into tiles and how tiles are given to ranks.
///   - block: one tile per rank on a process grid, balanced, never below the `chunk` hint;
///   - irregular: one tile per rank, with the block start indices given per dimension;
///   - block_cyclic (2-D): tiles of a fixed size (or, given `starts`, of irregular sizes) dealt
///     round-robin over a process grid, as in ScaLAPACK; each rank owns many tiles.
/// Ghost widths (block and irregular only) pad every tile's storage on both sides. `ranks`
/// (block and irregular) restricts the data to a list of ranks (GA's restricted arrays): tile k
/// (row-major) belongs to ranks[k], the other ranks own nothing.
struct layout_spec {
  /// The three ways to cut (see above).
  enum class kind : std::uint8_t { block, irregular, block_cyclic };
  /// Which of them (default block).
  kind type = kind::block;
  index chunk;                               ///< block: minimum tile extent per dimension
  std::vector<std::vector<index_t>> starts;  ///< irregular, block_cyclic: block starts, first 0
  index tile;                                ///< block_cyclic: tile extents (without starts)
  std::vector<int> grid;                     ///< block_cyclic: process grid (default: squarest)
  index ghosts;                              ///< ghost width per dimension (default none)
  std::vector<int> ranks;                    ///< block, irregular: data ranks (default all)

  /// Block distribution with minimum tile extents `chunk` per dimension (empty: no minimum).
  static layout_spec block(index chunk = {}) {
    layout_spec s;
    s.chunk = chunk;
    return s;
  }
  /// Irregular distribution: `starts` per dimension, each beginning with 0 and ascending. Checked
  /// when the distribution is built (gaea::error there).
  static layout_spec irregular(std::vector<std::vector<index_t>> starts) {
    layout_spec s;
    s.type = kind::irregular;
    s.starts = std::move(starts);
    return s;
  }
  /// 2-D block-cyclic with tiles of extents `tile`, dealt over the process grid `grid` (rows,
  /// cols; empty: the squarest one). Checked when the distribution is built.
  static layout_spec block_cyclic(index tile, std::vector<int> grid = {}) {
    layout_spec s;
    s.type = kind::block_cyclic;
    s.tile = tile;
    s.grid = std::move(grid);
    return s;
  }
  /// 2-D block-cyclic with irregular tiles: `starts` per dimension, dealt over `grid`.
  static layout_spec block_cyclic_irregular(std::vector<std::vector<index_t>> starts,
                                            std::vector<int> grid = {}) {
    layout_spec s;
    s.type = kind::block_cyclic;
    s.starts = std::move(starts);
    s.grid = std::move(grid);
    return s;
  }
  /// A copy with ghost widths `w` (one per dimension).
  layout_spec with_ghosts(index w) const {
    layout_spec s = *this;
    s.ghosts = w;
    return s;
  }
};

/// "block", "irregular" or "block_cyclic" (as stored in files and printed in messages).
const char* kind_name(layout_spec::kind k) noexcept;

/// One tile: a box of the index space, its owner, and where its storage starts in the owner's
/// memory (elements, counting ghost cells).
struct tile {
  /// Its box of the index space (global indices, ghosts excluded).
  patch box;
  /// Runtime rank that stores it (-1 in a default-constructed tile).
  int rank = -1;
  /// Elements from the start of the owner's storage to the tile's first (ghost) cell.
  index_t offset = 0;
};

/// Maps an N-D index space to ranks. Tiles are kept as per-dimension boundaries (a tile grid),
/// so every lookup is a binary search per dimension. Each rank stores its tiles one after the
/// other, row-major inside a tile, each padded by the ghost widths.
/// Thread safety: immutable after construction.
class distribution {
 public:
  /// `dims`: extents (each > 0, at most max_dims of them). `name` appears in error messages.
  /// The array is cut for `nprocs` processes; `ranks` gives the runtime rank of each (the
  /// members of a process group, in member order; empty: ranks 0..nprocs-1). Every rank in
  /// the answers below (tile::rank, owner, tiles(rank), ...) is a runtime rank.
  /// Throws gaea::error for bad dims or a spec that does not fit them or `nprocs`.
  distribution(const std::string& name, const index& dims, int nprocs, const layout_spec& spec,
               std::vector<int> ranks = {});
  /// Block distribution with an optional minimum block extent per dimension (GA's chunk).
  distribution(const std::string& name, const index& dims, int nprocs, const index& chunk = {})
      : distribution(name, dims, nprocs, layout_spec::block(chunk)) {}

  /// Number of dimensions.
  int ndim() const noexcept { return static_cast<int>(dims_.size()); }
  /// Extent of each dimension.
  const index& dims() const noexcept { return dims_; }
  /// The spec it was built from.
  const layout_spec& spec() const noexcept { return spec_; }
  /// Number of processes it is cut for.
  int nprocs() const noexcept { return nprocs_; }
  /// Runtime rank of process `member` (0..nprocs()-1) of the distribution.
  int rank_of(int member) const noexcept {
    return ranks_.empty() ? member : ranks_[static_cast<std::size_t>(member)];
  }
  /// Process index (0..nprocs()-1) of runtime rank `rank`, or -1 when it takes no part.
  int member_of(int rank) const noexcept;
  /// Tiles per dimension (block, irregular: the process grid).
  const std::vector<int>& grid() const noexcept { return tgrid_; }
  /// block_cyclic: the process grid (rows, cols); otherwise equal to grid().
  const std::vector<int>& process_grid() const noexcept { return pgrid_; }
  /// Ghost width per dimension (zeros when the array has none).
  const index& ghosts() const noexcept { return ghosts_; }
  /// True when some dimension has a ghost width > 0.
  bool has_ghosts() const noexcept;
  /// The one tile of `rank` (empty patch if it owns nothing). Throws gaea::error for a
  /// block-cyclic array, whose ranks own many tiles: use tiles(rank).
  patch block(int rank) const;
  /// Tiles owned by `rank`, row-major over the tile grid.
  std::vector<tile> tiles(int rank) const;
  /// Elements `rank` stores, ghost cells included.
  index_t storage_elements(int rank) const;
  /// Row-major strides (elements) of a tile's storage: its extents plus ghosts on both sides,
  /// or, block-cyclic, the owner's local matrix (all its tiles, ScaLAPACK's local layout).
  index storage_strides(const tile& t) const;
  /// Offset (elements) of `element` in the owner's storage of tile `t` (ghost positions allowed).
  index_t storage_offset(const tile& t, const index& element) const;
  /// The tile holding `element` (which must be inside the array).
  tile tile_of(const index& element) const;
  /// Owner of `element`; throws gaea::error if it is outside the array.
  int owner(const index& element) const;
  /// Owners of a (validated) patch and their pieces, one per tile, in tile order.
  std::vector<owned_patch> locate(const patch& p) const;
  /// Distinct owners of a (validated) patch, ascending.
  std::vector<int> owners(const patch& p) const;
  /// Calls fn(tile, piece) for every tile that intersects a (validated) patch, without allocating.
  template <class Fn>
  void for_each_tile(const patch& p, Fn&& fn) const;
  /// Start indices of the tiles along dimension d (size grid()[d] + 1, last = dims[d]).
  const std::vector<index_t>& boundaries(int d) const {
    return starts_.at(static_cast<std::size_t>(d));
  }

  /// Throws gaea::error unless `p` is a valid patch of this space: same rank, lo <= hi, in bounds.
  void validate(const patch& p, std::string_view op) const;

 private:
  void build_block(const index& chunk);
  void build_irregular();
  void set_starts(const std::vector<std::vector<index_t>>& s);
  int data_ranks() const noexcept;
  void build_cyclic();
  void build_storage();
  void build_cyclic_storage();
  // The process (member index, not runtime rank) owning tile coordinates `c`.
  int owner_of_tile(const index& c) const noexcept;
  std::size_t tile_linear(const index& c) const noexcept;
  tile make_tile(const index& c) const;

  std::string name_;
  index dims_;
  int nprocs_;
  layout_spec spec_;
  index ghosts_;
  std::vector<int> tgrid_, pgrid_;
  std::vector<std::vector<index_t>> starts_;
  std::vector<index_t> tile_offset_;  // per tile (row-major over the tile grid)
  std::vector<index_t> storage_;      // per member
  std::vector<index_t> local_ld_;     // per rank, block-cyclic: columns of its local matrix
  std::vector<int> tile_of_rank_;     // per member, with spec_.ranks: its tile (-1: none)
  std::vector<int> ranks_;            // runtime rank per member (empty: the identity)
  std::vector<int> members_;          // member per runtime rank (-1: none; empty: identity)
};

template <class Fn>
void distribution::for_each_tile(const patch& p, Fn&& fn) const {
  const std::size_t n = dims_.size();
  index first(n), last(n), c(n);
  for (std::size_t d = 0; d < n; ++d) {
    const auto& s = starts_[d];
    first[d] = std::upper_bound(s.begin(), s.end(), p.lo[d]) - s.begin() - 1;
    last[d] = std::upper_bound(s.begin(), s.end(), p.hi[d]) - s.begin() - 1;
  }
  c = first;
  while (true) {
    const tile t = make_tile(c);
    const patch piece = t.box.intersect(p);
    if (!piece.empty()) fn(t, piece);
    // Odometer over the tile coordinates, last dimension fastest.
    std::size_t d = n;
    while (d-- > 0) {
      if (++c[d] <= last[d]) break;
      c[d] = first[d];
    }
    if (d == static_cast<std::size_t>(-1)) break;
  }
}

}  // namespace gaea::ga
