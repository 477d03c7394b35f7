// gaea::ga::distribution: block, irregular and block-cyclic layouts of an index space, with
// ghosts, owners, tiles, storage offsets, and the pieces of a patch by owner.

#include "gaea/ga/distribution.hpp"

#include <algorithm>
#include <limits>

#include "gaea/base/error.hpp"

namespace gaea::ga {

const char* kind_name(layout_spec::kind k) noexcept {
  switch (k) {
    case layout_spec::kind::block:
      return "block";
    case layout_spec::kind::irregular:
      return "irregular";
    case layout_spec::kind::block_cyclic:
      return "block_cyclic";
  }
  return "?";
}

namespace {
std::vector<int> prime_factors_descending(int n) {
  std::vector<int> f;
  for (int p = 2; p * p <= n; ++p)
    while (n % p == 0)
      f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  std::sort(f.rbegin(), f.rend());
  return f;
}
}  // namespace

distribution::distribution(const std::string& name, const index& dims, int nprocs,
                           const layout_spec& spec, std::vector<int> ranks)
    : name_(name), dims_(dims), nprocs_(nprocs), spec_(spec) {
  const std::string who = "global_array '" + name + "'";
  if (!ranks.empty()) {
    if (ranks.size() != static_cast<std::size_t>(nprocs))
      throw error(who + ": " + std::to_string(ranks.size()) + " ranks given for " +
                  std::to_string(nprocs) + " processes");
    bool identity = true;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const int r = ranks[i];
      if (r < 0) throw error(who + ": rank " + std::to_string(r) + " in its process list");
      if (static_cast<std::size_t>(r) >= members_.size())
        members_.resize(static_cast<std::size_t>(r) + 1, -1);
      if (members_[static_cast<std::size_t>(r)] >= 0)
        throw error(who + ": rank " + std::to_string(r) + " is twice in its process list");
      members_[static_cast<std::size_t>(r)] = static_cast<int>(i);
      identity = identity && r == static_cast<int>(i);
    }
    if (identity)
      members_.clear();  // the common case keeps its lookups free
    else
      ranks_ = std::move(ranks);
  }
  if (dims.empty() || dims.size() > static_cast<std::size_t>(max_dims))
    throw error(who + ": " + std::to_string(dims.size()) + " dimensions; 1 to " +
                std::to_string(max_dims) + " are supported");
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] <= 0)
      throw error(who + ": dims[" + std::to_string(d) + "]=" + std::to_string(dims[d]) +
                  " must be positive (dims = " + format_index(dims) + ")");
  if (nprocs < 1) throw error(who + ": " + std::to_string(nprocs) + " processes");
  const std::size_t n = dims.size();
  ghosts_ = index(n, 0);
  if (!spec.ghosts.empty()) {
    if (spec.ghosts.size() != n)
      throw error(who + ": ghost widths have " + std::to_string(spec.ghosts.size()) +
                  " entries for " + std::to_string(n) + " dimensions");
    if (spec.type == layout_spec::kind::block_cyclic)
      throw error(who + ": ghost cells need a block or irregular distribution, not block-cyclic");
    for (std::size_t k = 0; k < n; ++k)
      if (spec.ghosts[k] < 0 || spec.ghosts[k] > dims[k])
        throw error(who + ": ghost width " + std::to_string(spec.ghosts[k]) + " of dimension " +
                    std::to_string(k) + " must be in [0, " + std::to_string(dims[k]) + "]");
    ghosts_ = spec.ghosts;
  }
  if (!spec.ranks.empty()) {
    if (spec.type == layout_spec::kind::block_cyclic)
      throw error(who + ": a rank list needs a block or irregular distribution, not block-cyclic");
    tile_of_rank_.assign(static_cast<std::size_t>(nprocs), -1);
    for (std::size_t k = 0; k < spec.ranks.size(); ++k) {
      const int r = spec.ranks[k];
      if (r < 0 || r >= nprocs)
        throw error(who + ": rank list entry " + std::to_string(r) + " is not in [0, " +
                    std::to_string(nprocs) + ")");
      if (tile_of_rank_[static_cast<std::size_t>(r)] != -1)
        throw error(who + ": rank " + std::to_string(r) + " appears twice in the rank list");
      tile_of_rank_[static_cast<std::size_t>(r)] = static_cast<int>(k);
    }
  }
  switch (spec.type) {
    case layout_spec::kind::block:
      build_block(spec.chunk);
      break;
    case layout_spec::kind::irregular:
      build_irregular();
      break;
    case layout_spec::kind::block_cyclic:
      build_cyclic();
      break;
  }
  if (spec_.type == layout_spec::kind::block_cyclic)
    build_cyclic_storage();
  else
    build_storage();
}

