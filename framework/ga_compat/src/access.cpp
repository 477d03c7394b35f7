// Zero-copy access to local data (NGA_Access*, NGA_Release*), ghost cells, and the
// synchronisation calls (GA_Fence, GA_Init_fence, GA_Sync).

#include <string>

#include "detail/blocks.hpp"
#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/coll/collectives.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

// Writes `p` into the caller's `T*` variable that `ptr` points to.
template <class T>
void store_pointer(void* ptr, T* p, const char* fn) {
  if (ptr == nullptr) throw error(std::string(fn) + ": null pointer argument");
  *static_cast<T**>(ptr) = p;
}

// GA's ld of a tile's storage: ld[d] = extent of storage dimension d+1 (ghosts included).
template <class I, class T>
void store_ld(const ga::tile_view<T>& t, I* ld) {
  if (ld == nullptr) return;
  for (std::size_t d = 0; d + 1 < t.strides.size(); ++d)
    ld[d] = static_cast<I>(t.strides[d] / t.strides[d + 1]);
}

// The local tile holding all of `p`; gaea::error when this rank does not own it whole.
template <class T>
ga::tile_view<T> tile_holding(const ga::global_array<T>& a, const ga::patch& p, const char* fn) {
  a.layout().validate(p, fn);
  for (const auto& t : a.local_tiles())
    if (t.box.intersect(p) == p) return t;
  throw error(std::string(fn) + ": patch " + p.str() + " of array '" + a.name() +
              "' is not inside one block this rank owns");
}

template <class I>
void access(const char* fn, int g_a, const I* lo, const I* hi, void* ptr, I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    const ga::patch p = to_patch(lo, hi, a.ndim());
    const auto t = tile_holding(a, p, fn);
    store_pointer(ptr, &t.at(p.lo), fn);
    store_ld(t, ld);
  });
}

template <class A, class I>
void store_block(const A& a, const ga::patch& box, void* ptr, I* ld, const char* fn) {
  const auto t = tile_holding(a, box, fn);
  store_pointer(ptr, t.origin, fn);
  store_ld(t, ld);
}

// Block `idx` of the tile grid, numbered in C order over the grid (block-cyclic arrays).
template <class I>
void access_block(const char* fn, int g_a, I idx, void* ptr, I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    const auto& grid = a.layout().grid();
    const ga::index_t total = block_count(grid);
    if (idx < 0 || static_cast<ga::index_t>(idx) >= total)
      throw error(std::string(fn) + ": block " + std::to_string(idx) + " of array '" + a.name() +
                  "' (it has " + std::to_string(total) + " blocks)");
    store_block(a, block_box(a.layout(), block_coords(grid, idx), fn), ptr, ld, fn);
  });
}

// The block at tile-grid coordinates `index` (NGA_Access_block_grid).
template <class I>
void access_block_grid(const char* fn, int g_a, const I* index, void* ptr, I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    store_block(a, block_box(a.layout(), to_index(index, a.ndim(), "index"), fn), ptr, ld, fn);
  });
}

template <class I>
void access_segment(const char* fn, int g_a, int proc, void* ptr, I* len) {
  with_array(g_a, fn, [&](auto& a) {
    const int me = a.layout().member_of(gaea::runtime::current().rank());  // in the array's group
    if (proc != me)
      throw error(std::string(fn) + ": rank " + std::to_string(me) +
                  " may only access its own segment, not rank " + std::to_string(proc) + "'s");
    const auto s = a.access();
    store_pointer(ptr, s.data(), fn);
    if (len == nullptr) throw error(std::string(fn) + ": null len");
    *len = static_cast<I>(s.size());
  });
}

// The single tile of a block or irregular array (ghost access needs one).
template <class T>
ga::tile_view<T> only_tile(const ga::global_array<T>& a, const char* fn) {
  const auto tiles = a.local_tiles();
  if (tiles.size() != 1)
    throw error(std::string(fn) + ": rank owns " + std::to_string(tiles.size()) +
                " blocks of array '" + a.name() + "' (ghost access needs exactly one)");
  return tiles.front();
}

