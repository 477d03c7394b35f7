// lbm::solver: decomposition, step plan, ghost exchange and sweeps, profiles and checksums;
// the stream-collide kernel itself is in kernel.cpp.

#include "solver.hpp"
#include "gaea/model/apps.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/extension.hpp"
#include "gaea/runtime/runtime.hpp"
#include "kernel.hpp"
#include "lattice.hpp"

namespace lbm {

using gaea::ga::index;
using gaea::ga::patch;

// The local tile's cell classes (with its ghost layer) and where each row leaves the fast loop.
struct solver::plan {
  index_t y0 = 0, x0 = 0, height = 0, width = 0;
  std::vector<std::uint8_t> flags;  // (height + 2) x (width + 2)
  std::vector<std::int64_t> row_start;
  std::vector<special_cell> specials;
  // Whether the ghost layer beyond each side (left, right, bottom, top; corners count for both
  // of their sides) holds a fluid cell, i.e. whether the cells along that edge read ghosts.
  // Edges that do not (walls, inlets, outlets) need not wait for the exchange.
  std::array<bool, 4> reads_ghosts{};
};

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Totals of all solvers of this process, for the GAEA_REPORT summary (registered once per
// runtime, on every rank, the first time a solver is built).
struct report_totals {
  double updates = 0, compute = 0, ghosts = 0;
};
report_totals& totals() {
  static report_totals t;
  return t;
}
void register_report(gaea::runtime& rt) {
  static std::uint64_t registered = std::numeric_limits<std::uint64_t>::max();
  if (registered == rt.instance()) return;
  registered = rt.instance();
  totals() = {};
  gaea::add_report_section(rt, "lattice Boltzmann",
                           {gaea::report_count("cell updates"), "compute s", "ghost exchange s"},
                           [] {
                             const report_totals& t = totals();
                             return std::vector<double>{t.updates, t.compute, t.ghosts};
                           });
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<index_t> starts(index_t n, int parts) {
  std::vector<index_t> s(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p)
    s[static_cast<std::size_t>(p)] = n * p / parts;
  return s;
}

}  // namespace

std::vector<int> default_grid(int ranks, index_t ny, index_t nx) {
  const auto [py, px] = gaea::model::lbm_default_grid(ranks, ny, nx);  // as the model predicts
  return {static_cast<int>(py), static_cast<int>(px)};
}

solver::solver(config cfg, std::vector<int> grid, int threads) : cfg_(std::move(cfg)) {
  cfg_.validate();
  gaea::runtime& rt = gaea::runtime::current();
  register_report(rt);
  if (grid.empty()) grid = default_grid(rt.size(), cfg_.ny, cfg_.nx);
  if (grid.size() != 2 || grid[0] < 1 || grid[1] < 1 ||
      static_cast<std::int64_t>(grid[0]) * grid[1] > rt.size() || grid[0] > cfg_.ny ||
      grid[1] > cfg_.nx)
    throw gaea::error("lbm: process grid must be {py, px} with py*px <= " +
                      std::to_string(rt.size()) + " ranks, py <= ny = " + std::to_string(cfg_.ny) +
                      " and px <= nx = " + std::to_string(cfg_.nx));
  grid_ = grid;
  if (threads < 0) throw gaea::error("lbm: threads = " + std::to_string(threads) + " must be >= 0");
  arena_ = threads > 0 ? std::make_unique<tbb::task_arena>(threads)
                       : std::make_unique<tbb::task_arena>();
  // Periodic sides wrap the ghosts; the others' ghost cells are set by the boundary rules.
  boundary_ = cfg_.periodic_x() || cfg_.periodic_y() ? gaea::ga::boundary::periodic
                                                     : gaea::ga::boundary::fixed;
  // Populations never cross tiles along dimension 0: a tile holds all nine of its cells.
  const auto spec =
      gaea::ga::layout_spec::irregular({{0}, starts(cfg_.ny, grid[0]), starts(cfg_.nx, grid[1])})
          .with_ghosts({0, 1, 1});
  a_ = std::make_unique<gaea::global_array<double>>("lbm_f_a", index{q, cfg_.ny, cfg_.nx}, spec);
  b_ = std::make_unique<gaea::global_array<double>>("lbm_f_b", index{q, cfg_.ny, cfg_.nx}, spec);
  cur_ = a_.get();
  next_ = b_.get();
  build_plan();
  // Equilibrium at rest, density 1, in both arrays (solid cells keep it for good).
  for (gaea::global_array<double>* arr : {a_.get(), b_.get()}) {
    arr->sync();
    for (const auto& t : arr->local_tiles())
      for (int i = 0; i < q; ++i) {
        const double v = equilibrium(i, 1.0, 0.0, 0.0);
        double* plane = t.origin + i * t.strides[0] - t.strides[1] - 1;  // ghost corner
        std::fill(plane, plane + t.strides[0], v);
      }
    arr->sync();
  }
}

solver::~solver() = default;

void solver::build_plan() {
  plan_ = std::make_unique<plan>();
  plan& p = *plan_;
  const auto tiles = cur_->local_tiles();
  owns_ = !tiles.empty();
  if (!owns_) return;
  const patch& b = tiles.front().box;
  p.y0 = b.lo[1];
  p.x0 = b.lo[2];
  p.height = b.extent(1);
  p.width = b.extent(2);
  const index_t fw = p.width + 2;
  p.flags.resize(static_cast<std::size_t>((p.height + 2) * fw));
  for (index_t r = -1; r <= p.height; ++r)
    for (index_t c = -1; c <= p.width; ++c)
      p.flags[static_cast<std::size_t>((r + 1) * fw + c + 1)] = cfg_.flag(p.x0 + c, p.y0 + r);
  p.row_start.assign(static_cast<std::size_t>(p.height + 1), 0);
  for (index_t r = 0; r < p.height; ++r) {
    for (index_t c = 0; c < p.width; ++c) {
      auto fl = [&](index_t dr, index_t dc) {
        return p.flags[static_cast<std::size_t>((r + 1 + dr) * fw + c + 1 + dc)];
      };
      if (fl(0, 0) != fluid) {
        p.specials.push_back({static_cast<std::int32_t>(c), 0});
        continue;
      }
      bool all_fluid = true;
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          all_fluid = all_fluid && fl(dr, dc) == fluid;
      if (!all_fluid) p.specials.push_back({static_cast<std::int32_t>(c), 1});
    }
    p.row_start[static_cast<std::size_t>(r + 1)] = static_cast<std::int64_t>(p.specials.size());
  }
  auto fluid_at = [&](index_t r, index_t c) {
    return p.flags[static_cast<std::size_t>((r + 1) * fw + c + 1)] == fluid;
  };
  for (index_t r = -1; r <= p.height; ++r) {
    p.reads_ghosts[left] = p.reads_ghosts[left] || fluid_at(r, -1);
    p.reads_ghosts[right] = p.reads_ghosts[right] || fluid_at(r, p.width);
  }
  for (index_t c = -1; c <= p.width; ++c) {
    p.reads_ghosts[bottom] = p.reads_ghosts[bottom] || fluid_at(-1, c);
    p.reads_ghosts[top] = p.reads_ghosts[top] || fluid_at(p.height, c);
  }
}

kernel_args solver::kernel_for_step() const {
  const plan& p = *plan_;
  const auto src = cur_->local_tiles().front();
  const auto dst = next_->local_tiles().front();
  kernel_args a;
  a.src = src.origin;
  a.dst = dst.origin;
  a.plane = src.strides[0];
  a.row = src.strides[1];
  a.width = p.width;
  a.flags = p.flags.data();
  a.flag_row = p.width + 2;
  a.row_start = p.row_start.data();
  a.specials = p.specials.data();
  a.sides = cfg_.sides.data();
  a.omega = 1.0 / cfg_.tau;
  a.fx = cfg_.fx;
  a.fy = cfg_.fy;
  a.force = cfg_.fx != 0 || cfg_.fy != 0;
  a.streaming_stores = streaming_;
  return a;
}

void solver::sweep(region which, gaea::ga::ghost_request* poll) {
  if (!owns_) return;
  const kernel_args a = kernel_for_step();
  const std::int64_t h = plan_->height, wd = plan_->width;
  // The interior: the cells that read no ghost (an edge whose ghost layer holds no fluid cell
  // belongs to it). The strip is the rest: the edge rows that read ghosts, then the edge columns
  // that read ghosts in the rows between.
  const auto& g = plan_->reads_ghosts;
  const std::int64_t i0 = g[bottom] ? 1 : 0, i1 = g[top] ? h - 1 : h;
  const std::int64_t j0 = g[left] ? 1 : 0, j1 = g[right] ? wd - 1 : wd;
  if (which == region::strip) {
    // Serial: a few rows' worth of cells.
    if (g[bottom]) sweep_box(a, 0, 1, 0, wd);
    if (g[top] && h - 1 >= i0) sweep_box(a, h - 1, h, 0, wd);
    if (g[left]) sweep_box(a, i0, i1, 0, 1);
    if (g[right] && wd - 1 >= j0) sweep_box(a, i0, i1, wd - 1, wd);
    return;
  }
  const bool all = which == region::all;
  const std::int64_t r0 = all ? 0 : i0, r1 = all ? h : i1;
  const std::int64_t c0 = all ? 0 : j0, c1 = all ? wd : j1;
  if (r0 >= r1 || c0 >= c1) return;
  // With an exchange in flight, the rows go in ~16 blocks and the exchange gets a progress
  // step between blocks: transfers that need this rank's worker (tcp: the replies to its gets)
  // then complete during the sweep instead of in the final wait.
  const std::int64_t block = poll ? std::max<std::int64_t>(16, (r1 - r0 + 15) / 16) : r1 - r0;
  for (std::int64_t b0 = r0; b0 < r1; b0 += block) {
    const std::int64_t b1 = std::min(b0 + block, r1);
    arena_->execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::int64_t>(b0, b1, 4),
                        [&](const tbb::blocked_range<std::int64_t>& rg) {
                          sweep_box(a, rg.begin(), rg.end(), c0, c1);
                        });
    });
    if (poll) poll->test();  // the issuing thread's turn: test() must run here
  }
}

