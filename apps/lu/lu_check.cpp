// Solving A x = b with gaea-lu's distributed factors, and the residual checks of the result.

#include "lu_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "gaea/coll/collectives.hpp"

namespace lu {

namespace {

using vec_map = Eigen::Map<Eigen::VectorXd>;
using const_vec_map = Eigen::Map<const Eigen::VectorXd>;

gaea::ga::patch segment(const tiled_matrix& m, index_t t) {
  return {{m.start(t)}, {m.start(t) + m.extent(t) - 1}};
}

/// One block substitution sweep. `forward`: L (unit lower) from the first block down;
/// otherwise U (upper) from the last block up. `x` holds the right-hand side on entry (in the
/// distributed vector `xg`) and the solution on exit.
void sweep(tiled_matrix& m, gaea::global_array<double>& xg, gaea::global_array<double>& partial,
           bool forward) {
  const index_t nt = m.tiles();
  std::vector<double> piece, rhs, prod;
  partial.zero();
  for (index_t s = 0; s < nt; ++s) {
    const index_t k = forward ? s : nt - 1 - s, w = m.extent(k);
    const gaea::ga::patch seg = segment(m, k);
    if (m.mine(k, k)) {
      rhs.resize(static_cast<std::size_t>(w));
      piece.resize(rhs.size());
      xg.get(seg, rhs);
      partial.get(seg, piece);
      vec_map v(rhs.data(), w);
      v -= const_vec_map(piece.data(), w);
      const const_block_map d = const_map_block(m.tile(k, k).data, w, w, m.tile(k, k).ld);
      if (forward)
        d.triangularView<Eigen::UnitLower>().solveInPlace(v);
      else
        d.triangularView<Eigen::Upper>().solveInPlace(v);
      xg.put(seg, rhs);
    }
    xg.sync();
    bool fetched = false;
    for (const auto& lt : m.local_tiles()) {
      if (lt.tj != k || (forward ? lt.ti <= k : lt.ti >= k)) continue;
      if (!fetched) {
        piece.resize(static_cast<std::size_t>(w));
        xg.get(seg, piece);
        fetched = true;
      }
      prod.resize(static_cast<std::size_t>(lt.rows));
      vec_map(prod.data(), lt.rows).noalias() = lt.map() * const_vec_map(piece.data(), w);
      partial.acc(segment(m, lt.ti), prod);
    }
    partial.sync();
  }
}

/// A Frobenius norm accumulated without overflow (entries above ~1e154 square to infinity):
/// the norm is scale·sqrt(ssq), each part's norm taken with Eigen's stableNorm.
struct scaled_norm {
  double scale = 0, ssq = 1;
  void add(double part) {
    if (!(part > 0)) {
      if (std::isnan(part)) scale = part;
      return;
    }
    if (part > scale) {
      ssq = 1 + ssq * (scale / part) * (scale / part);
      scale = part;
    } else {
      ssq += (part / scale) * (part / scale);
    }
  }
};

/// Collective: the Frobenius norms of the parts every rank accumulated in `local` (NaN stays).
std::vector<double> global_norms(std::span<const scaled_norm> local) {
  std::vector<double> scale(local.size()), ssq(local.size());
  for (std::size_t i = 0; i < local.size(); ++i)
    scale[i] = local[i].scale;
  gaea::coll::allreduce(gaea::coll::world(), std::span<double>(scale), gaea::coll::reduce_op::max);
  for (std::size_t i = 0; i < local.size(); ++i) {
    const double r = scale[i] > 0 ? local[i].scale / scale[i] : 0;
    ssq[i] = std::isnan(local[i].scale) ? local[i].scale : local[i].ssq * r * r;
  }
  gaea::coll::allreduce(gaea::coll::world(), std::span<double>(ssq), gaea::coll::reduce_op::sum);
  for (std::size_t i = 0; i < local.size(); ++i)
    ssq[i] = scale[i] * std::sqrt(ssq[i]);
  return ssq;
}

}  // namespace

std::vector<double> solve(tiled_matrix& m, std::span<const index_t> pivots,
                          std::span<const double> b) {
  const index_t n = m.n();
  gaea::global_array<double> xg("lu_x", {n}), partial("lu_partial", {n});
  std::vector<double> x(b.begin(), b.end());
  for (std::size_t r = 0; r < pivots.size(); ++r)
    std::swap(x[r], x[static_cast<std::size_t>(pivots[r])]);
  // Every rank holds P·b; the owners of the vector's blocks publish it.
  const gaea::ga::patch mine = xg.local_block();
  if (!mine.empty())
    xg.put(mine, std::span(x).subspan(static_cast<std::size_t>(mine.lo[0]),
                                      static_cast<std::size_t>(mine.extent(0))));
  xg.sync();
  sweep(m, xg, partial, true);
  sweep(m, xg, partial, false);
  xg.get({{0}, {n - 1}}, x);
  xg.sync();  // no rank frees the vectors while another still reads them
  return x;
}

check_report check(tiled_matrix& m, std::span<const index_t> pivots, const tile_source& a,
                   std::span<const double> b, std::span<const double> x, bool with_factor) {
  const index_t n = m.n();
  const auto un = static_cast<std::size_t>(n);
  const double eps = std::numeric_limits<double>::epsilon();
  check_report rep;
  // A x and the row sums of |A| from the original tiles; then sums over ranks.
  std::vector<double> sums(2 * un, 0.0);  // A x, row |A| sums
  std::array<scaled_norm, 2> norms;       // ‖A‖_F, ‖PA − LU‖_F
  std::vector<double> tile;
  const const_vec_map xv(x.data(), n);
  // The factor check needs every rank to hold L and U and the row permutation.
  row_matrix f;
  std::vector<index_t> inverse;
  if (with_factor) {
    f.resize(n, n);
    m.array().get({{0, 0}, {n - 1, n - 1}}, std::span(f.data(), un * un));
    std::vector<index_t> perm(un);
    std::iota(perm.begin(), perm.end(), index_t{0});
    for (std::size_t r = 0; r < pivots.size(); ++r)
      std::swap(perm[r], perm[static_cast<std::size_t>(pivots[r])]);
    inverse.resize(un);
    for (std::size_t i = 0; i < un; ++i)
      inverse[static_cast<std::size_t>(perm[i])] = static_cast<index_t>(i);
  }
  row_matrix lsel, u;
  if (with_factor) u = f.triangularView<Eigen::Upper>();
  for (const auto& lt : m.local_tiles()) {
    tile.resize(static_cast<std::size_t>(lt.rows * lt.cols));
    a(lt.ti, lt.tj, lt.rows, lt.cols, tile.data());
    const const_block_map at = const_map_block(tile.data(), lt.rows, lt.cols, lt.cols);
    const index_t i0 = m.start(lt.ti), j0 = m.start(lt.tj);
    vec_map(sums.data() + i0, lt.rows) += at * xv.segment(j0, lt.cols);
    vec_map(sums.data() + un + i0, lt.rows) += at.cwiseAbs().rowwise().sum();
    if (!with_factor) continue;  // the Frobenius norms serve the factor check only
    norms[0].add(at.stableNorm());
    // Row r of A is row inverse[r] of P·A = L·U.
    lsel.resize(lt.rows, n);
    for (index_t r = 0; r < lt.rows; ++r) {
      const index_t i = inverse[static_cast<std::size_t>(i0 + r)];
      lsel.row(r).setZero();
      lsel.row(r).head(i) = f.row(i).head(i);
      lsel(r, i) = 1.0;
    }
    norms[1].add(row_matrix(at - lsel * u.middleCols(j0, lt.cols)).stableNorm());
  }
  gaea::coll::allreduce(gaea::coll::world(), std::span<double>(sums), gaea::coll::reduce_op::sum);
  const std::vector<double> fro = global_norms(norms);
  double r_inf = 0, a_inf = 0, x_inf = 0;
  for (std::size_t i = 0; i < un; ++i) {
    r_inf = std::max(r_inf, std::abs(sums[i] - b[i]));
    a_inf = std::max(a_inf, sums[un + i]);
    x_inf = std::max(x_inf, std::abs(x[i]));
  }
  // NaN anywhere must fail the check: max() above drops NaNs, so test them separately.
  const bool finite =
      std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); }) &&
      std::all_of(sums.begin(), sums.end(), [](double v) { return std::isfinite(v); }) &&
      std::all_of(fro.begin(), fro.end(), [](double v) { return std::isfinite(v); });
  rep.residual_inf = r_inf;
  rep.a_inf = a_inf;
  rep.x_inf = x_inf;
  const double nd = static_cast<double>(n);
  rep.scaled_residual =
      finite ? r_inf / (a_inf * x_inf * nd * eps) : std::numeric_limits<double>::quiet_NaN();
  if (with_factor) {
    rep.factor_checked = true;
    rep.factor_error = fro[1] / fro[0];
    if (!finite) rep.factor_error = std::numeric_limits<double>::quiet_NaN();
    rep.factor_scaled = rep.factor_error / (nd * eps);
  }
  return rep;
}

index_t first_pivot_difference(const tiled_matrix& m, std::span<const index_t> pivots,
                               const tile_source& a) {
  const index_t n = m.n(), nt = m.tiles();
  row_matrix full(n, n);
  std::vector<double> tile;
  for (index_t ti = 0; ti < nt; ++ti)
    for (index_t tj = 0; tj < nt; ++tj) {
      const index_t rows = m.extent(ti), cols = m.extent(tj);
      tile.resize(static_cast<std::size_t>(rows * cols));
      a(ti, tj, rows, cols, tile.data());
      full.block(m.start(ti), m.start(tj), rows, cols) =
          const_map_block(tile.data(), rows, cols, cols);
    }
  std::vector<index_t> ref(static_cast<std::size_t>(n));
  factor_panel(map_block(full.data(), n, n, n), ref.data());  // LAPACK getrf
  for (std::size_t r = 0; r < ref.size(); ++r)
    if (r >= pivots.size() || pivots[r] != ref[r]) return static_cast<index_t>(r);
  return -1;
}

}  // namespace lu