template <class I>
void access_ghosts(const char* fn, int g_a, I* dims, void* ptr, I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    const auto t = only_tile(a, fn);
    ga::index corner = t.box.lo;
    for (std::size_t d = 0; d < corner.size(); ++d) {
      corner[d] -= t.ghosts[d];
      if (dims) dims[d] = static_cast<I>(t.box.extent(static_cast<int>(d)) + 2 * t.ghosts[d]);
    }
    store_pointer(ptr, &t.at(corner), fn);
    store_ld(t, ld);
  });
}

// subscript: relative to the first ghost cell of the local block (the element
// NGA_Access_ghosts points at is all zeros).
template <class I>
void access_ghost_element(const char* fn, int g_a, void* ptr, const I* subscript, I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    const auto t = only_tile(a, fn);
    const ga::index s = to_index(subscript, a.ndim(), "subscript");
    ga::index e = t.box.lo;
    for (std::size_t d = 0; d < e.size(); ++d) {
      const ga::index_t full = t.box.extent(static_cast<int>(d)) + 2 * t.ghosts[d];
      if (s[d] < 0 || s[d] >= full)
        throw error(std::string(fn) + ": subscript[" + std::to_string(d) +
                    "]=" + std::to_string(s[d]) + " outside the local block with ghosts (0.." +
                    std::to_string(full - 1) + ")");
      e[d] += s[d] - t.ghosts[d];
    }
    store_pointer(ptr, &t.at(e), fn);
    store_ld(t, ld);
  });
}

// NGA_Get_ghost_block: like NGA_Get, but reads the rank's own ghost cells where the patch
// lies inside its block plus ghosts; elsewhere an ordinary get.
template <class I>
void get_ghost_block(const char* fn, int g_a, const I* lo, const I* hi, void* buf, const I* ld) {
  with_array(g_a, fn, [&](auto& a) {
    using T = element_of<decltype(a)>;
    const ga::patch p = to_patch(lo, hi, a.ndim());
    const ga::index bld = to_ld(ld, p);
    const auto tiles = a.local_tiles();
    bool inside = tiles.size() == 1;
    if (inside)
      for (std::size_t d = 0; d < p.lo.size(); ++d)
        inside = inside && p.lo[d] >= tiles[0].box.lo[d] - tiles[0].ghosts[d] &&
                 p.hi[d] <= tiles[0].box.hi[d] + tiles[0].ghosts[d];
    if (!inside) {
      a.get(p, buffer<T>(buf, buffer_elements(p, bld), fn), bld);
      return;
    }
    T* out = buffer<T>(buf, buffer_elements(p, bld), fn).data();
    const auto& t = tiles[0];
    ga::index e = p.lo;
    const std::size_t n = e.size();
    while (true) {
      std::size_t off = 0, stride = 1;
      for (std::size_t k = n; k-- > 0;) {
        off += static_cast<std::size_t>(e[k] - p.lo[k]) * stride;
        if (k > 0) stride *= static_cast<std::size_t>(bld[k - 1]);
      }
      out[off] = t.at(e);
      std::size_t k = n;
      while (k-- > 0) {
        if (++e[k] <= p.hi[k]) break;
        e[k] = p.lo[k];
      }
      if (k == static_cast<std::size_t>(-1)) break;
    }
  });
}

// Release calls: access is zero-copy (the pointer is the array's own memory), so there is
// nothing to copy back; the handle is still checked.
void release(const char* fn, int g_a) {
  with_array(g_a, fn, [](auto&) {});
}

void fence_all(const char* fn) {
  for (array_slot* s : current(fn).arrays.live())
    with_slot_array(*s, fn, [](auto& a) { a.fence(); });
}

}  // namespace