void solver::step(std::int64_t n) {
  using clock = std::chrono::steady_clock;
  for (std::int64_t s = 0; s < n; ++s) {
    double tg = 0, tw = 0, tc = 0;
    if (overlap_) {
      // Start the exchange, update what needs no ghost, then wait and finish the strip. Each
      // cell is computed by the same code from the same inputs either way: bit-identical.
      auto t0 = clock::now();
      gaea::ga::ghost_request ghosts = cur_->update_ghosts_async(boundary_);
      tg = seconds_since(t0);
      t0 = clock::now();
      sweep(region::interior, &ghosts);
      tc = seconds_since(t0);
      t0 = clock::now();
      ghosts.wait();
      tw = seconds_since(t0);
      tg += tw;
      t0 = clock::now();
      sweep(region::strip);
      tc += seconds_since(t0);
    } else {
      auto t0 = clock::now();
      cur_->update_ghosts(boundary_);
      tg = seconds_since(t0);
      t0 = clock::now();
      sweep(region::all);
      tc = seconds_since(t0);
    }
    std::swap(cur_, next_);
    ++steps_;
    const double cells = owns_ ? static_cast<double>(plan_->height * plan_->width) : 0.0;
    updates_ += static_cast<std::int64_t>(cells);
    time_.ghosts += tg;
    time_.ghost_wait += tw;
    time_.compute += tc;
    totals().updates += cells;
    totals().ghosts += tg;
    totals().compute += tc;
  }
}

