// The stream-collide kernel. Rows are cut into runs of cells whose nine neighbours are all fluid
// (the vectorised loop: 9 unit-stride loads, 9 unit-stride stores per cell, no branches) and
// single boundary cells, which apply the boundary rule of each non-fluid neighbour. Both paths
// call the same collide(), so a cell's value never depends on which path or rank computed it.
#include "kernel.hpp"

#include <algorithm>
#include <bit>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "lattice.hpp"

namespace lbm {

namespace {

// For row r: where population i is pulled from (the neighbour it streams from) and written to.
void row_pointers(const kernel_args& a, std::int64_t r, const double** s, double** d) {
  for (int i = 0; i < q; ++i) {
    const auto k = static_cast<std::size_t>(i);
    s[i] = a.src + i * a.plane + (r - cy[k]) * a.row - cx[k];
    d[i] = a.dst + i * a.plane + r * a.row;
  }
}

// Cells per cache line, and how far ahead (in cells) fluid_run asks for the lines it will write.
constexpr std::int64_t line_cells = 64 / sizeof(double);
constexpr std::int64_t write_ahead = 256;

template <bool Force>
void fluid_run(const kernel_args& a, std::int64_t r, std::int64_t c0, std::int64_t c1) {
  const double* s[q];
  double* d[q];
  row_pointers(a, r, s, d);
  const double omega = a.omega, fx = a.fx, fy = a.fy;
  for (std::int64_t b0 = c0; b0 < c1; b0 += line_cells) {
    // Nine write streams are more than the hardware prefetcher follows: without a hint each
    // store line's read-for-ownership starts only at the store (docs/measurements.md). A hint
    // past the row or the array's end is harmless (prefetches never fault) and warms the next
    // row's lines.
    for (int i = 0; i < q; ++i)
      __builtin_prefetch(d[i] + b0 + write_ahead, 1);
    const std::int64_t b1 = std::min(b0 + line_cells, c1);
#pragma GCC ivdep
    for (std::int64_t c = b0; c < b1; ++c) {
      double f[q];
      for (int i = 0; i < q; ++i)
        f[i] = s[i][c];
      collide<Force>(f, f, omega, fx, fy);
      for (int i = 0; i < q; ++i)
        d[i][c] = f[i];
    }
  }
}

// Streaming form of fluid_run: blocks of cells are relaxed into a small buffer (the loop over
// the block's cells vectorises as fluid_run's does), then written plane by plane with 8-byte
// non-temporal stores, which need no alignment. Each plane's stores are consecutive, so the
// write-combining buffers fill whole lines.
template <bool Force>
void fluid_run_streaming(const kernel_args& a, std::int64_t r, std::int64_t c0, std::int64_t c1) {
#if defined(__x86_64__)
  constexpr std::int64_t block = 32;
  const double* s[q];
  double* d[q];
  row_pointers(a, r, s, d);
  const double omega = a.omega, fx = a.fx, fy = a.fy;
  double out[q][block];
  for (std::int64_t b0 = c0; b0 < c1; b0 += block) {
    const std::int64_t n = std::min(block, c1 - b0);
#pragma GCC ivdep
    for (std::int64_t j = 0; j < n; ++j) {
      double f[q];
      for (int i = 0; i < q; ++i)
        f[i] = s[i][b0 + j];
      collide<Force>(f, f, omega, fx, fy);
      for (int i = 0; i < q; ++i)
        out[i][j] = f[i];
    }
    for (int i = 0; i < q; ++i) {
      auto* to = reinterpret_cast<long long*>(d[i] + b0);
      for (std::int64_t j = 0; j < n; ++j)
        _mm_stream_si64(to + j, std::bit_cast<long long>(out[i][j]));
    }
  }
#else
  fluid_run<Force>(a, r, c0, c1);
#endif
}

template <bool Force>
void boundary_cell(const kernel_args& a, std::int64_t r, std::int64_t c) {
  const double* here = a.src + r * a.row + c;
  double f[q];
  bool have_u = false;
  double ux = 0, uy = 0;
  for (int i = 0; i < q; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::int64_t sr = r - cy[k], sc = c - cx[k];
    const std::uint8_t fl = a.flags[(sr + 1) * a.flag_row + sc + 1];
    const double back = here[opp[k] * a.plane];  // what left this cell towards the neighbour
    if (fl == fluid) {
      f[i] = a.src[i * a.plane + sr * a.row + sc];
      continue;
    }
    const side* sd = fl >= first_side ? &a.sides[fl - first_side] : nullptr;
    if (sd == nullptr || sd->kind == side_kind::wall || sd->kind == side_kind::periodic) {
      f[i] = back;  // half-way bounce-back
    } else if (sd->kind == side_kind::velocity) {
      // Bounce-back with the wall's momentum (Ladd 1994), reference density 1.
      f[i] = back + 6.0 * w[k] * (cx[k] * sd->ux + cy[k] * sd->uy);
    } else {
      // Anti-bounce-back at the outlet density with this cell's velocity (Ginzburg et al.).
      if (!have_u) {
        double rho, hf[q];
        for (int j = 0; j < q; ++j)
          hf[j] = here[j * a.plane];
        moments(hf, 0.0, 0.0, rho, ux, uy);
        have_u = true;
      }
      const double cu = cx[k] * ux + cy[k] * uy;
      f[i] = -back + 2.0 * w[k] * sd->rho * (1.0 + 4.5 * cu * cu - 1.5 * (ux * ux + uy * uy));
    }
  }
  double o[q];
  collide<Force>(f, o, a.omega, a.fx, a.fy);
  for (int i = 0; i < q; ++i)
    a.dst[i * a.plane + r * a.row + c] = o[i];
}

template <bool Force>
void rows(const kernel_args& a, std::int64_t r0, std::int64_t r1, std::int64_t c0,
          std::int64_t c1) {
  const auto run = a.streaming_stores ? &fluid_run_streaming<Force> : &fluid_run<Force>;
  for (std::int64_t r = r0; r < r1; ++r) {
    std::int64_t c = c0;
    // The row's specials are sorted by column: skip those left of the box.
    const special_cell* sp =
        std::lower_bound(a.specials + a.row_start[r], a.specials + a.row_start[r + 1], c0,
                         [](const special_cell& s, std::int64_t x) { return s.x < x; });
    for (const special_cell* end = a.specials + a.row_start[r + 1]; sp != end && sp->x < c1; ++sp) {
      if (sp->x > c) run(a, r, c, sp->x);
      if (sp->kind == 1) boundary_cell<Force>(a, r, sp->x);
      c = sp->x + 1;
    }
    if (c < c1) run(a, r, c, c1);
  }
#if defined(__x86_64__)
  if (a.streaming_stores) _mm_sfence();  // the stores are visible before the sweep ends
#endif
}

}  // namespace

void sweep_box(const kernel_args& a, std::int64_t r0, std::int64_t r1, std::int64_t c0,
               std::int64_t c1) {
  if (r0 >= r1 || c0 >= c1) return;
  if (a.force)
    rows<true>(a, r0, r1, c0, c1);
  else
    rows<false>(a, r0, r1, c0, c1);
}

void sweep_rows(const kernel_args& a, std::int64_t r0, std::int64_t r1) {
  sweep_box(a, r0, r1, 0, a.width);
}

}  // namespace lbm
