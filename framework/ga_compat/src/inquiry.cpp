// Queries about arrays and their distribution: NGA_Inquire, names, handles, NGA_Distribution,
// NGA_Locate*, process grids and block counts.

#include <algorithm>
#include <cstring>
#include <string>

#include "detail/blocks.hpp"
#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

template <class I>
void inquire(const char* fn, int g_a, int* type, int* ndim, I* dims) {
  array_slot& s = current(fn).arrays.allocated(g_a, fn);
  with_array(g_a, fn, [&](auto& a) {
    if (type) *type = s.type;
    if (ndim) *ndim = a.ndim();
    if (dims) from_index(a.dims(), dims, "dims");
  });
}

template <class I>
void distribution(const char* fn, int g_a, int iproc, I* lo, I* hi) {
  with_array(g_a, fn, [&](auto& a) {
    if (a.layout().spec().type == ga::layout_spec::kind::block_cyclic) {
      // As GA's code (its test.F relies on it): `iproc` names a block, numbered as
      // NGA_Access_block's (modulo their count), not what that process owns.
      if (iproc < 0) throw error(std::string(fn) + ": block " + std::to_string(iproc));
      const auto& grid = a.layout().grid();
      const ga::patch box =
          block_box(a.layout(), block_coords(grid, iproc % block_count(grid)), fn);
      for (std::size_t d = 0; d < box.lo.size(); ++d) {
        lo[d] = static_cast<I>(box.lo[d]);
        hi[d] = static_cast<I>(box.hi[d]);
      }
      return;
    }
    // GA's process ids are ranks in the array's group.
    const int p = a.layout().nprocs();
    if (iproc < 0 || iproc >= p)
      throw error(std::string(fn) + ": process " + std::to_string(iproc) + " (there are " +
                  std::to_string(p) + ")");
    const auto tiles = a.tiles(a.layout().rank_of(iproc));  // block, irregular: at most one
    for (int d = 0; d < a.ndim(); ++d) {
      if (tiles.empty()) {  // owns nothing: GA reports lo = 0, hi = -1
        lo[d] = 0;
        hi[d] = -1;
      } else {
        lo[d] = static_cast<I>(tiles[0].box.lo[static_cast<std::size_t>(d)]);
        hi[d] = static_cast<I>(tiles[0].box.hi[static_cast<std::size_t>(d)]);
      }
    }
  });
}

template <class I>
int locate(const char* fn, int g_a, const I* subscript) {
  return with_array(g_a, fn, [&](auto& a) {
    const ga::index e = to_index(subscript, a.ndim(), "subscript");
    for (std::size_t d = 0; d < e.size(); ++d)
      if (e[d] < 0 || e[d] >= a.dims()[d]) return -1;  // GA: out of bounds → -1
    return a.layout().member_of(a.owner(e));
  });
}

// map: per piece, lo[ndim] then hi[ndim]; procs: the owner of each piece. Returns the count.
template <class I>
int locate_region(const char* fn, int g_a, const I* lo, const I* hi, I* map, int* procs) {
  return with_array(g_a, fn, [&](auto& a) {
    const auto pieces = a.locate(to_patch(lo, hi, a.ndim()));
    const std::size_t n = static_cast<std::size_t>(a.ndim());
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (map) {
        for (std::size_t d = 0; d < n; ++d) {
          map[2 * n * i + d] = static_cast<I>(pieces[i].piece.lo[d]);
          map[2 * n * i + n + d] = static_cast<I>(pieces[i].piece.hi[d]);
        }
      }
      if (procs) procs[i] = a.layout().member_of(pieces[i].rank);
    }
    return static_cast<int>(pieces.size());
  });
}

// Distinct owners of the patch, or (blocks) the pieces one per block.
template <class I>
int locate_nnodes(const char* fn, int g_a, const I* lo, const I* hi, bool blocks = false) {
  return with_array(g_a, fn, [&](auto& a) {
    const ga::patch p = to_patch(lo, hi, a.ndim());
    return static_cast<int>(blocks ? a.locate(p).size() : a.owners(p).size());
  });
}

int total_blocks(const char* fn, int g_a) {
  return with_array(g_a, fn, [&](auto& a) {
    if (a.layout().spec().type != ga::layout_spec::kind::block_cyclic) return -1;  // as GA
    int t = 1;
    for (int g : a.layout().grid())
      t *= g;
    return t;
  });
}

}  // namespace

