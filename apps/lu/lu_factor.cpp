// Distributed right-looking blocked LU of a tiled_matrix, in place: panels, look-ahead, pivoting.

#include "lu_factor.hpp"

#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>

namespace lu {

namespace {

using gaea::ga::nonblocking;
using gaea::ga::request;

/// The panel blocks one rank needs for the trailing update of step k, as two strided matrices
/// laid out like its local matrix: L, the tiles (i, k) of its process row, tile i at local row
/// local_row(i); U, the tiles (k, j) of its process column, tile j at local column local_col(j).
/// A rank that owns column k (row k) reads its local matrix in place; otherwise the tiles are
/// fetched with non-blocking gets into one buffer of that shape. One GEMM then updates any
/// rectangle of the rank's tiles (OpenBLAS packs its operands once per call, not once per tile).
class panel {
 public:
  explicit panel(tiled_matrix& m) : m_(m) {}

  /// Issues the gets of step k's panel (does not wait). Issue time counts as communication.
  void fetch(index_t k, lu_timings& t) {
    k_ = k;
    const double t0 = now();
    issue_begin_ = t0;
    done_at_ = -1;
    const index_t nt = m_.tiles(), wk = m_.extent(k), ld = m_.local_ld();
    if (k % m_.pcol() == m_.my_pcol()) {
      l_ = m_.local_data() + m_.local_col(k);
      l_ld_ = ld;
    } else {
      lbuf_.resize(static_cast<std::size_t>(m_.local_rows() * wk));
      l_ = lbuf_.data();
      l_ld_ = wk;
      for (index_t i = m_.first_row_from(k + 1); i < nt; i += m_.prow())
        fetch_into(i, k, lbuf_.data() + m_.local_row(i) * wk, wk, t);
    }
    if (k % m_.prow() == m_.my_prow()) {
      u_ = m_.local_data() + m_.local_row(k) * ld;
      u_ld_ = ld;
    } else {
      ubuf_.resize(static_cast<std::size_t>(wk * ld));
      u_ = ubuf_.data();
      u_ld_ = ld;
      for (index_t j = m_.first_col_from(k + 1); j < nt; j += m_.pcol())
        fetch_into(k, j, ubuf_.data() + m_.local_col(j), ld, t);
    }
    issue_cost_ = now() - t0;
    t.comm += issue_cost_;
  }

  /// One progress step on the outstanding gets; true when all are complete.
  bool poll() {
    while (completed_ < pending_.size()) {
      if (!pending_[completed_].test()) return false;
      ++completed_;
    }
    if (done_at_ < 0) done_at_ = now();
    return true;
  }

  /// Waits for the gets; charges the wait to communication and records how much of the
  /// transfer (issue to completion) was covered by other work.
  void wait(lu_timings& t) {
    const double t0 = now();
    for (; completed_ < pending_.size(); ++completed_)
      pending_[completed_].wait();
    const double t1 = now();
    if (done_at_ < 0) done_at_ = t1;
    t.comm += t1 - t0;
    if (!pending_.empty()) {
      const double span = done_at_ - issue_begin_, exposed = issue_cost_ + (t1 - t0);
      t.transfer += span;
      t.hidden += std::max(0.0, span - exposed);
    }
    pending_.clear();
    completed_ = 0;
  }

  index_t step() const noexcept { return k_; }
  /// L block of tile row i (rows extent(i), columns extent(k)), leading dimension l_ld().
  const double* l(index_t i) const { return l_ + m_.local_row(i) * l_ld_; }
  /// U block of tile column j (rows extent(k), columns extent(j)), leading dimension u_ld().
  const double* u(index_t j) const { return u_ + m_.local_col(j); }
  index_t l_ld() const noexcept { return l_ld_; }
  index_t u_ld() const noexcept { return u_ld_; }

 private:
  // Tile (ti, tj) into `to`, whose rows are `ld` apart.
  void fetch_into(index_t ti, index_t tj, double* to, index_t ld, lu_timings& t) {
    const index_t rows = m_.extent(ti), cols = m_.extent(tj);
    const index_t lds[1] = {ld};
    pending_.push_back(m_.array().get(
        m_.tile_patch(ti, tj), std::span(to, static_cast<std::size_t>((rows - 1) * ld + cols)),
        nonblocking, lds));
    t.bytes += static_cast<std::size_t>(rows * cols) * sizeof(double);
  }

