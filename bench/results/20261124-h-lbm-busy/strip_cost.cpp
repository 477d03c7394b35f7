// Ad hoc driver (kept for the record, not built): thread CPU time of sweep_rows over a tile, of the
// same tile swept as columns [0, w-1) then the last column (an overlapped step's column strip), and
// as rows [0, h-1) then the last row. g++ -std=c++20 -O3 -ffp-contract=off -Iapps/lbm
// strip_cost.cpp apps/lbm/kernel.cpp
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include "kernel.hpp"
#include "lattice.hpp"
using namespace lbm;
static double cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char** argv) {
  long h = atol(argv[1]), wd = atol(argv[2]);
  int steps = 20;
  long row = wd + 2, plane = row * (h + 2);
  std::vector<double> A(9 * plane), B(9 * plane);
  for (long i = 0; i < 9 * plane; ++i)
    A[i] = B[i] = w[i / plane] * (1.0 + 1e-3 * ((i * 7919) % 13));
  std::vector<std::int64_t> rs(h + 1, 0);
  std::vector<std::uint8_t> flags((h + 2) * row, fluid);
  kernel_args a;
  a.plane = plane;
  a.row = row;
  a.width = wd;
  a.flags = flags.data();
  a.flag_row = row;
  a.row_start = rs.data();
  a.omega = 1 / 0.6;
  double full = 1e9, split = 1e9, col = 1e9, rowstrip = 1e9;
  for (int s = 0; s < steps; ++s) {
    a.src = (s % 2 ? B.data() : A.data()) + row + 1;
    a.dst = (s % 2 ? A.data() : B.data()) + row + 1;
    double t0 = cpu();
    sweep_rows(a, 0, h);
    full = std::min(full, cpu() - t0);
    t0 = cpu();
    sweep_box(a, 0, h, 0, wd - 1);
    double t1 = cpu();
    sweep_box(a, 0, h, wd - 1, wd);
    double t2 = cpu();
    split = std::min(split, t2 - t0);
    col = std::min(col, t2 - t1);
    t0 = cpu();
    sweep_box(a, 0, h - 1, 0, wd);
    t1 = cpu();
    sweep_box(a, h - 1, h, 0, wd);
    t2 = cpu();
    rowstrip = std::min(rowstrip, t2 - t0);
  }
  std::printf("%ldx%ld full %.2f ms, col-split %.2f ms (column alone %.3f ms), row-split %.2f ms\n",
              h, wd, full * 1e3, split * 1e3, col * 1e3, rowstrip * 1e3);
}