extern "C" {

void NGA_Inquire(int g_a, int* type, int* ndim, int dims[]) {
  api("NGA_Inquire", [&] { inquire<int>("NGA_Inquire", g_a, type, ndim, dims); });
}
void NGA_Inquire64(int g_a, int* type, int* ndim, int64_t dims[]) {
  api("NGA_Inquire64", [&] { inquire<int64_t>("NGA_Inquire64", g_a, type, ndim, dims); });
}
char* GA_Inquire_name(int g_a) {
  return api("GA_Inquire_name", [&] {
    // The name lives as long as the array (GA returns a pointer into its own table too).
    return current("GA_Inquire_name").arrays.at(g_a, "GA_Inquire_name").name.data();
  });
}
char* NGA_Inquire_name(int g_a) {
  return GA_Inquire_name(g_a);
}
int GA_Ndim(int g_a) {
  return api("GA_Ndim",
             [&] { return with_array(g_a, "GA_Ndim", [](auto& a) { return a.ndim(); }); });
}
int NGA_Ndim(int g_a) {
  return GA_Ndim(g_a);
}
int GA_Get_dimension(int g_a) {
  return GA_Ndim(g_a);
}
int NGA_Get_dimension(int g_a) {
  return GA_Ndim(g_a);
}

int GA_Valid_handle(int g_a) {
  return api("GA_Valid_handle", [&] {
    array_slot* s = current("GA_Valid_handle").arrays.find(g_a);
    return s != nullptr && s->allocated() ? 1 : 0;
  });
}
int NGA_Valid_handle(int g_a) {
  return GA_Valid_handle(g_a);
}
int GA_Verify_handle(int g_a) {
  return GA_Valid_handle(g_a);
}
int NGA_Verify_handle(int g_a) {
  return GA_Valid_handle(g_a);
}
void GA_Check_handle(int g_a, const char* where) {
  api("GA_Check_handle", [&] {
    if (!GA_Valid_handle(g_a))
      throw error(std::string(where ? where : "") + ": invalid array handle " +
                  std::to_string(g_a));
  });
}

int GA_Compare_distr(int g_a, int g_b) {
  // GA returns 0 when the distributions are the same.
  return api("GA_Compare_distr", [&] {
    array_slot& sb = current("GA_Compare_distr").arrays.allocated(g_b, "GA_Compare_distr");
    return with_array(g_a, "GA_Compare_distr", [&](auto& a) {
      return visit_type(sb.type, "GA_Compare_distr", [&](auto tag) {
        using U = typename decltype(tag)::type;
        const auto& b = std::get<ga::global_array<U>>(sb.array);
        if (a.dims() != b.dims() || a.layout().grid() != b.layout().grid()) return 1;
        for (int d = 0; d < a.ndim(); ++d)
          if (a.layout().boundaries(d) != b.layout().boundaries(d)) return 1;
        if (a.layout().nprocs() != b.layout().nprocs()) return 1;
        for (int m = 0; m < a.layout().nprocs(); ++m) {  // process m of each array's group
          const auto ta = a.tiles(a.layout().rank_of(m)), tb = b.tiles(b.layout().rank_of(m));
          if (ta.size() != tb.size()) return 1;
          for (std::size_t i = 0; i < ta.size(); ++i)
            if (!(ta[i].box == tb[i].box)) return 1;
        }
        return 0;
      });
    });
  });
}
int NGA_Compare_distr(int g_a, int g_b) {
  return GA_Compare_distr(g_a, g_b);
}

int GA_Has_ghosts(int g_a) {
  return api("GA_Has_ghosts", [&] {
    return with_array(g_a, "GA_Has_ghosts",
                      [](auto& a) { return a.layout().has_ghosts() ? 1 : 0; });
  });
}
int NGA_Has_ghosts(int g_a) {
  return GA_Has_ghosts(g_a);
}

int GA_Total_blocks(int g_a) {
  return api("GA_Total_blocks", [&] { return total_blocks("GA_Total_blocks", g_a); });
}
int NGA_Total_blocks(int g_a) {
  return GA_Total_blocks(g_a);
}
void GA_Nblock(int g_a, int* nblock) {
  api("GA_Nblock", [&] {
    with_array(g_a, "GA_Nblock", [&](auto& a) {
      if (nblock == nullptr) throw error("GA_Nblock: null nblock");
      const auto& g = a.layout().grid();
      std::copy(g.begin(), g.end(), nblock);
    });
  });
}
void NGA_Nblock(int g_a, int* nblock) {
  GA_Nblock(g_a, nblock);
}
int GA_Uses_proc_grid(int g_a) {
  return api("GA_Uses_proc_grid", [&] {
    return with_array(g_a, "GA_Uses_proc_grid", [](auto& a) {
      return a.layout().spec().type == ga::layout_spec::kind::block_cyclic ? 1 : 0;
    });
  });
}
int NGA_Uses_proc_grid(int g_a) {
  return GA_Uses_proc_grid(g_a);
}
void GA_Get_proc_grid(int g_a, int dims[]) {
  api("GA_Get_proc_grid", [&] {
    with_array(g_a, "GA_Get_proc_grid", [&](auto& a) {
      if (dims == nullptr) throw error("GA_Get_proc_grid: null dims");
      const auto& g = a.layout().process_grid();
      std::copy(g.begin(), g.end(), dims);
    });
  });
}
void NGA_Get_proc_grid(int g_a, int dims[]) {
  GA_Get_proc_grid(g_a, dims);
}
void NGA_Get_proc_index(int g_a, int iproc, int subscript[]) {
  api("NGA_Get_proc_index", [&] {
    with_array(g_a, "NGA_Get_proc_index", [&](auto& a) {
      const auto& g = a.layout().process_grid();
      const int p = a.layout().nprocs();  // ids of the array's group
      if (iproc < 0 || iproc >= p)
        throw error("NGA_Get_proc_index: process " + std::to_string(iproc));
      int rest = iproc;  // row-major position on the process grid
      // A restricted array's block k is on ranks[k]; a rank without data has no position (-1).
      const auto& ranks = a.layout().spec().ranks;
      if (!ranks.empty()) {
        const auto it = std::find(ranks.begin(), ranks.end(), iproc);
        rest = it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
      }
      if (rest < 0) {
        std::fill(subscript, subscript + g.size(), -1);
        return;
      }
      for (std::size_t k = g.size(); k-- > 0;) {
        subscript[k] = rest % g[k];
        rest /= g[k];
      }
    });
  });
}
void GA_Get_proc_index(int g_a, int iproc, int subscript[]) {
  NGA_Get_proc_index(g_a, iproc, subscript);
}

void GA_Get_block_info(int g_a, int num_blocks[], int block_dims[]) {
  api("GA_Get_block_info", [&] {
    with_array(g_a, "GA_Get_block_info", [&](auto& a) {
      const ga::layout_spec& spec = a.layout().spec();
      if (spec.type != ga::layout_spec::kind::block_cyclic)
        throw error("GA_Get_block_info: array '" + a.name() + "' is not block-cyclic");
      const auto& g = a.layout().grid();
      for (std::size_t d = 0; d < g.size(); ++d) {
        num_blocks[d] = g[d];
        // Irregular tiles (GA_Set_tiled_irreg_proc_grid) give their first tile's extent.
        block_dims[d] = static_cast<int>(
            spec.tile.empty() ? a.layout().boundaries(static_cast<int>(d))[1] : spec.tile[d]);
      }
    });
  });
}
void NGA_Get_block_info(int g_a, int num_blocks[], int block_dims[]) {
  GA_Get_block_info(g_a, num_blocks, block_dims);
}
void NGA_Proc_topology(int g_a, int proc, int coord[]) {
  NGA_Get_proc_index(g_a, proc, coord);
}
int GA_Is_mirrored(int g_a) {
  // No array is mirrored (replicated per node) here.
  return api("GA_Is_mirrored", [&] {
    current("GA_Is_mirrored").arrays.allocated(g_a, "GA_Is_mirrored");
    return 0;
  });
}
int NGA_Is_mirrored(int g_a) {
  return GA_Is_mirrored(g_a);
}

void NGA_Distribution(int g_a, int iproc, int lo[], int hi[]) {
  api("NGA_Distribution", [&] { distribution<int>("NGA_Distribution", g_a, iproc, lo, hi); });
}
void NGA_Distribution64(int g_a, int iproc, int64_t lo[], int64_t hi[]) {
  api("NGA_Distribution64",
      [&] { distribution<int64_t>("NGA_Distribution64", g_a, iproc, lo, hi); });
}
int NGA_Locate(int g_a, int subscript[]) {
  return api("NGA_Locate", [&] { return locate<int>("NGA_Locate", g_a, subscript); });
}
int NGA_Locate64(int g_a, int64_t subscript[]) {
  return api("NGA_Locate64", [&] { return locate<int64_t>("NGA_Locate64", g_a, subscript); });
}
int NGA_Locate_region(int g_a, int lo[], int hi[], int map[], int procs[]) {
  return api("NGA_Locate_region",
             [&] { return locate_region<int>("NGA_Locate_region", g_a, lo, hi, map, procs); });
}
int NGA_Locate_region64(int g_a, int64_t lo[], int64_t hi[], int64_t map[], int procs[]) {
  return api("NGA_Locate_region64", [&] {
    return locate_region<int64_t>("NGA_Locate_region64", g_a, lo, hi, map, procs);
  });
}
int NGA_Locate_nnodes(int g_a, int lo[], int hi[]) {
  return api("NGA_Locate_nnodes",
             [&] { return locate_nnodes<int>("NGA_Locate_nnodes", g_a, lo, hi); });
}
int NGA_Locate_nnodes64(int g_a, int64_t lo[], int64_t hi[]) {
  return api("NGA_Locate_nnodes64",
             [&] { return locate_nnodes<int64_t>("NGA_Locate_nnodes64", g_a, lo, hi); });
}
int NGA_Locate_num_blocks(int g_a, int lo[], int hi[]) {
  return api("NGA_Locate_num_blocks",
             [&] { return locate_nnodes<int>("NGA_Locate_num_blocks", g_a, lo, hi, true); });
}

void GA_List_nodeid(int* list, int nprocs) {
  api("GA_List_nodeid", [&] {
    const int p = current("GA_List_nodeid").rt->size();
    if (nprocs != p)
      throw error("GA_List_nodeid: nprocs " + std::to_string(nprocs) + " (there are " +
                  std::to_string(p) + " processes)");
    for (int i = 0; i < p; ++i)
      list[i] = i;
  });
}
void NGA_List_nodeid(int* list, int nprocs) {
  GA_List_nodeid(list, nprocs);
}

}  // extern "C"