// Block and irregular: walk the tiles row-major; each rank appends its tiles in that order.
void distribution::build_storage() {
  const std::size_t n = dims_.size();
  std::size_t ntiles = 1;
  for (int g : tgrid_)
    ntiles *= static_cast<std::size_t>(g);
  tile_offset_.assign(ntiles, 0);
  storage_.assign(static_cast<std::size_t>(nprocs_), 0);
  index c(n, 0);
  for (std::size_t t = 0; t < ntiles; ++t) {
    const int r = owner_of_tile(c);
    tile_offset_[t] = storage_[static_cast<std::size_t>(r)];
    index_t padded = 1;
    for (std::size_t k = 0; k < n; ++k)
      padded *= starts_[k][static_cast<std::size_t>(c[k]) + 1] -
                starts_[k][static_cast<std::size_t>(c[k])] + 2 * ghosts_[k];
    storage_[static_cast<std::size_t>(r)] += padded;
    for (std::size_t k = n; k-- > 0;) {
      if (++c[k] < tgrid_[k]) break;
      c[k] = 0;
    }
  }
}

void distribution::build_block(const index& chunk) {
  const std::string who = "global_array '" + name_ + "'";
  const index& dims = dims_;
  const int nprocs = data_ranks();
  if (!chunk.empty() && chunk.size() != dims.size())
    throw error(who + ": chunk hint has " + std::to_string(chunk.size()) + " entries for " +
                std::to_string(dims.size()) + " dimensions");
  for (std::size_t d = 0; d < chunk.size(); ++d)
    if (chunk[d] < 0 || chunk[d] > dims[d])
      throw error(who + ": chunk[" + std::to_string(d) + "]=" + std::to_string(chunk[d]) +
                  " must be in [0, " + std::to_string(dims[d]) + "]");

  // Process grid: two greedy candidates, keep the one that employs more ranks.
  //  (a) hand out the prime factors of P, largest first;
  //  (b) add one block at a time while the product stays <= P (this uses ranks that (a)
  //      cannot, e.g. 3 blocks for 4 ranks on a 3-element array).
  // Both give each step to the dimension whose blocks are currently widest, never splitting a
  // dimension below its chunk hint.
  const std::size_t n = dims.size();
  auto widest = [&](const std::vector<int>& g, auto&& next_count, index_t budget) {
    index_t prod = 1;
    for (int x : g)
      prod *= x;
    int best = -1;
    double best_len = 0;
    for (std::size_t d = 0; d < n; ++d) {
      const index_t next = next_count(g[d]);
      const index_t min_block = chunk.empty() || chunk[d] == 0 ? 1 : chunk[d];
      if (dims[d] / next < min_block || prod / g[d] * next > budget) continue;
      const double len = static_cast<double>(dims[d]) / g[d];
      if (len > best_len) best_len = len, best = static_cast<int>(d);
    }
    return best;
  };
  std::vector<int> a(n, 1), b(n, 1);
  for (int f : prime_factors_descending(nprocs)) {
    const int d = widest(
        a, [f](int g) { return static_cast<index_t>(g) * f; }, nprocs);
    if (d >= 0) a[static_cast<std::size_t>(d)] *= f;
  }
  for (int d; (d = widest(
                   b, [](int g) { return static_cast<index_t>(g) + 1; }, nprocs)) >= 0;)
    ++b[static_cast<std::size_t>(d)];
  auto product = [](const std::vector<int>& g) {
    index_t p = 1;
    for (int x : g)
      p *= x;
    return p;
  };
  tgrid_ = product(b) > product(a) ? b : a;
  pgrid_ = tgrid_;
  // Balanced boundaries: block sizes along a dimension differ by at most one.
  starts_.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    starts_[d].resize(static_cast<std::size_t>(tgrid_[d]) + 1);
    for (int i = 0; i <= tgrid_[d]; ++i)
      starts_[d][static_cast<std::size_t>(i)] = dims[d] * i / tgrid_[d];
  }
}