  tiled_matrix& m_;
  index_t k_ = -1;
  const double* l_ = nullptr;
  const double* u_ = nullptr;
  index_t l_ld_ = 0, u_ld_ = 0;
  std::vector<double> lbuf_, ubuf_;
  std::vector<request> pending_;
  std::size_t completed_ = 0;
  double issue_begin_ = 0, issue_cost_ = 0, done_at_ = -1;
};

void sync(tiled_matrix& m, lu_timings& t) {
  scoped_timer s(t.sync);
  m.array().sync();
}

/// Gets tile (ti, tj) into `buf` unless it is local; returns a view of it.
const_block_map get_tile(tiled_matrix& m, index_t ti, index_t tj, std::vector<double>& buf,
                         lu_timings& t) {
  const index_t rows = m.extent(ti), cols = m.extent(tj);
  if (m.mine(ti, tj)) {
    const local_tile& lt = m.tile(ti, tj);
    return const_map_block(lt.data, rows, cols, lt.ld);
  }
  scoped_timer s(t.comm);
  buf.resize(static_cast<std::size_t>(rows * cols));
  m.array().get(m.tile_patch(ti, tj), buf);
  t.bytes += buf.size() * sizeof(double);
  return const_map_block(buf.data(), rows, cols, cols);
}

void note_zero_pivot(factor_result& res, index_t row) {
  if (res.zero_pivot < 0) res.zero_pivot = row;
}

/// The owner of diagonal tile k factors it (no pivoting).
void factor_diagonal(tiled_matrix& m, index_t k, factor_result& res) {
  if (!m.mine(k, k)) return;
  scoped_timer s(res.times.compute);
  index_t c = 0;
  if (!factor_panel(m.tile(k, k).map(), nullptr, &c)) note_zero_pivot(res, m.start(k) + c);
}

/// Owners of the tiles below and right of diagonal tile k turn them into L and U blocks.
void solve_panel(tiled_matrix& m, index_t k, task_runner& tasks, lu_timings& t, bool row = true,
                 bool column = true) {
  std::vector<const local_tile*> work;
  for (const auto& lt : m.local_tiles())
    if ((column && lt.tj == k && lt.ti > k) || (row && lt.ti == k && lt.tj > k))
      work.push_back(&lt);
  if (work.empty()) return;
  std::vector<double> buf;
  const const_block_map diag = get_tile(m, k, k, buf, t);
  scoped_timer s(t.compute);
  tasks.run(work.size(), [&](std::size_t i) {
    const local_tile& lt = *work[i];
    if (lt.tj == k)
      solve_upper_right(diag, lt.map());
    else
      solve_unit_lower_left(diag, lt.map());
  });
}

/// This rank's tile rows (or columns) in [lo, hi): the first and last, or first > last if none.
std::pair<index_t, index_t> my_span(index_t first_mine, index_t hi, int stride) {
  if (first_mine >= hi) return {1, 0};
  return {first_mine, first_mine + (hi - 1 - first_mine) / stride * stride};
}

/// Schur-complement update with panel k of this rank's tiles in tile rows [r0, r1) and tile
/// columns [c0, c1): one GEMM per strip of up to `strip` of its tile columns (all its rows in
/// the range at once), strips spread over the rank's threads, `chunk` strips at a time; after
/// each chunk, `between()` runs on this thread (it polls the prefetch).
template <class Between>
void update_rectangle(tiled_matrix& m, const panel& p, index_t r0, index_t r1, index_t c0,
                      index_t c1, index_t strip, std::size_t chunk, task_runner& tasks,
                      lu_timings& t, Between&& between) {
  const index_t k = p.step(), wk = m.extent(k), q = m.pcol();
  const auto [fr, lr] = my_span(m.first_row_from(r0), r1, m.prow());
  const auto [fc, lc] = my_span(m.first_col_from(c0), c1, q);
  if (fr > lr || fc > lc) return;
  const index_t rows = m.local_row(lr) + m.extent(lr) - m.local_row(fr);
  std::vector<std::pair<index_t, index_t>> strips;  // first and last tile column of each
  for (index_t j = fc; j <= lc; j += strip * q)
    strips.emplace_back(j, std::min(lc, j + (strip - 1) * q));
  for (std::size_t first = 0; first < strips.size(); first += chunk) {
    const std::size_t count = std::min(chunk, strips.size() - first);
    {
      scoped_timer s(t.compute);
      tasks.run(count, [&](std::size_t i) {
        const auto [j0, j1] = strips[first + i];
        const index_t cols = m.local_col(j1) + m.extent(j1) - m.local_col(j0);
        subtract_product(map_block(m.tile(fr, j0).data, rows, cols, m.local_ld()),
                         const_map_block(p.l(fr), rows, wk, p.l_ld()),
                         const_map_block(p.u(j0), wk, cols, p.u_ld()));
      });
    }
    between();
  }
}

/// update_rectangle's `chunk` when nothing runs between strips.
constexpr std::size_t all_at_once = std::numeric_limits<std::size_t>::max();

/// Tile columns per GEMM strip: about 2048 columns. OpenBLAS packs the L strip again for every
/// call: at N = 8192 on one rank its packing took 15 % of the samples with one call per 256-wide
/// tile, 8 % with 1024-wide strips and under 6 % with 2048. Narrower when the rank's threads
/// need more strips.
index_t strip_tiles(const tiled_matrix& m, index_t k, const task_runner& tasks) {
  const index_t wide = std::max<index_t>(1, 2048 / m.nb());
  if (tasks.threads() < 2) return wide;
  const index_t mine = (m.tiles() - k) / m.pcol() + 1;
  return std::clamp<index_t>(mine / tasks.threads(), 1, wide);
}

/// Point-to-point readiness notices, so that no step needs a global barrier. Each rank owns two
/// counters per step in a small global array: notices that diagonal tile k (which it solves
/// against) is factored, and notices that a producer's tiles of panel k (which it fetches) are
/// final. Producers accumulate +1 into their consumers' counters (served by the consumer's
/// progress thread); consumers read their own counters locally and compare them with the number
/// of notices they expect for that step, which every rank computes alike. Counters are per step,
/// so an early notice for a later step can never stand in for a late one.
class step_flags {
 public:
  explicit step_flags(tiled_matrix& m)
      : m_(m), flags_("lu_flags", {m.prow() * m.pcol(), 2 * m.tiles()}, layout(m)) {
    flags_.zero();
    const index_t nt = m.tiles();
    const int me = m.rank();
    diag_target_.resize(static_cast<std::size_t>(nt));
    panel_target_.resize(static_cast<std::size_t>(nt));
    for (index_t k = 0; k < nt; ++k) {
      diag_target_[idx(k)] = m.owner(k, k) != me && needs_diagonal(me, k) ? 1 : 0;
      const int lp = l_producer(me, k), up = u_producer(me, k);
      panel_target_[idx(k)] = (lp >= 0 && lp != me) + (up >= 0 && up != me);
    }
  }

