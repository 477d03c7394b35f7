// The gaea-lu model (apps/lu/lu_factor.cpp, factor_lookahead): per step k the busiest rank's
// trailing update, the next panel (diagonal factorisation, then the TRSMs of its row and column)
// computed between the lookahead update and the rest, the panel's gets (prefetched during the
// rest of the update with --overlap on, fetched at the start of the step with it off), and the
// two readiness notices. [PGAS-BGQ §IV.C.1, Fig. 12]
#include <algorithm>
#include <cmath>
#include <string>

#include "common.hpp"
#include "gaea/model/apps.hpp"
#include "gaea/model/operations.hpp"

namespace gaea::model {

namespace {

struct lu_links {
  link_class row;  // L tiles come from the rank of this rank's process row owning column k
  link_class col;  // U tiles come from the rank of this rank's process column owning row k
  link_class any;  // notices: any rank to any rank
};

// Ranks are numbered row-major over the grid and placed in blocks of ranks_per_node: a process
// row (Q consecutive ranks) shares a node when Q fits in one; a process column (ranks Q apart)
// only when the whole grid does.
lu_links links(std::int64_t prow, std::int64_t pcol, std::int64_t rpn) {
  const std::int64_t ranks = prow * pcol;
  const link_class all = ranks <= rpn ? link_class::intra : link_class::inter;
  const link_class row = (pcol <= rpn && rpn % pcol == 0) ? link_class::intra : all;
  return {row, all, all};
}

// Gets of `count` tiles of `bytes` each over link c, issued back to back.
double fetch_s(const machine& m, link_class c, std::int64_t count, double bytes, double hop) {
  const double extra = c == link_class::inter ? hop : 0;
  const double one = contiguous_s(m, c, bytes, contiguous_path::rma, extra);
  const link_params& lp = m.params(c);
  return detail::batch_s(count, one, detail::round_trip_s(m, c, hop), lp.g);
}

}  // namespace

std::pair<std::int64_t, std::int64_t> lu_default_grid(std::int64_t ranks) {
  detail::require_positive(ranks, "ranks", "lu default grid");
  auto p = static_cast<std::int64_t>(std::sqrt(static_cast<double>(ranks)));
  while (p > 1 && ranks % p != 0)
    --p;
  p = std::max<std::int64_t>(p, 1);
  return {p, ranks / p};
}

std::int64_t lu_default_block(std::int64_t n, std::int64_t prow, std::int64_t pcol) {
  const std::int64_t want = n / (8 * std::max(prow, pcol));
  std::int64_t b = 32;
  while (b * 2 <= want && b < 256)
    b *= 2;
  return std::min(b, n);
}

lu_breakdown predict_lu(const machine& m, const lu_case& c, const lu_profile& p) {
  m.check();
  const std::string name = "lu (n " + std::to_string(c.n) + ", block " + std::to_string(c.block) +
                           ", grid " + std::to_string(c.prow) + "x" + std::to_string(c.pcol) + ")";
  detail::require_positive(c.n, "n", name);
  detail::require_positive(c.block, "block", name);
  detail::require_positive(c.prow, "prow", name);
  detail::require_positive(c.pcol, "pcol", name);
  if (c.block > c.n)
    throw error("model " + name + ": block = " + std::to_string(c.block) +
                " exceeds n = " + std::to_string(c.n));
  const double rate = p.flops_per_s > 0 ? p.flops_per_s : m.dgemm_flops_per_core;
  if (!(rate > 0))
    throw error("model " + name + ": no compute rate (profile flops_per_s and machine '" + m.name +
                "' dgemm_flops_per_core are both 0)");

  const std::int64_t P = c.prow, Q = c.pcol, ranks = P * Q;
  const std::int64_t nt = (c.n + c.block - 1) / c.block;
  const double b = static_cast<double>(c.n) / static_cast<double>(nt);  // mean tile extent
  const double b3 = b * b * b, tile_bytes = b * b * 8;
  const double gemm_s = 2 * b3 / rate, trsm_s = b3 / rate, getrf_s = 2 * b3 / 3 / rate;
  const std::int64_t rpn = detail::ranks_per_node(m, ranks);
  const double hop = detail::hops_s(m, ranks);
  const lu_links ln = links(P, Q, rpn);

  // Busiest rank's tiles of the trailing matrix after step k (rows and columns of tiles).
  auto rows = [&](std::int64_t k) { return detail::ceil_div(nt - k - 1, P); };
  auto cols = [&](std::int64_t k) { return detail::ceil_div(nt - k - 1, Q); };
  // The panel of step k: the diagonal tile's factorisation, then the solves of the busiest
  // rank of its column and row (one rank may do both).
  auto panel = [&](std::int64_t k) { return getrf_s + (rows(k) + cols(k)) * trsm_s; };
  // The busiest rank's gets of panel k: L tiles from its process row's owner of column k
  // (remote unless Q = 1), U tiles from its process column's owner of row k (unless P = 1).
  auto fetch = [&](std::int64_t k, double& bytes) {
    const auto nl = Q > 1 ? static_cast<std::int64_t>(rows(k)) : 0;
    const auto nu = P > 1 ? static_cast<std::int64_t>(cols(k)) : 0;
    bytes += static_cast<double>(nl + nu) * tile_bytes;
    return std::max(fetch_s(m, ln.row, nl, tile_bytes, hop),
                    fetch_s(m, ln.col, nu, tile_bytes, hop));
  };
  // The ranks that solve panel k against the diagonal tile they do not own get it first
  // (solve_panel's blocking get), on the panel's path.
  auto diag_get = [&](std::int64_t k, double& bytes) {
    if (ranks == 1 || rows(k) + cols(k) == 0) return 0.0;
    bytes += tile_bytes;
    return contiguous_s(m, ln.any, tile_bytes, contiguous_path::rma,
                        ln.any == link_class::inter ? hop : 0);
  };
  // Readiness notices: one accumulate of one counter (diagonal done, then panel done).
  const double notice =
      ranks > 1 ? acc_target_driven_s(m, ln.any, 8) + (ln.any == link_class::inter ? 2 * hop : 0)
                : 0;

  lu_breakdown out;
  out.steps = nt;
  out.panel_s = panel(0);
  out.wait_s = ranks > 1 ? notice : 0;
  double next_fetch = nt > 1 ? fetch(0, out.bytes_per_rank) : 0;
  const double diag0 = diag_get(0, out.bytes_per_rank);
  out.transfer_s = next_fetch + diag0;
  out.comm_s = next_fetch + diag0;  // the first panel is fetched with nothing to hide behind
  for (std::int64_t k = 0; k + 1 < nt; ++k) {
    const double update = rows(k) * cols(k) * gemm_s;
    // Lookahead: the tiles of row and column k+1 first, then panel k+1, then the rest.
    const double ahead = std::min(update, (rows(k) + cols(k) - 1) * gemm_s);
    const double rest = update - ahead;
    out.update_s += update;
    out.panel_s += panel(k + 1);
    const double diag = diag_get(k + 1, out.bytes_per_rank);
    out.transfer_s += diag;
    out.comm_s += diag;
    if (ranks > 1) out.wait_s += 2 * notice;
    if (k + 2 < nt) {
      next_fetch = fetch(k + 1, out.bytes_per_rank);
      out.transfer_s += next_fetch;
      out.comm_s += c.overlap ? std::max(0.0, next_fetch - rest) : next_fetch;
    }
  }
  if (ranks > 1) out.wait_s += collective_s(m, coll::operation::barrier, 0, ranks);
  out.compute_s = out.update_s + out.panel_s;
  out.total_s = out.compute_s + out.comm_s + out.wait_s;
  return out;
}

}  // namespace gaea::model