void distribution::set_starts(const std::vector<std::vector<index_t>>& starts) {
  const std::string who = "global_array '" + name_ + "'";
  const std::size_t n = dims_.size();
  if (starts.size() != n)
    throw error(who + ": irregular distribution has block starts for " +
                std::to_string(starts.size()) + " dimensions; the array has " + std::to_string(n));
  starts_.resize(n);
  tgrid_.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    const auto& s = starts[d];
    if (s.empty() || s[0] != 0)
      throw error(who + ": block starts of dimension " + std::to_string(d) + " must begin with 0");
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s[i] <= s[i - 1] || s[i] >= dims_[d])
        throw error(who + ": block start " + std::to_string(s[i]) + " of dimension " +
                    std::to_string(d) + " must be increasing and below " +
                    std::to_string(dims_[d]));
    starts_[d] = s;
    starts_[d].push_back(dims_[d]);
    tgrid_[d] = static_cast<int>(s.size());
  }
}

int distribution::data_ranks() const noexcept {
  return spec_.ranks.empty() ? nprocs_ : static_cast<int>(spec_.ranks.size());
}

void distribution::build_irregular() {
  const std::string who = "global_array '" + name_ + "'";
  set_starts(spec_.starts);
  index_t tiles = 1;
  for (const int g : tgrid_)
    tiles *= g;
  if (tiles > data_ranks())
    throw error(who + ": irregular distribution has " + std::to_string(tiles) + " blocks for " +
                std::to_string(data_ranks()) + " ranks");
  pgrid_ = tgrid_;
}

void distribution::build_cyclic() {
  const std::string who = "global_array '" + name_ + "'";
  if (dims_.size() != 2)
    throw error(who + ": block-cyclic distributions are 2-D; this array has " +
                std::to_string(dims_.size()) + " dimensions");
  if (spec_.tile.size() != 2 && spec_.starts.empty())
    throw error(who + ": block-cyclic tile has " + std::to_string(spec_.tile.size()) +
                " extents; 2 are needed");
  std::vector<int> g = spec_.grid;
  if (g.empty()) {  // squarest grid with rows <= cols
    int r = 1;
    for (int i = 1; i * i <= nprocs_; ++i)
      if (nprocs_ % i == 0) r = i;
    g = {r, nprocs_ / r};
  }
  if (g.size() != 2 || g[0] < 1 || g[1] < 1 || static_cast<index_t>(g[0]) * g[1] > nprocs_)
    throw error(who + ": process grid must be 2 positive numbers whose product is at most " +
                std::to_string(nprocs_));
  pgrid_ = g;
  if (!spec_.starts.empty()) {  // irregular tiles (GA_Set_tiled_irreg_proc_grid)
    set_starts(spec_.starts);
    return;
  }
  starts_.resize(2);
  tgrid_.resize(2);
  for (std::size_t d = 0; d < 2; ++d) {
    const index_t t = spec_.tile[d];
    if (t < 1 || t > dims_[d])
      throw error(who + ": block-cyclic tile extent " + std::to_string(t) + " of dimension " +
                  std::to_string(d) + " must be in [1, " + std::to_string(dims_[d]) + "]");
    // The tile grid is an int per dimension (and its tables grow with it): refuse more tiles.
    const index_t count = dims_[d] / t + (dims_[d] % t != 0 ? 1 : 0);
    if (count > std::numeric_limits<int>::max())
      throw error(who + ": " + std::to_string(count) + " block-cyclic tiles along dimension " +
                  std::to_string(d) + " (extent " + std::to_string(dims_[d]) + ", tile " +
                  std::to_string(t) + "); at most " +
                  std::to_string(std::numeric_limits<int>::max()));
    starts_[d].reserve(static_cast<std::size_t>(count) + 1);
    for (index_t k = 0; k < count; ++k)
      starts_[d].push_back(k * t);
    starts_[d].push_back(dims_[d]);
    tgrid_[d] = static_cast<int>(starts_[d].size() - 1);
  }
}