  /// The owner of diagonal tile k tells the ranks that solve panel k against it.
  void diagonal_done(index_t k) {
    for (int r = 0; r < m_.prow() * m_.pcol(); ++r)
      if (r != m_.rank() && needs_diagonal(r, k)) notify(r, 2 * k);
  }
  /// This rank's tiles of panel k are final: tell the ranks that fetch them.
  void panel_done(index_t k) {
    const int me = m_.rank();
    for (int r = 0; r < m_.prow() * m_.pcol(); ++r)
      if (r != me && (l_producer(r, k) == me || u_producer(r, k) == me)) notify(r, 2 * k + 1);
  }
  bool diagonal_ready(index_t k) const { return count(2 * k) >= diag_target_[idx(k)]; }
  bool panel_ready(index_t k) const { return count(2 * k + 1) >= panel_target_[idx(k)]; }
  /// Waits (progressing, by the current progress mode) until the condition holds.
  void wait_diagonal(index_t k, lu_timings& t) {
    wait([&] { return diagonal_ready(k); }, t);
  }
  void wait_panel(index_t k, lu_timings& t) {
    wait([&] { return panel_ready(k); }, t);
  }

  /// Does rank r own a tile of column k below the diagonal or of row k right of it?
  bool needs_diagonal(int r, index_t k) const {
    const int pr = r / m_.pcol(), pc = r % m_.pcol();
    return (pc == k % m_.pcol() && has_tile_after(pr, m_.prow(), k)) ||
           (pr == k % m_.prow() && has_tile_after(pc, m_.pcol(), k));
  }

