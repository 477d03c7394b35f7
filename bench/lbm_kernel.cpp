// lbm_kernel: the lattice Boltzmann kernel alone (lbm::sweep_rows over an all-fluid n x n tile
// with a ghost layer, one thread), against STREAM copy over the same memory, in the same process.
// It measures what the storage layout does to the kernel, which the app cannot vary: padding
// between the nine population planes (--pad, in doubles; 0 is the global array's layout, whose
// planes sit 32 B apart modulo 4 KiB for power-of-two tiles) and transparent huge pages
// (--huge 1: madvise(MADV_HUGEPAGE); the app's arrays are UCX shared memory, which gets them only
// if the host enables THP for shmem). Variants run interleaved, --reps times; each prints the
// median over repetitions of the best step, in wall time and in thread CPU time (the latter is
// what a busy machine leaves comparable). Bytes per cell: 144 (9 doubles read, 9 written; the
// write-allocate read is not counted, as STREAM copy does not count it).
//   lbm_kernel [--n 1024] [--steps 20] [--reps 3] [--pad 0,72] [--huge 0,1]
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "kernel.hpp"
#include "lattice.hpp"

namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Anonymous private memory, optionally advised to use huge pages.
struct mapping {
  double* p = nullptr;
  std::size_t bytes = 0;
  mapping(std::size_t n, bool huge) : bytes(n * sizeof(double)) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::runtime_error("lbm_kernel: mmap failed");
    if (huge) madvise(m, bytes, MADV_HUGEPAGE);
    p = static_cast<double*>(m);
  }
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping() { munmap(p, bytes); }
};

struct variant {
  std::int64_t pad;
  bool huge;
  std::int64_t plane;
  std::unique_ptr<mapping> a, b;
  std::vector<double> kernel_wall, kernel_cpu;  // best step (s) per repetition
  std::vector<double> copy_wall, copy_cpu;      // best copy (GB/s) per repetition
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 1024;
  int steps = 20, reps = 3;
  std::vector<std::int64_t> pads = {0, 72};
  std::vector<int> huges = {0, 1};
  CLI::App app{"the lattice Boltzmann kernel alone against STREAM copy, by storage layout"};
  apps::conventions(app, "lbm_kernel");
  app.add_option("--n", n, "tile edge (cells)")->check(CLI::Range(16, 16384));
  app.add_option("--steps", steps, "steps per repetition (the best counts)")
      ->check(CLI::Range(2, 100000));
  app.add_option("--reps", reps, "repetitions (interleaved over the variants)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--pad", pads, "doubles of padding between planes")
      ->delimiter(',')
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--huge", huges, "0: normal pages, 1: madvise(MADV_HUGEPAGE)")
      ->delimiter(',')
      ->check(CLI::Range(0, 1));
  if (const auto rc = apps::parse(app, argc, argv)) return *rc;

  const std::int64_t row = n + 2;
  std::vector<variant> vs;
  for (int h : huges)
    for (std::int64_t pad : pads) {
      variant v{pad, h != 0, row * (n + 2) + pad, nullptr, nullptr, {}, {}, {}, {}};
      const auto total = static_cast<std::size_t>(lbm::q * v.plane);
      v.a = std::make_unique<mapping>(total, v.huge);
      v.b = std::make_unique<mapping>(total, v.huge);
      for (std::size_t k = 0; k < total; ++k)  // near rest, not uniform
        v.a->p[k] = v.b->p[k] = lbm::w[k / static_cast<std::size_t>(v.plane)] *
                                (1.0 + 1e-3 * static_cast<double>((k * 7919) % 13));
      vs.push_back(std::move(v));
    }
  const std::vector<std::int64_t> row_start(static_cast<std::size_t>(n + 1), 0);  // no specials
  const std::vector<std::uint8_t> flags(static_cast<std::size_t>(row * row), lbm::fluid);
  const double cells = static_cast<double>(n * n);

  for (int r = 0; r < reps; ++r)
    for (variant& v : vs) {
      lbm::kernel_args k;
      k.plane = v.plane;
      k.row = row;
      k.width = n;
      k.flags = flags.data();
      k.flag_row = row;
      k.row_start = row_start.data();
      k.omega = 1.0 / 0.6;
      double bw = 1e30, bc = 1e30, cw = 1e30, cc = 1e30;
      for (int s = 0; s < steps; ++s) {
        const bool odd = s % 2 != 0;
        k.src = (odd ? v.b->p : v.a->p) + row + 1;
        k.dst = (odd ? v.a->p : v.b->p) + row + 1;
        double t0 = wall_s(), c0 = thread_cpu_s();
        lbm::sweep_rows(k, 0, n);
        bw = std::min(bw, wall_s() - t0);
        bc = std::min(bc, thread_cpu_s() - c0);
      }
      // STREAM copy over the same two mappings: 9 planes, 16 B per element.
      const auto total = static_cast<std::size_t>(lbm::q * v.plane);
      for (int s = 0; s < std::max(2, steps / 4); ++s) {
        double t0 = wall_s(), c0 = thread_cpu_s();
        std::copy(v.a->p, v.a->p + total, v.b->p);
        cw = std::min(cw, wall_s() - t0);
        cc = std::min(cc, thread_cpu_s() - c0);
      }
      v.kernel_wall.push_back(bw);
      v.kernel_cpu.push_back(bc);
      const double copy_bytes = 16.0 * static_cast<double>(total);
      v.copy_wall.push_back(copy_bytes / cw / 1e9);
      v.copy_cpu.push_back(copy_bytes / cc / 1e9);
    }

  std::printf(
      "lbm_kernel: %lld^2 cells, 1 thread, %d steps x %d repetitions; copy bound = copy "
      "GB/s / 144 B per cell\n",
      static_cast<long long>(n), steps, reps);
  std::printf("%6s %5s %8s %10s %9s %10s %9s %10s %9s\n", "pad", "huge", "clock", "ns/cell",
              "MLUPS", "GB/s@144B", "copy GB/s", "bound", "of bound");
  for (const variant& v : vs)
    for (int clk = 0; clk < 2; ++clk) {
      const double t = median(clk == 0 ? v.kernel_wall : v.kernel_cpu);
      const double copy_gbs = median(clk == 0 ? v.copy_wall : v.copy_cpu);
      const double mlups = cells / t / 1e6, bound = copy_gbs * 1e3 / 144.0;
      std::printf("%6lld %5d %8s %10.2f %9.1f %10.2f %9.2f %10.1f %8.0f%%\n",
                  static_cast<long long>(v.pad), v.huge ? 1 : 0, clk == 0 ? "wall" : "cpu",
                  t / cells * 1e9, mlups, cells * 144.0 / t / 1e9, copy_gbs, bound,
                  100.0 * mlups / bound);
    }
  return 0;
}