extern "C" {

void NGA_Access(int g_a, int lo[], int hi[], void* ptr, int ld[]) {
  api("NGA_Access", [&] { access<int>("NGA_Access", g_a, lo, hi, ptr, ld); });
}
void NGA_Access64(int g_a, int64_t lo[], int64_t hi[], void* ptr, int64_t ld[]) {
  api("NGA_Access64", [&] { access<int64_t>("NGA_Access64", g_a, lo, hi, ptr, ld); });
}
void NGA_Access_block(int g_a, int idx, void* ptr, int ld[]) {
  api("NGA_Access_block", [&] { access_block<int>("NGA_Access_block", g_a, idx, ptr, ld); });
}
void NGA_Access_block64(int g_a, int64_t idx, void* ptr, int64_t ld[]) {
  api("NGA_Access_block64",
      [&] { access_block<int64_t>("NGA_Access_block64", g_a, idx, ptr, ld); });
}
void NGA_Access_block_grid(int g_a, int index[], void* ptr, int ld[]) {
  api("NGA_Access_block_grid",
      [&] { access_block_grid<int>("NGA_Access_block_grid", g_a, index, ptr, ld); });
}
void NGA_Access_block_grid64(int g_a, int64_t index[], void* ptr, int64_t ld[]) {
  api("NGA_Access_block_grid64",
      [&] { access_block_grid<int64_t>("NGA_Access_block_grid64", g_a, index, ptr, ld); });
}
void NGA_Release_block_grid(int g_a, int*) {
  api("NGA_Release_block_grid", [&] { release("NGA_Release_block_grid", g_a); });
}
void NGA_Release_update_block_grid(int g_a, int*) {
  api("NGA_Release_update_block_grid", [&] { release("NGA_Release_update_block_grid", g_a); });
}
void NGA_Access_block_segment(int g_a, int proc, void* ptr, int* len) {
  api("NGA_Access_block_segment",
      [&] { access_segment<int>("NGA_Access_block_segment", g_a, proc, ptr, len); });
}
void NGA_Access_block_segment64(int g_a, int proc, void* ptr, int64_t* len) {
  api("NGA_Access_block_segment64",
      [&] { access_segment<int64_t>("NGA_Access_block_segment64", g_a, proc, ptr, len); });
}
void NGA_Access_ghosts(int g_a, int dims[], void* ptr, int ld[]) {
  api("NGA_Access_ghosts", [&] { access_ghosts<int>("NGA_Access_ghosts", g_a, dims, ptr, ld); });
}
void NGA_Access_ghosts64(int g_a, int64_t dims[], void* ptr, int64_t ld[]) {
  api("NGA_Access_ghosts64",
      [&] { access_ghosts<int64_t>("NGA_Access_ghosts64", g_a, dims, ptr, ld); });
}
void NGA_Access_ghost_element(int g_a, void* ptr, int subscript[], int ld[]) {
  api("NGA_Access_ghost_element",
      [&] { access_ghost_element<int>("NGA_Access_ghost_element", g_a, ptr, subscript, ld); });
}
void NGA_Access_ghost_element64(int g_a, void* ptr, int64_t subscript[], int64_t ld[]) {
  api("NGA_Access_ghost_element64", [&] {
    access_ghost_element<int64_t>("NGA_Access_ghost_element64", g_a, ptr, subscript, ld);
  });
}
void NGA_Get_ghost_block(int g_a, int lo[], int hi[], void* buf, int ld[]) {
  api("NGA_Get_ghost_block",
      [&] { get_ghost_block<int>("NGA_Get_ghost_block", g_a, lo, hi, buf, ld); });
}
void NGA_Get_ghost_block64(int g_a, int64_t lo[], int64_t hi[], void* buf, int64_t ld[]) {
  api("NGA_Get_ghost_block64",
      [&] { get_ghost_block<int64_t>("NGA_Get_ghost_block64", g_a, lo, hi, buf, ld); });
}

void NGA_Release(int g_a, int*, int*) {
  api("NGA_Release", [&] { release("NGA_Release", g_a); });
}
void NGA_Release64(int g_a, int64_t*, int64_t*) {
  api("NGA_Release64", [&] { release("NGA_Release64", g_a); });
}
void NGA_Release_update(int g_a, int*, int*) {
  api("NGA_Release_update", [&] { release("NGA_Release_update", g_a); });
}
void NGA_Release_update64(int g_a, int64_t*, int64_t*) {
  api("NGA_Release_update64", [&] { release("NGA_Release_update64", g_a); });
}
void NGA_Release_block(int g_a, int) {
  api("NGA_Release_block", [&] { release("NGA_Release_block", g_a); });
}
void NGA_Release_update_block(int g_a, int) {
  api("NGA_Release_update_block", [&] { release("NGA_Release_update_block", g_a); });
}
void NGA_Release_block_segment(int g_a, int) {
  api("NGA_Release_block_segment", [&] { release("NGA_Release_block_segment", g_a); });
}
void NGA_Release_update_block_segment(int g_a, int) {
  api("NGA_Release_update_block_segment",
      [&] { release("NGA_Release_update_block_segment", g_a); });
}
void NGA_Release_ghosts(int g_a) {
  api("NGA_Release_ghosts", [&] { release("NGA_Release_ghosts", g_a); });
}
void NGA_Release_update_ghosts(int g_a) {
  api("NGA_Release_update_ghosts", [&] { release("NGA_Release_update_ghosts", g_a); });
}
void NGA_Release_ghost_element(int g_a, int*) {
  api("NGA_Release_ghost_element", [&] { release("NGA_Release_ghost_element", g_a); });
}
void NGA_Release_ghost_element64(int g_a, int64_t*) {
  api("NGA_Release_ghost_element64", [&] { release("NGA_Release_ghost_element64", g_a); });
}
void NGA_Release_update_ghost_element(int g_a, int*) {
  api("NGA_Release_update_ghost_element",
      [&] { release("NGA_Release_update_ghost_element", g_a); });
}
void NGA_Release_update_ghost_element64(int g_a, int64_t*) {
  api("NGA_Release_update_ghost_element64",
      [&] { release("NGA_Release_update_ghost_element64", g_a); });
}

void GA_Update_ghosts(int g_a) {
  // GA's ghost update assumes periodic boundaries.
  api("GA_Update_ghosts", [&] {
    with_array(g_a, "GA_Update_ghosts", [](auto& a) { a.update_ghosts(ga::boundary::periodic); });
  });
}
void NGA_Update_ghosts(int g_a) {
  GA_Update_ghosts(g_a);
}
int NGA_Update_ghost_dir(int g_a, int dimension, int idir, int cflag) {
  // GA updates one side of one dimension; this updates every ghost cell (a superset: the cells
  // asked for are right, the others are refreshed too). Arguments are still checked.
  return api("NGA_Update_ghost_dir", [&] {
    return with_array(g_a, "NGA_Update_ghost_dir", [&](auto& a) {
      (void)cflag;
      if (dimension < 0 || dimension >= a.ndim() || (idir != 1 && idir != -1))
        throw error("NGA_Update_ghost_dir: dimension " + std::to_string(dimension) +
                    " and direction " + std::to_string(idir) + " (dimension 0.." +
                    std::to_string(a.ndim() - 1) + ", direction 1 or -1)");
      a.update_ghosts(ga::boundary::periodic);
      return 1;
    });
  });
}

// Gaea's fences track every put and accumulate per array and target, so GA_Init_fence has
// nothing to start: GA_Fence completes this thread's outstanding puts/accs to every array.
void GA_Init_fence(void) {
  api("GA_Init_fence", [] { current("GA_Init_fence"); });
}
void GA_Fence(void) {
  api("GA_Fence", [] { fence_all("GA_Fence"); });
}
void GA_Sync(void) {
  api("GA_Sync", [] {
    fence_all("GA_Sync");
    // As GA: a barrier of the default group (the world unless GA_Pgroup_set_default).
    state& st = current("GA_Sync");
    if (st.default_pgroup == world_pgroup)
      st.rt->barrier();
    else
      gaea::coll::barrier(group_of(st.default_pgroup, "GA_Sync"));
  });
}
void NGA_Init_fence(void) {
  GA_Init_fence();
}
void NGA_Fence(void) {
  GA_Fence();
}
void NGA_Sync(void) {
  GA_Sync();
}

}  // extern "C"