profile solver::line(const patch& p, std::int64_t n) {
  std::vector<double> buf(static_cast<std::size_t>(q * n));
  cur_->sync();  // peers may still be writing their part of the last step
  cur_->get(p, buf);
  profile out;
  out.rho.resize(static_cast<std::size_t>(n));
  out.ux.resize(static_cast<std::size_t>(n));
  out.uy.resize(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    double f[q];
    for (int i = 0; i < q; ++i)
      f[i] = buf[static_cast<std::size_t>(i * n + k)];
    const auto u = static_cast<std::size_t>(k);
    moments(f, cfg_.fx, cfg_.fy, out.rho[u], out.ux[u], out.uy[u]);
  }
  return out;
}

profile solver::column(index_t x) {
  if (x < 0 || x >= cfg_.nx)
    throw gaea::error("lbm: column " + std::to_string(x) + " outside [0, " +
                      std::to_string(cfg_.nx) + ")");
  return line({{0, 0, x}, {q - 1, cfg_.ny - 1, x}}, cfg_.ny);
}

profile solver::row(index_t y) {
  if (y < 0 || y >= cfg_.ny)
    throw gaea::error("lbm: row " + std::to_string(y) + " outside [0, " + std::to_string(cfg_.ny) +
                      ")");
  return line({{0, y, 0}, {q - 1, y, cfg_.nx - 1}}, cfg_.nx);
}

std::uint64_t solver::checksum() {
  std::uint64_t h = 0;
  for (const auto& t : cur_->local_tiles())
    for (index_t i = 0; i < q; ++i)
      for (index_t y = t.box.lo[1]; y <= t.box.hi[1]; ++y) {
        const double* row = t.origin + i * t.strides[0] + (y - t.box.lo[1]) * t.strides[1];
        const auto pos0 = static_cast<std::uint64_t>((i * cfg_.ny + y) * cfg_.nx);
        for (index_t x = t.box.lo[2]; x <= t.box.hi[2]; ++x)
          h += mix(std::bit_cast<std::uint64_t>(row[x - t.box.lo[2]]) ^
                   mix(pos0 + static_cast<std::uint64_t>(x) + 1));
      }
  return gaea::coll::allreduce(gaea::coll::world(), h, gaea::coll::reduce_op::sum);
}

bool solver::finite() {
  // Populations are O(1): a row's sum is finite exactly when its values are (NaN and infinity
  // propagate), and summing vectorises where a test per value would not.
  double bad = 0;
  for (const auto& t : cur_->local_tiles())
    for (index_t i = 0; i < q && bad == 0; ++i)
      for (index_t y = t.box.lo[1]; y <= t.box.hi[1]; ++y) {
        const double* row = t.origin + i * t.strides[0] + (y - t.box.lo[1]) * t.strides[1];
        double sum = 0;
        for (index_t x = 0; x < t.box.extent(2); ++x)
          sum += row[x];
        if (!std::isfinite(sum)) {
          bad = 1;
          break;
        }
      }
  return gaea::coll::allreduce(gaea::coll::world(), bad, gaea::coll::reduce_op::max) == 0;
}

}  // namespace lbm