bool distribution::has_ghosts() const noexcept {
  return std::any_of(ghosts_.begin(), ghosts_.end(), [](index_t g) { return g > 0; });
}

int distribution::owner_of_tile(const index& c) const noexcept {
  if (spec_.type == layout_spec::kind::block_cyclic)
    return static_cast<int>(c[0] % pgrid_[0]) * pgrid_[1] + static_cast<int>(c[1] % pgrid_[1]);
  const auto k = tile_linear(c);
  return spec_.ranks.empty() ? static_cast<int>(k) : spec_.ranks[k];
}

std::size_t distribution::tile_linear(const index& c) const noexcept {
  std::size_t t = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d)
    t = t * static_cast<std::size_t>(tgrid_[d]) + static_cast<std::size_t>(c[d]);
  return t;
}

int distribution::member_of(int rank) const noexcept {
  if (ranks_.empty()) return rank >= 0 && rank < nprocs_ ? rank : -1;
  if (rank < 0 || static_cast<std::size_t>(rank) >= members_.size()) return -1;
  return members_[static_cast<std::size_t>(rank)];
}

tile distribution::make_tile(const index& c) const {
  const std::size_t n = dims_.size();
  tile t{patch{index(n), index(n)}, rank_of(owner_of_tile(c)), tile_offset_[tile_linear(c)]};
  for (std::size_t d = 0; d < n; ++d) {
    t.box.lo[d] = starts_[d][static_cast<std::size_t>(c[d])];
    t.box.hi[d] = starts_[d][static_cast<std::size_t>(c[d]) + 1] - 1;
  }
  return t;
}

patch distribution::block(int rank) const {
  if (spec_.type == layout_spec::kind::block_cyclic)
    throw error("global_array '" + name_ +
                "': block-cyclic ranks own many tiles; ask for tiles(rank)");
  const std::size_t n = dims_.size();
  const std::size_t procs = tile_offset_.size();
  const patch none{index(n, 0), index(n, -1)};
  const int member = member_of(rank);  // spec_.ranks and its tiles count in members
  if (member < 0) return none;
  const int k = spec_.ranks.empty() ? member : tile_of_rank_[static_cast<std::size_t>(member)];
  if (k < 0 || static_cast<std::size_t>(k) >= procs) return none;
  index c(n);
  std::size_t r = static_cast<std::size_t>(k);
  for (std::size_t d = n; d-- > 0;) {
    c[d] = static_cast<index_t>(r % static_cast<std::size_t>(tgrid_[d]));
    r /= static_cast<std::size_t>(tgrid_[d]);
  }
  return make_tile(c).box;
}

std::vector<tile> distribution::tiles(int rank) const {
  std::vector<tile> out;
  const int member = member_of(rank);
  if (member < 0) return out;
  if (spec_.type != layout_spec::kind::block_cyclic) {
    const patch b = block(rank);
    if (!b.empty()) out.push_back(tile_of(b.lo));
    return out;
  }
  const std::size_t pr = static_cast<std::size_t>(pgrid_[0]),
                    pc = static_cast<std::size_t>(pgrid_[1]);
  const auto me = static_cast<std::size_t>(member);
  if (me >= pr * pc) return out;
  for (std::size_t i = me / pc; i < static_cast<std::size_t>(tgrid_[0]); i += pr)
    for (std::size_t j = me % pc; j < static_cast<std::size_t>(tgrid_[1]); j += pc)
      out.push_back(make_tile(index{static_cast<index_t>(i), static_cast<index_t>(j)}));
  return out;
}

index_t distribution::storage_elements(int rank) const {
  const int member = member_of(rank);
  if (member < 0) return 0;
  return storage_[static_cast<std::size_t>(member)];
}