 private:
  static gaea::ga::layout_spec layout(const tiled_matrix& m) {
    std::vector<index_t> rows;
    for (int r = 0; r < m.prow() * m.pcol(); ++r)
      rows.push_back(r);
    return gaea::ga::layout_spec::irregular({rows, {0}});  // one row of counters per rank
  }
  static std::size_t idx(index_t k) { return static_cast<std::size_t>(k); }
  /// Is there a tile index t > k with t % stride == pos?
  bool has_tile_after(int pos, int stride, index_t k) const {
    const index_t first = k + 1 + ((pos - (k + 1) % stride) % stride + stride) % stride;
    return first < m_.tiles();
  }
  /// The rank whose L tiles (i, k), i > k, rank r fetches (its process row), or -1 if none.
  int l_producer(int r, index_t k) const {
    const int pr = r / m_.pcol();
    if (!has_tile_after(pr, m_.prow(), k)) return -1;
    return pr * m_.pcol() + static_cast<int>(k % m_.pcol());
  }
  /// The rank whose U tiles (k, j), j > k, rank r fetches (its process column), or -1 if none.
  int u_producer(int r, index_t k) const {
    const int pc = r % m_.pcol();
    if (!has_tile_after(pc, m_.pcol(), k)) return -1;
    return static_cast<int>(k % m_.prow()) * m_.pcol() + pc;
  }
  std::int64_t count(index_t slot) const {
    auto v = flags_.access();
    return std::atomic_ref<std::int64_t>(v[static_cast<std::size_t>(slot)])
        .load(std::memory_order_acquire);
  }
  void notify(int r, index_t slot) {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // tile stores before the notice
    const std::int64_t one = 1;
    flags_.acc({{r, slot}, {r, slot}}, std::span(&one, 1));
  }
  template <class Pred>
  void wait(Pred&& ready, lu_timings& t) {
    if (ready()) return;
    scoped_timer s(t.sync);
    gaea::runtime& rt = gaea::runtime::current();
    rt.progress().wait_until(rt.worker(), ready);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }

