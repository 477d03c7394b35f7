// Where an array's data lives, set on a handle before GA_Allocate: restricted rank lists
// (GA_Set_restricted*), irregular tiles on a process grid (GA_Set_tiled_irreg_proc_grid) and the
// memory device (GA_Set_memory_dev).

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// The pending settings of an unallocated handle.
pending_array& pending_of(int g_a, const char* fn, bool need_dims) {
  array_slot& s = current(fn).arrays.at(g_a, fn);
  if (s.allocated()) throw error("array '" + s.name + "' is already allocated");
  if (need_dims && s.pending.dims.empty())
    throw error("call GA_Set_data first (the dimensions are not known)");
  return s.pending;
}

void set_restricted(int g_a, std::vector<int> ranks, const char* fn) {
  pending_array& p = pending_of(g_a, fn, false);
  const int nprocs = current(fn).rt->size();
  if (ranks.empty()) throw error("an empty rank list");
  for (const int r : ranks)
    if (r < 0 || r >= nprocs)
      throw error("rank " + std::to_string(r) + " is not in [0, " + std::to_string(nprocs) + ")");
  // GA: data on ranks list[0..size-1], block k on list[k]; the distribution checks duplicates.
  p.spec.ranks = std::move(ranks);
}

template <class I>
void set_tiled_irreg(int g_a, const I* mapc, const I* nblocks, const I* proc_grid, const char* fn) {
  pending_array& p = pending_of(g_a, fn, true);
  const int ndim = static_cast<int>(p.dims.size());
  if (ndim != 2)
    throw error("irregular tiles on a process grid are 2-D on Gaea; this array has " +
                std::to_string(ndim) + " dimensions");
  if (mapc == nullptr || nblocks == nullptr || proc_grid == nullptr)
    throw error("null mapc, nblocks or proc_grid");
  std::vector<std::vector<ga::index_t>> starts(2);
  std::size_t k = 0;
  for (int d = 0; d < 2; ++d) {
    if (nblocks[d] < 1)
      throw error("nblocks[" + std::to_string(d) + "]=" + std::to_string(nblocks[d]));
    for (long b = 0; b < static_cast<long>(nblocks[d]); ++b)
      starts[static_cast<std::size_t>(d)].push_back(static_cast<ga::index_t>(mapc[k++]));
  }
  const ga::index ghosts = p.spec.ghosts;
  p.spec = ga::layout_spec::block_cyclic_irregular(
      std::move(starts), {static_cast<int>(proc_grid[0]), static_cast<int>(proc_grid[1])});
  p.spec.ghosts = ghosts;
}

}  // namespace

extern "C" {

void GA_Set_restricted(int g_a, int list[], int size) {
  api("GA_Set_restricted", [&] {
    if (list == nullptr || size < 1) throw error("a list of " + std::to_string(size) + " ranks");
    set_restricted(g_a, std::vector<int>(list, list + size), "GA_Set_restricted");
  });
}
void GA_Set_restricted_range(int g_a, int lo_proc, int hi_proc) {
  api("GA_Set_restricted_range", [&] {
    if (hi_proc < lo_proc)
      throw error("ranks " + std::to_string(lo_proc) + ".." + std::to_string(hi_proc));
    std::vector<int> ranks;
    for (int r = lo_proc; r <= hi_proc; ++r)
      ranks.push_back(r);
    set_restricted(g_a, std::move(ranks), "GA_Set_restricted_range");
  });
}
void NGA_Set_restricted(int g_a, int list[], int size) {
  GA_Set_restricted(g_a, list, size);
}
void NGA_Set_restricted_range(int g_a, int lo_proc, int hi_proc) {
  GA_Set_restricted_range(g_a, lo_proc, hi_proc);
}

void GA_Set_tiled_irreg_proc_grid(int g_a, int mapc[], int nblocks[], int proc_grid[]) {
  api("GA_Set_tiled_irreg_proc_grid",
      [&] { set_tiled_irreg<int>(g_a, mapc, nblocks, proc_grid, "GA_Set_tiled_irreg_proc_grid"); });
}
void GA_Set_tiled_irreg_proc_grid64(int g_a, int64_t mapc[], int64_t nblocks[],
                                    int64_t proc_grid[]) {
  api("GA_Set_tiled_irreg_proc_grid64", [&] {
    set_tiled_irreg<int64_t>(g_a, mapc, nblocks, proc_grid, "GA_Set_tiled_irreg_proc_grid64");
  });
}
void NGA_Set_tiled_irreg_proc_grid(int g_a, int mapc[], int nblocks[], int proc_grid[]) {
  GA_Set_tiled_irreg_proc_grid(g_a, mapc, nblocks, proc_grid);
}
void NGA_Set_tiled_irreg_proc_grid64(int g_a, int64_t mapc[], int64_t nblocks[],
                                     int64_t proc_grid[]) {
  GA_Set_tiled_irreg_proc_grid64(g_a, mapc, nblocks, proc_grid);
}

void GA_Set_memory_dev(int g_a, const char* device) {
  // Gaea's arrays live in host memory: "host" (any case) is accepted, a device is refused.
  api("GA_Set_memory_dev", [&] {
    pending_of(g_a, "GA_Set_memory_dev", false);
    std::string d = device ? device : "";
    std::transform(d.begin(), d.end(), d.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (d != "host")
      throw error("memory device '" + std::string(device ? device : "") +
                  "' is not available: Gaea keeps arrays in host memory (\"host\")");
  });
}
void NGA_Set_memory_dev(int g_a, const char* device) {
  GA_Set_memory_dev(g_a, device);
}

}  // extern "C"
