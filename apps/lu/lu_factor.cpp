// Distributed right-looking blocked LU of a tiled_matrix, in place: panels, look-ahead, pivoting.

#include "lu_factor.hpp"

#include "gaea/coll/collectives.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
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
    fetch_l(k, t);
    fetch_u(k, t);
  }

  /// The L half of fetch(): tiles (i, k), i > k, of this rank's process row.
  void fetch_l(index_t k, lu_timings& t) {
    const double t0 = begin(k);
    const index_t nt = m_.tiles(), wk = m_.extent(k);
    if (k % m_.pcol() == m_.my_pcol()) {
      l_ = m_.local_data() + m_.local_col(k);
      l_ld_ = m_.local_ld();
    } else {
      lbuf_.resize(static_cast<std::size_t>(m_.local_rows() * wk));
      l_ = lbuf_.data();
      l_ld_ = wk;
      for (index_t i = m_.first_row_from(k + 1); i < nt; i += m_.prow())
        fetch_into(i, k, lbuf_.data() + m_.local_row(i) * wk, wk, t);
    }
    end(t0, t);
  }

  /// The U half of fetch(): tiles (k, j), j > k, of this rank's process column.
  void fetch_u(index_t k, lu_timings& t) {
    const double t0 = begin(k);
    const index_t nt = m_.tiles(), wk = m_.extent(k), ld = m_.local_ld();
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
    end(t0, t);
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
  // Starts step k's transfer record unless one of its halves already did.
  double begin(index_t k) {
    const double t0 = now();
    if (k_ != k) {
      k_ = k;
      issue_begin_ = t0;
      issue_cost_ = 0;
    }
    done_at_ = -1;
    return t0;
  }
  void end(double t0, lu_timings& t) {
    const double d = now() - t0;
    issue_cost_ += d;
    t.comm += d;
  }
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

/// Per-step notice counters, one row per rank: a producer accumulates +1 into its consumer's
/// counter (served by the consumer's progress thread); the consumer reads its own counters
/// locally. Slots 2k and 2k + 1 are step k's two notices.
class notice_board {
 public:
  notice_board(const char* name, const tiled_matrix& m)
      : flags_(name, {m.prow() * m.pcol(), 2 * m.tiles()}, rows_per_rank(m)) {
    flags_.zero();
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
  /// Waits (progressing, by the current progress mode) until `ready` holds.
  template <class Pred>
  void wait(Pred&& ready, lu_timings& t) {
    if (ready()) return;
    scoped_timer s(t.sync);
    gaea::runtime& rt = gaea::runtime::current();
    rt.progress().wait_until(rt.worker(), ready);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  /// One row per rank (the counters, and pivot_flags' pivots).
  static gaea::ga::layout_spec rows_per_rank(const tiled_matrix& m) {
    std::vector<index_t> rows;
    for (int r = 0; r < m.prow() * m.pcol(); ++r)
      rows.push_back(r);
    return gaea::ga::layout_spec::irregular({rows, {0}});
  }

 private:
  mutable gaea::global_array<std::int64_t> flags_;
};

/// Point-to-point readiness notices, so that no step needs a global barrier. Each rank owns two
/// counters per step in a small global array: notices that diagonal tile k (which it solves
/// against) is factored, and notices that a producer's tiles of panel k (which it fetches) are
/// final. Producers accumulate +1 into their consumers' counters (served by the consumer's
/// progress thread); consumers read their own counters locally and compare them with the number
/// of notices they expect for that step, which every rank computes alike. Counters are per step,
/// so an early notice for a later step can never stand in for a late one.
class step_flags : notice_board {
 public:
  explicit step_flags(tiled_matrix& m) : notice_board("lu_flags", m), m_(m) {
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
  tiled_matrix& m_;
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

/// Offset in this rank's local matrix of its first tile column >= t (its columns left of t).
index_t my_cols_before(const tiled_matrix& m, index_t t) {
  const index_t c = m.my_pcol(), q = m.pcol();
  return t > c ? std::min((t - c + q - 1) / q, (m.tiles() - c + q - 1) / q) * m.nb() : 0;
}
/// Width of this rank's tile columns (alike on every rank of its process column).
index_t my_cols_width(const tiled_matrix& m) {
  const index_t nt = m.tiles(), last = nt - 1;
  index_t w = my_cols_before(m, nt);
  if (last % m.pcol() == m.my_pcol()) w -= m.nb() - m.extent(last);
  return w;
}

/// Pointer to global row g (in this rank's process row) at local column 0.
double* local_row_ptr(const tiled_matrix& m, index_t g) {
  const index_t t = g / m.nb();
  return m.local_data() + (m.local_row(t) + g % m.nb()) * m.local_ld();
}

/// Process row that holds global row g.
int prow_of(const tiled_matrix& m, index_t g) {
  return static_cast<int>(g / m.nb() % m.prow());
}

/// Readiness for the pivoted factorisation, point to point as step_flags: per step, a notice
/// that panel k (its L tiles and pivots) is final at the rank of this rank's process row that
/// holds column k, and a notice that U row k is final at the rank of this rank's process column
/// that holds tile row k. The pivots of each panel are stored by every rank of the process
/// column that factored it, in its own row of a small array, so a rank reads them from its
/// process row's producer.
class pivot_flags : notice_board {
 public:
  explicit pivot_flags(tiled_matrix& m)
      : notice_board("lu_pflags", m),
        m_(m),
        piv_("lu_pivots", {m.prow() * m.pcol(), m.n()}, notice_board::rows_per_rank(m)) {
    piv_.zero();
  }

  /// This rank's panel k is factored (`pivots` final for its rows): tell its process row.
  void panel_done(index_t k, const std::vector<index_t>& pivots) {
    auto mine = piv_.access();
    for (index_t r = m_.start(k); r < m_.start(k) + m_.extent(k); ++r)
      mine[static_cast<std::size_t>(r)] = pivots[static_cast<std::size_t>(r)];
    for (int c = 0; c < m_.pcol(); ++c)
      if (c != m_.my_pcol()) notify(m_.my_prow() * m_.pcol() + c, 2 * k);
  }
  /// This rank's U tiles of row k are final: tell the ranks of its process column that fetch them.
  void row_done(index_t k) {
    if (!has_col_after(m_.my_pcol(), k)) return;
    for (int r = 0; r < m_.prow(); ++r)
      if (r != m_.my_prow()) notify(r * m_.pcol() + m_.my_pcol(), 2 * k + 1);
  }
  bool panel_ready(index_t k) const { return k % m_.pcol() == m_.my_pcol() || count(2 * k) >= 1; }
  bool row_ready(index_t k) const {
    return k % m_.prow() == m_.my_prow() || !has_col_after(m_.my_pcol(), k) ||
           count(2 * k + 1) >= 1;
  }
  /// Waits for panel k, then copies its pivots into `pivots` (no-op where it was factored).
  void get_pivots(index_t k, std::vector<index_t>& pivots, lu_timings& t) {
    if (k % m_.pcol() == m_.my_pcol()) return;
    wait([&] { return panel_ready(k); }, t);
    scoped_timer s(t.comm);
    const int src = m_.my_prow() * m_.pcol() + static_cast<int>(k % m_.pcol());
    const index_t lo = m_.start(k), hi = lo + m_.extent(k) - 1;
    piv_.get({{src, lo}, {src, hi}},
             std::span(pivots).subspan(static_cast<std::size_t>(lo),
                                       static_cast<std::size_t>(hi - lo + 1)));
  }
  void wait_row(index_t k, lu_timings& t) {
    wait([&] { return row_ready(k); }, t);
  }

 private:
  bool has_col_after(int pc, index_t k) const {
    return k + 1 + ((pc - (k + 1) % m_.pcol()) % m_.pcol() + m_.pcol()) % m_.pcol() < m_.tiles();
  }
  tiled_matrix& m_;
  gaea::global_array<std::int64_t> piv_;
};

/// Applies step k's row swaps (rows start(k).., pivots from `pivots`) to this rank's local
/// columns [c0, c1). With one process row every row is local; otherwise the ranks of the
/// process column exchange the moved row segments in one alltoallv over `colg` (only the two
/// owners of a swapped pair send anything to each other), so all of them must call it alike.
void apply_swaps(tiled_matrix& m, index_t k, const std::vector<index_t>& pivots, index_t c0,
                 index_t c1, const gaea::coll::group* colg, lu_timings& t) {
  if (c1 <= c0) return;
  const index_t r0 = m.start(k), r1 = r0 + m.extent(k), w = c1 - c0;
  if (m.prow() == 1) {
    scoped_timer s(t.compute);
    for (index_t r = r0; r < r1; ++r) {
      const index_t p = pivots[static_cast<std::size_t>(r)];
      if (p != r)
        std::swap_ranges(local_row_ptr(m, r) + c0, local_row_ptr(m, r) + c1,
                         local_row_ptr(m, p) + c0);
    }
    return;
  }
  // Where each moved row's content comes from: position -> original row, ordered by position.
  std::map<index_t, index_t> from;
  auto at = [&](index_t r) -> index_t& { return from.try_emplace(r, r).first->second; };
  for (index_t r = r0; r < r1; ++r) {
    const index_t p = pivots[static_cast<std::size_t>(r)];
    if (p != r) std::swap(at(r), at(p));
  }
  const int me = m.my_prow(), np = m.prow();
  std::vector<std::vector<double>> out(static_cast<std::size_t>(np));
  std::vector<std::int64_t> recv_counts(static_cast<std::size_t>(np), 0);
  std::vector<double> kept;  // old rows moved within this rank
  for (const auto& [dst, src] : from) {
    if (dst == src) continue;
    const int pd = prow_of(m, dst), ps = prow_of(m, src);
    if (ps == me) {
      const double* row = local_row_ptr(m, src) + c0;
      auto& buf = pd == me ? kept : out[static_cast<std::size_t>(pd)];
      buf.insert(buf.end(), row, row + w);
    } else if (pd == me) {
      recv_counts[static_cast<std::size_t>(ps)] += w;
    }
  }
  std::vector<double> send, recv;
  std::vector<std::int64_t> send_counts, send_displs, recv_displs;
  for (int q = 0; q < np; ++q) {
    const auto& b = out[static_cast<std::size_t>(q)];
    send_displs.push_back(static_cast<std::int64_t>(send.size()));
    send_counts.push_back(static_cast<std::int64_t>(b.size()));
    send.insert(send.end(), b.begin(), b.end());
    recv_displs.push_back(
        q == 0 ? 0 : recv_displs.back() + recv_counts[static_cast<std::size_t>(q - 1)]);
  }
  recv.resize(static_cast<std::size_t>(recv_displs.back() + recv_counts.back()));
  {
    scoped_timer s(t.comm);
    gaea::coll::alltoallv(*colg, std::span<const double>(send), send_counts, send_displs,
                          std::span<double>(recv), recv_counts, recv_displs);
    t.bytes += recv.size() * sizeof(double);
  }
  std::vector<std::int64_t> cursor = recv_displs;
  std::size_t kept_at = 0;
  for (const auto& [dst, src] : from) {
    if (dst == src || prow_of(m, dst) != me) continue;
    const int ps = prow_of(m, src);
    const double* row;
    if (ps == me) {
      row = kept.data() + kept_at;
      kept_at += static_cast<std::size_t>(w);
    } else {
      row = recv.data() + cursor[static_cast<std::size_t>(ps)];
      cursor[static_cast<std::size_t>(ps)] += w;
    }
    std::copy_n(row, w, local_row_ptr(m, dst) + c0);
  }
}

/// Factors panel k (tile column k from row start(k) down) with partial pivoting, in place, on
/// the ranks of the process column that holds it; every one of them returns with the panel's
/// pivots in `pivots`. With one process row the panel is one local strided block. Otherwise
/// each column's pivot is found by a max-|value| combine over `colg`: every rank offers the
/// largest entry of its rows with that row (and the diagonal row's owner that row too) in one
/// allgather, so that all pick the same pivot and hold the pivot row for the rank-1 update of
/// their rows; swapped rows are written by their two owners only. Columns go in strips of
/// inner width; after a strip every rank forms the strip's U rows from the pivot rows it holds
/// and updates its rows with one GEMM. Collective over `colg`.
void factor_column_panel(tiled_matrix& m, index_t k, const gaea::coll::group* colg,
                         std::vector<index_t>& pivots, factor_result& res) {
  lu_timings& t = res.times;
  const index_t kb = m.start(k), w = m.extent(k), nb = m.nb(), ld = m.local_ld();
  const index_t first = m.first_row_from(k);
  const index_t lr0 = first < m.tiles() ? m.local_row(first) : m.local_rows();
  const index_t rows = m.local_rows() - lr0;
  double* a = m.local_data() + lr0 * ld + m.local_col(k);
  if (m.prow() == 1) {
    scoped_timer s(t.compute);
    std::vector<index_t> local(static_cast<std::size_t>(w));
    std::iota(local.begin(), local.end(), index_t{0});
    index_t c = 0;
    if (!factor_panel(map_block(a, rows, w, ld), local.data(), &c)) note_zero_pivot(res, kb + c);
    for (index_t i = 0; i < w; ++i)
      pivots[static_cast<std::size_t>(kb + i)] = kb + local[static_cast<std::size_t>(i)];
    return;
  }
  const int np = m.prow(), me = m.my_prow(), diag = static_cast<int>(k % np);
  auto global_row = [&](index_t r) {
    const index_t lr = lr0 + r;
    return (lr / nb * np + me) * nb + lr % nb;
  };
  // First local row at or after global row g (local rows ascend with global rows).
  auto first_local = [&](index_t from, index_t g) {
    while (from < rows && global_row(from) < g)
      ++from;
    return from;
  };
  constexpr index_t inner = 32;
  const index_t rec = 2 + 2 * w;  // |max|, its row, that row, the diagonal row
  std::vector<double> mine(static_cast<std::size_t>(rec)), all(static_cast<std::size_t>(rec * np));
  row_matrix strip(std::min(inner, w), w);  // the strip's pivot rows, as all ranks hold them
  index_t act = 0;
  for (index_t c0 = 0; c0 < w; c0 += inner) {
    const index_t iw = std::min(inner, w - c0);
    for (index_t c = c0; c < c0 + iw; ++c) {
      const index_t g = kb + c;
      act = first_local(act, g);
      double best = -1;
      index_t bi = -1;
      {
        scoped_timer s(t.compute);
        for (index_t r = act; r < rows; ++r)
          if (const double v = std::abs(a[r * ld + c]); v > best) {
            best = v;
            bi = r;
          }
        mine[0] = best;
        mine[1] = bi >= 0 ? static_cast<double>(global_row(bi)) : -1.0;
        if (bi >= 0) std::copy_n(a + bi * ld, w, mine.data() + 2);
        if (me == diag) std::copy_n(a + act * ld, w, mine.data() + 2 + w);
      }
      {
        scoped_timer s(t.comm);
        gaea::coll::allgather(*colg, std::span<const double>(mine), std::span<double>(all));
      }
      scoped_timer s(t.compute);
      int win = -1;
      double wv = -1;
      index_t wg = 0;
      for (int q = 0; q < np; ++q) {
        const double v = all[static_cast<std::size_t>(q * rec)];
        const auto gq = static_cast<index_t>(all[static_cast<std::size_t>(q * rec + 1)]);
        if (v > wv || (v == wv && v >= 0 && gq < wg)) {  // LAPACK's first largest on ties
          win = q;
          wv = v;
          wg = gq;
        }
      }
      const double* drow = all.data() + diag * rec + 2 + w;
      const index_t p = win >= 0 && wv > 0 ? wg : g;
      const double* prow = p == g ? drow : all.data() + win * rec + 2;
      pivots[static_cast<std::size_t>(g)] = p;
      std::copy_n(prow, w, strip.row(c - c0).data());
      if (p != g) {
        if (me == diag) std::copy_n(prow, w, a + act * ld);
        if (prow_of(m, p) == me) {
          const index_t lr = m.local_row(p / nb) + p % nb - lr0;
          std::copy_n(drow, w, a + lr * ld);
        }
      }
      const double d = strip(c - c0, c);
      if (d == 0.0) {
        note_zero_pivot(res, g);
        continue;
      }
      const index_t below = act + (me == diag ? 1 : 0), n_below = rows - below;
      if (n_below <= 0) continue;
      block_map blk = map_block(a + below * ld, n_below, w, ld);
      blk.col(c) /= d;
      if (const index_t right = c0 + iw - c - 1; right > 0)
        blk.block(0, c + 1, n_below, right).noalias() -=
            blk.col(c) * strip.row(c - c0).segment(c + 1, right);
    }
    const index_t right = w - c0 - iw;
    if (right <= 0) continue;
    scoped_timer s(t.compute);
    auto u12 = strip.block(0, c0 + iw, iw, right);
    strip.block(0, c0, iw, iw).triangularView<Eigen::UnitLower>().solveInPlace(u12);
    if (me == diag)  // the strip's rows are the top of the diagonal tile, local rows c0..
      map_block(a + c0 * ld + c0 + iw, iw, right, ld) = u12;
    const index_t from = first_local(0, kb + c0 + iw);
    if (from < rows)
      map_block(a + from * ld + c0 + iw, rows - from, right, ld).noalias() -=
          map_block(a + from * ld + c0, rows - from, iw, ld) * u12;
  }
}

/// Partial pivoting with the schedule of the unpivoted path: panel k is factored by the
/// process column that holds it (factor_column_panel) as soon as its column has step k-1's
/// update, before the rest of that update (lookahead of one panel). At step k every rank gets
/// the pivots, swaps the rows of its columns right of k, the owners of row k solve their U
/// tiles, and the trailing update runs while panel k+1's L tiles are prefetched. Columns left
/// of each panel take their swaps after the last step, so that L tiles never change once
/// other ranks may read them.
void factor_pivoted(tiled_matrix& m, pivot_flags& flags, const gaea::coll::group* colg,
                    bool overlap, task_runner& tasks, factor_result& res) {
  lu_timings& t = res.times;
  const index_t n = m.n(), nt = m.tiles();
  res.pivots.assign(static_cast<std::size_t>(n), 0);
  std::iota(res.pivots.begin(), res.pivots.end(), index_t{0});
  const index_t width = my_cols_width(m);
  auto factor_if_mine = [&](index_t k) {
    if (k % m.pcol() != m.my_pcol()) return;
    factor_column_panel(m, k, colg, res.pivots, res);
    flags.panel_done(k, res.pivots);
  };
  factor_if_mine(0);
  panel bufs[2] = {panel(m), panel(m)};
  bool issued[2] = {false, false};
  const auto chunk = static_cast<std::size_t>(tasks.threads());
  for (index_t k = 0; k < nt; ++k) {
    flags.get_pivots(k, res.pivots, t);
    apply_swaps(m, k, res.pivots, my_cols_before(m, k + 1), width, colg, t);
    if (m.my_prow() == k % m.prow()) {
      solve_panel(m, k, tasks, t, true, false);
      flags.row_done(k);
    }
    if (k + 1 == nt) break;
    panel& cur = bufs[k % 2];
    panel& next = bufs[(k + 1) % 2];
    if (!issued[k % 2]) cur.fetch_l(k, t);
    flags.wait_row(k, t);
    cur.fetch_u(k, t);
    cur.wait(t);
    issued[k % 2] = false;
    const index_t strip = strip_tiles(m, k, tasks);
    update_rectangle(m, cur, k + 1, nt, k + 1, k + 2, strip, all_at_once, tasks, t, [] {});
    factor_if_mine(k + 1);
    const bool prefetch = overlap && k + 2 < nt;
    auto progress = [&] {
      if (!prefetch) return;
      if (!issued[(k + 1) % 2] && flags.panel_ready(k + 1)) {
        next.fetch_l(k + 1, t);
        issued[(k + 1) % 2] = true;
      }
      scoped_timer s(t.comm);
      if (issued[(k + 1) % 2])
        next.poll();
      else
        gaea::runtime::current().progress().poll(gaea::runtime::current().worker());
    };
    progress();
    update_rectangle(m, cur, k + 1, nt, k + 2, nt, strip, chunk, tasks, t, progress);
  }
  // Every rank is done reading L tiles: apply the swaps left of each panel.
  sync(m, t);
  for (index_t k = 1; k < nt; ++k)
    apply_swaps(m, k, res.pivots, 0, my_cols_before(m, k), colg, t);
  sync(m, t);
}

}  // namespace

factor_result factor(tiled_matrix& m, const factor_options& opt, task_runner& tasks) {
  factor_result res;
  // The small arrays each variant needs are created (collectively) before the clock starts.
  std::optional<pivot_flags> pflags;
  std::optional<step_flags> flags;
  std::optional<gaea::coll::group> colg;  // the process column: pivot search and row swaps
  if (opt.pivot) {
    pflags.emplace(m);
    if (m.prow() > 1)
      colg = gaea::coll::world().split(m.my_pcol(), m.my_prow(), "lu process column");
  } else {
    flags.emplace(m);
  }
  m.array().sync();
  const double t0 = now();
  if (opt.pivot)
    factor_pivoted(m, *pflags, colg ? &*colg : nullptr, opt.overlap, tasks, res);
  else
    factor_lookahead(m, opt.overlap, *flags, tasks, res);
  res.times.total = now() - t0;
  return res;
}

}  // namespace lu