  tiled_matrix& m_;
  mutable gaea::global_array<std::int64_t> flags_;
  std::vector<std::int64_t> diag_target_, panel_target_;
};

/// No pivoting, lookahead of one panel and no global barrier: at step k each rank first updates
/// its tiles of column and row k+1 (the next panel), the owners factor diagonal k+1 and solve
/// panel k+1 as soon as they are notified, and then the rest of the trailing update runs while
/// the next panel's gets, issued as soon as its producers say it is final, are in flight.
void factor_lookahead(tiled_matrix& m, bool overlap, step_flags& flags, task_runner& tasks,
                      factor_result& res) {
  lu_timings& t = res.times;
  const index_t nt = m.tiles();
  auto finish_panel = [&](index_t k) {  // diagonal k is factored where it lives
    if (m.owner(k, k) != m.rank() && flags.needs_diagonal(m.rank(), k)) flags.wait_diagonal(k, t);
    solve_panel(m, k, tasks, t);
    flags.panel_done(k);
  };
  factor_diagonal(m, 0, res);
  if (m.mine(0, 0)) flags.diagonal_done(0);
  finish_panel(0);
  panel bufs[2] = {panel(m), panel(m)};
  bool issued[2] = {false, false};
  // Poll after every round of strips (one per thread): enough to keep TCP transfers and
  // notices moving.
  const auto chunk = static_cast<std::size_t>(tasks.threads());
  for (index_t k = 0; k + 1 < nt; ++k) {
    panel& cur = bufs[k % 2];
    panel& next = bufs[(k + 1) % 2];
    if (!issued[k % 2]) {
      flags.wait_panel(k, t);
      cur.fetch(k, t);
    }
    cur.wait(t);
    issued[k % 2] = false;
    // Ahead: column k+1 (rows below k), then row k+1 (columns from k+2).
    const index_t strip = strip_tiles(m, k, tasks);
    update_rectangle(m, cur, k + 1, nt, k + 1, k + 2, strip, all_at_once, tasks, t, [] {});
    update_rectangle(m, cur, k + 1, k + 2, k + 2, nt, strip, all_at_once, tasks, t, [] {});
    factor_diagonal(m, k + 1, res);
    if (m.mine(k + 1, k + 1)) flags.diagonal_done(k + 1);
    finish_panel(k + 1);
    const bool prefetch = overlap && k + 2 < nt;
    auto progress = [&] {
      if (!prefetch) return;
      if (!issued[(k + 1) % 2] && flags.panel_ready(k + 1)) {
        next.fetch(k + 1, t);  // charges its issue time to communication
        issued[(k + 1) % 2] = true;
      }
      scoped_timer s(t.comm);
      if (issued[(k + 1) % 2])
        next.poll();
      else  // let the notices in (the progress thread does it too, unless it is off)
        gaea::runtime::current().progress().poll(gaea::runtime::current().worker());
    };
    progress();
    update_rectangle(m, cur, k + 2, nt, k + 2, nt, strip, chunk, tasks, t, progress);
  }
  sync(m, t);
}

/// Swaps rows r and pivots[r] (r in tile row k) inside column tile j, which this rank owns in
/// tile row k; rows outside tile row k are fetched and written back with get/put.
void swap_rows(tiled_matrix& m, index_t k, index_t j, const std::vector<index_t>& pivots,
               lu_timings& t) {
  const local_tile& lt = m.tile(k, j);
  const index_t r0 = m.start(k), r1 = r0 + m.extent(k), c0 = m.start(j), c = lt.cols;
  std::unordered_map<index_t, std::vector<double>> outside;
  std::vector<request> reqs;
  {
    scoped_timer s(t.comm);
    for (index_t r = r0; r < r1; ++r) {
      const index_t p = pivots[static_cast<std::size_t>(r)];
      if (p < r1 || outside.count(p)) continue;
      auto& row = outside[p];
      row.resize(static_cast<std::size_t>(c));
      reqs.push_back(m.array().get({{p, c0}, {p, c0 + c - 1}}, row, nonblocking));
      t.bytes += row.size() * sizeof(double);
    }
    for (auto& r : reqs)
      r.wait();
    reqs.clear();
  }
  auto row_ptr = [&](index_t g) { return g < r1 ? &lt.at(g - r0, 0) : outside.at(g).data(); };
  for (index_t r = r0; r < r1; ++r) {
    const index_t p = pivots[static_cast<std::size_t>(r)];
    if (p != r) std::swap_ranges(row_ptr(r), row_ptr(r) + c, row_ptr(p));
  }
  scoped_timer s(t.comm);
  for (auto& [p, row] : outside)
    reqs.push_back(m.array().put({{p, c0}, {p, c0 + c - 1}}, row, nonblocking));
  for (auto& r : reqs)
    r.wait();
}

/// Partial pivoting: the owner of the diagonal tile fetches the whole column panel, factors it
/// with row swaps and writes it back with the pivots; the owners of tile row k apply the swaps
/// to the other columns and solve their U blocks; then the trailing update.
void factor_pivoted(tiled_matrix& m, gaea::global_array<std::int64_t>& piv, task_runner& tasks,
                    factor_result& res) {
  lu_timings& t = res.times;
  const index_t n = m.n(), nt = m.tiles();
  res.pivots.assign(static_cast<std::size_t>(n), 0);
  std::vector<double> pbuf;
  std::vector<index_t> local_piv;
  panel p(m);
  for (index_t k = 0; k < nt; ++k) {
    const index_t kb = m.start(k), w = m.extent(k), rows = n - kb;
    const gaea::ga::patch column{{kb, kb}, {n - 1, kb + w - 1}};
    sync(m, t);
    if (m.mine(k, k)) {
      pbuf.resize(static_cast<std::size_t>(rows * w));
      local_piv.assign(static_cast<std::size_t>(w), 0);
      {
        scoped_timer s(t.comm);
        m.array().get(column, pbuf);
        t.bytes += pbuf.size() * sizeof(double);
      }
      {
        scoped_timer s(t.compute);
        index_t c = 0;
        if (!factor_panel(map_block(pbuf.data(), rows, w, w), local_piv.data(), &c))
          note_zero_pivot(res, kb + c);
      }
      for (auto& x : local_piv)
        x += kb;
      scoped_timer s(t.comm);
      m.array().put(column, pbuf);
      piv.put({{kb}, {kb + w - 1}}, local_piv);
      m.array().fence();
      piv.fence();
    }
    sync(m, t);
    {
      scoped_timer s(t.comm);
      piv.get(
          {{kb}, {kb + w - 1}},
          std::span(res.pivots).subspan(static_cast<std::size_t>(kb), static_cast<std::size_t>(w)));
    }
    for (index_t j = 0; j < nt; ++j)
      if (j != k && m.mine(k, j)) swap_rows(m, k, j, res.pivots, t);
    {
      scoped_timer s(t.comm);
      m.array().fence();
    }
    solve_panel(m, k, tasks, t, true, false);
    sync(m, t);
    if (k + 1 == nt) break;
    p.fetch(k, t);
    p.wait(t);
    update_rectangle(m, p, k + 1, nt, k + 1, nt, strip_tiles(m, k, tasks), all_at_once, tasks, t,
                     [] {});
  }
  sync(m, t);
}

}  // namespace

factor_result factor(tiled_matrix& m, const factor_options& opt, task_runner& tasks) {
  factor_result res;
  // The small arrays each variant needs are created (collectively) before the clock starts.
  std::optional<gaea::global_array<std::int64_t>> piv;
  std::optional<step_flags> flags;
  if (opt.pivot)
    piv.emplace("lu_pivots", gaea::ga::index{m.n()});
  else
    flags.emplace(m);
  m.array().sync();
  const double t0 = now();
  if (opt.pivot)
    factor_pivoted(m, *piv, tasks, res);
  else
    factor_lookahead(m, opt.overlap, *flags, tasks, res);
  res.times.total = now() - t0;
  return res;
}

}  // namespace lu