// Block-cyclic: each rank's tiles form one row-major local matrix, as ScaLAPACK lays out its
// local arrays. Tile (I, J) starts at local row = the rows of the rank's tile rows above I, and
// local column likewise. The tiles of any rectangle of a rank's tiles are then one strided
// matrix: one GEMM can update a whole trailing submatrix, where tile-by-tile storage needs a
// call (and OpenBLAS a repacking of both operands) per tile.
void distribution::build_cyclic_storage() {
  const auto prow = static_cast<std::size_t>(pgrid_[0]), pcol = static_cast<std::size_t>(pgrid_[1]);
  const auto extent = [&](std::size_t d, std::size_t t) {
    return starts_[d][t + 1] - starts_[d][t];
  };
  std::vector<index_t> row_at(static_cast<std::size_t>(tgrid_[0])),
      col_at(static_cast<std::size_t>(tgrid_[1]));
  std::vector<index_t> rows(prow, 0), cols(pcol, 0);  // local matrix extents per grid row/col
  for (std::size_t i = 0; i < row_at.size(); ++i) {
    row_at[i] = rows[i % prow];
    rows[i % prow] += extent(0, i);
  }
  for (std::size_t j = 0; j < col_at.size(); ++j) {
    col_at[j] = cols[j % pcol];
    cols[j % pcol] += extent(1, j);
  }
  storage_.assign(static_cast<std::size_t>(nprocs_), 0);
  local_ld_.assign(static_cast<std::size_t>(nprocs_), 0);
  for (std::size_t r = 0; r < prow * pcol; ++r) {
    local_ld_[r] = cols[r % pcol];
    storage_[r] = rows[r / pcol] * cols[r % pcol];
  }
  tile_offset_.assign(row_at.size() * col_at.size(), 0);
  for (std::size_t i = 0; i < row_at.size(); ++i)
    for (std::size_t j = 0; j < col_at.size(); ++j)
      tile_offset_[i * col_at.size() + j] = row_at[i] * cols[j % pcol] + col_at[j];
}

index distribution::storage_strides(const tile& t) const {
  const std::size_t n = dims_.size();
  index s(n, 1);
  if (spec_.type == layout_spec::kind::block_cyclic) {
    s[0] = local_ld_[static_cast<std::size_t>(member_of(t.rank))];
    return s;
  }
  for (std::size_t d = n - 1; d-- > 0;)
    s[d] = s[d + 1] * (t.box.hi[d + 1] - t.box.lo[d + 1] + 1 + 2 * ghosts_[d + 1]);
  return s;
}

index_t distribution::storage_offset(const tile& t, const index& element) const {
  const index s = storage_strides(t);
  index_t o = t.offset;
  for (std::size_t d = 0; d < dims_.size(); ++d)
    o += (element[d] - t.box.lo[d] + ghosts_[d]) * s[d];
  return o;
}

tile distribution::tile_of(const index& element) const {
  const std::size_t n = dims_.size();
  index c(n);
  for (std::size_t d = 0; d < n; ++d) {
    const auto& s = starts_[d];
    c[d] = std::upper_bound(s.begin(), s.end(), element[d]) - s.begin() - 1;
  }
  return make_tile(c);
}

int distribution::owner(const index& element) const {
  validate(patch{element, element}, "owner");
  return tile_of(element).rank;
}

void distribution::validate(const patch& p, std::string_view op) const {
  // Messages are built only on failure: this runs on every get/put/acc.
  auto who = [&] { return "global_array '" + name_ + "': " + std::string(op) + ": "; };
  if (p.lo.size() != dims_.size() || p.hi.size() != dims_.size())
    throw error(who() + "patch has " + std::to_string(p.lo.size()) + "/" +
                std::to_string(p.hi.size()) + " lo/hi indices for a " +
                std::to_string(dims_.size()) + "-D array");
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (p.lo[d] > p.hi[d])
      throw error(who() + "patch lo[" + std::to_string(d) + "]=" + std::to_string(p.lo[d]) +
                  " > hi[" + std::to_string(d) + "]=" + std::to_string(p.hi[d]));
    if (p.lo[d] < 0 || p.hi[d] >= dims_[d])
      throw error(who() + "patch " + p.str() + " is outside the array: dimension " +
                  std::to_string(d) + " has indices 0.." + std::to_string(dims_[d] - 1) +
                  " (dims = " + format_index(dims_) + ")");
  }
}

std::vector<owned_patch> distribution::locate(const patch& p) const {
  std::vector<owned_patch> out;
  for_each_tile(p, [&](const tile& t, const patch& piece) { out.push_back({t.rank, piece}); });
  return out;
}

std::vector<int> distribution::owners(const patch& p) const {
  std::vector<int> out;
  for_each_tile(p, [&](const tile& t, const patch&) { out.push_back(t.rank); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gaea::ga
