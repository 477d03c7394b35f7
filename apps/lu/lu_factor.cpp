#include "lu_factor.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace gaea::lu {

namespace {

using ga::nonblocking;
using ga::request;

/// Copies of the panel tiles one rank needs for the trailing update of step k: L tiles (i, k)
/// of its process row and U tiles (k, j) of its process column. Tiles the rank owns are used in
/// place; the others are fetched with non-blocking gets.
class panel {
 public:
  explicit panel(tiled_matrix& m)
      : m_(m),
        l_(static_cast<std::size_t>(m.tiles())),
        u_(l_.size()),
        lbuf_(l_.size()),
        ubuf_(l_.size()) {}

  /// Issues the gets of step k's panel (does not wait). Issue time counts as communication.
  void fetch(index_t k, lu_timings& t) {
    k_ = k;
    const double t0 = now();
    issue_begin_ = t0;
    done_at_ = -1;
    const index_t nt = m_.tiles();
    for (index_t i = k + 1; i < nt; ++i) {
      if (i % m_.prow() != m_.my_prow()) continue;
      l_[static_cast<std::size_t>(i)] = fetch_tile(i, k, lbuf_[static_cast<std::size_t>(i)], t);
    }
    for (index_t j = k + 1; j < nt; ++j) {
      if (j % m_.pcol() != m_.my_pcol()) continue;
      u_[static_cast<std::size_t>(j)] = fetch_tile(k, j, ubuf_[static_cast<std::size_t>(j)], t);
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
  const double* l(index_t i) const { return l_[static_cast<std::size_t>(i)]; }
  const double* u(index_t j) const { return u_[static_cast<std::size_t>(j)]; }

 private:
  const double* fetch_tile(index_t ti, index_t tj, std::vector<double>& buf, lu_timings& t) {
    if (m_.mine(ti, tj)) return m_.tile(ti, tj).data;
    const std::size_t elems = static_cast<std::size_t>(m_.extent(ti) * m_.extent(tj));
    buf.resize(elems);
    pending_.push_back(m_.array().get(m_.tile_patch(ti, tj), buf, nonblocking));
    t.bytes += elems * sizeof(double);
    return buf.data();
  }

  tiled_matrix& m_;
  index_t k_ = -1;
  std::vector<const double*> l_, u_;
  std::vector<std::vector<double>> lbuf_, ubuf_;
  std::vector<request> pending_;
  std::size_t completed_ = 0;
  double issue_begin_ = 0, issue_cost_ = 0, done_at_ = -1;
};

void sync(tiled_matrix& m, lu_timings& t) {
  scoped_timer s(t.sync);
  m.array().sync();
}

/// Gets tile (ti, tj) into `buf` unless it is local; returns a pointer to its data.
const double* get_tile(tiled_matrix& m, index_t ti, index_t tj, std::vector<double>& buf,
                       lu_timings& t) {
  if (m.mine(ti, tj)) return m.tile(ti, tj).data;
  scoped_timer s(t.comm);
  buf.resize(static_cast<std::size_t>(m.extent(ti) * m.extent(tj)));
  m.array().get(m.tile_patch(ti, tj), buf);
  t.bytes += buf.size() * sizeof(double);
  return buf.data();
}

void note_zero_pivot(factor_result& res, index_t row) {
  if (res.zero_pivot < 0) res.zero_pivot = row;
}

/// The owner of diagonal tile k factors it (no pivoting).
void factor_diagonal(tiled_matrix& m, index_t k, factor_result& res) {
  if (!m.mine(k, k)) return;
  scoped_timer s(res.times.compute);
  if (!factor_panel(m.tile(k, k).map(), nullptr)) note_zero_pivot(res, m.start(k));
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
  const double* d = get_tile(m, k, k, buf, t);
  const index_t w = m.extent(k);
  const const_block_map diag = const_map_block(d, w, w, w);
  scoped_timer s(t.compute);
  tasks.run(work.size(), [&](std::size_t i) {
    const local_tile& lt = *work[i];
    if (lt.tj == k)
      solve_upper_right(diag, lt.map());
    else
      solve_unit_lower_left(diag, lt.map());
  });
}

/// Schur-complement update of `work` (tiles (i, j) with i, j > k) with panel k, in chunks of
/// `chunk` tiles; between chunks `between()` runs on this thread (it polls the prefetch).
template <class Between>
void update_tiles(tiled_matrix& m, const panel& p, const std::vector<const local_tile*>& work,
                  task_runner& tasks, std::size_t chunk, lu_timings& t, Between&& between) {
  const index_t k = p.step(), wk = m.extent(k);
  for (std::size_t first = 0; first < work.size(); first += chunk) {
    const std::size_t count = std::min(chunk, work.size() - first);
    {
      scoped_timer s(t.compute);
      tasks.run(count, [&](std::size_t i) {
        const local_tile& lt = *work[first + i];
        subtract_product(lt.map(), const_map_block(p.l(lt.ti), lt.rows, wk, wk),
                         const_map_block(p.u(lt.tj), wk, lt.cols, lt.cols));
      });
    }
    between();
  }
}

/// No pivoting, lookahead of one panel: at step k the owners first update column and row k+1,
/// factor the next diagonal and panel, and only then run the rest of the trailing update, while
/// the next panel's gets are in flight.
void factor_lookahead(tiled_matrix& m, bool overlap, task_runner& tasks, factor_result& res) {
  lu_timings& t = res.times;
  const index_t nt = m.tiles();
  factor_diagonal(m, 0, res);
  sync(m, t);
  solve_panel(m, 0, tasks, t);
  sync(m, t);
  panel bufs[2] = {panel(m), panel(m)};
  if (overlap && nt > 1) bufs[0].fetch(0, t);
  // Poll the prefetch every few tiles: enough to keep TCP transfers moving.
  const std::size_t chunk = static_cast<std::size_t>(std::max(2, 2 * tasks.threads()));
  std::vector<const local_tile*> ahead, rest;
  for (index_t k = 0; k + 1 < nt; ++k) {
    panel& cur = bufs[k % 2];
    panel& next = bufs[(k + 1) % 2];
    if (!overlap) cur.fetch(k, t);
    cur.wait(t);
    ahead.clear();
    rest.clear();
    for (const auto& lt : m.local_tiles()) {
      if (lt.ti <= k || lt.tj <= k) continue;
      (lt.ti == k + 1 || lt.tj == k + 1 ? ahead : rest).push_back(&lt);
    }
    update_tiles(m, cur, ahead, tasks, ahead.size() + 1, t, [] {});
    factor_diagonal(m, k + 1, res);
    sync(m, t);
    solve_panel(m, k + 1, tasks, t);
    sync(m, t);
    const bool prefetch = overlap && k + 2 < nt;
    if (prefetch) next.fetch(k + 1, t);
    update_tiles(m, cur, rest, tasks, chunk, t, [&] {
      if (!prefetch) return;
      scoped_timer s(t.comm);
      next.poll();
    });
  }
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
  auto row_ptr = [&](index_t g) { return g < r1 ? lt.data + (g - r0) * c : outside.at(g).data(); };
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
void factor_pivoted(tiled_matrix& m, task_runner& tasks, factor_result& res) {
  lu_timings& t = res.times;
  const index_t n = m.n(), nt = m.tiles();
  global_array<std::int64_t> piv("lu_pivots", {n});
  res.pivots.assign(static_cast<std::size_t>(n), 0);
  std::vector<double> pbuf;
  std::vector<index_t> local_piv;
  panel p(m);
  for (index_t k = 0; k < nt; ++k) {
    const index_t kb = m.start(k), w = m.extent(k), rows = n - kb;
    const ga::patch column{{kb, kb}, {n - 1, kb + w - 1}};
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
        if (!factor_panel(map_block(pbuf.data(), rows, w, w), local_piv.data()))
          note_zero_pivot(res, kb);
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
    std::vector<const local_tile*> work;
    for (const auto& lt : m.local_tiles())
      if (lt.ti > k && lt.tj > k) work.push_back(&lt);
    update_tiles(m, p, work, tasks, work.size() + 1, t, [] {});
  }
  sync(m, t);
}

}  // namespace

factor_result factor(tiled_matrix& m, const factor_options& opt, task_runner& tasks) {
  factor_result res;
  const double t0 = now();
  if (opt.pivot)
    factor_pivoted(m, tasks, res);
  else
    factor_lookahead(m, opt.overlap, tasks, res);
  res.times.total = now() - t0;
  return res;
}

}  // namespace gaea::lu
