// Non-blocking ghost-cell transfers completed by NGA_NbWait: NGA_NbGet_ghost_dir (+64), a
// one-sided get of the neighbour's cells in one direction into this rank's ghost cells, and
// NGA_Update_ghosts_nb.

#include <string>

#include "detail/indices.hpp"
#include "detail/nb_handles.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

template <class I>
void get_ghost_dir(int g_a, const I* mask, ga_nbhdl_t* handle, const char* fn) {
  if (mask == nullptr || handle == nullptr) throw error("null mask or handle");
  ga::request r = with_array(g_a, fn, [&](auto& a) -> ga::request {
    using T = std::remove_reference_t<decltype(a.access()[0])>;
    const auto tiles = a.local_tiles();
    if (tiles.size() != 1) return {};  // owns nothing (block-cyclic arrays have no ghosts)
    const auto& t = tiles[0];
    const int n = a.ndim();
    ga::patch ghost = t.box, source = t.box;
    for (int d = 0; d < n; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const ga::index_t w = t.ghosts[i], dim = a.dims()[i];
      if (mask[d] < -1 || mask[d] > 1)
        throw error("mask[" + std::to_string(d) + "]=" + std::to_string(mask[d]) +
                    " (each entry is -1, 0 or 1)");
      if (mask[d] == 0) continue;
      if (w == 0) return {};  // no ghost cells that way
      ghost.lo[i] = mask[d] > 0 ? t.box.hi[i] + 1 : t.box.lo[i] - w;
      ghost.hi[i] = ghost.lo[i] + w - 1;
      // The cells come from the neighbour, across the edge of the array periodically (as
      // GA_Update_ghosts fills them).
      const ga::index_t shift = ghost.lo[i] >= dim ? -dim : (ghost.hi[i] < 0 ? dim : 0);
      source.lo[i] = ghost.lo[i] + shift;
      source.hi[i] = ghost.hi[i] + shift;
      if (source.lo[i] < 0 || source.hi[i] >= dim)
        throw error("ghost width " + std::to_string(w) + " of dimension " + std::to_string(d) +
                    " is wider than the neighbouring block");
    }
    T* dst = &t.at(ghost.lo);
    const auto all = a.access();
    ga::index ld;
    for (int d = 1; d < n; ++d)
      ld.push_back(t.box.extent(d) + 2 * t.ghosts[static_cast<std::size_t>(d)]);
    const auto room = static_cast<std::size_t>(all.data() + all.size() - dst);
    return a.get(source, std::span<T>(dst, room), ga::nonblocking, ld);
  });
  *handle = remember_request(std::move(r));
}

}  // namespace

extern "C" {

void NGA_NbGet_ghost_dir(int g_a, int mask[], ga_nbhdl_t* handle) {
  api("NGA_NbGet_ghost_dir", [&] { get_ghost_dir<int>(g_a, mask, handle, "NGA_NbGet_ghost_dir"); });
}
void NGA_NbGet_ghost_dir64(int g_a, int64_t mask[], ga_nbhdl_t* handle) {
  api("NGA_NbGet_ghost_dir64",
      [&] { get_ghost_dir<int64_t>(g_a, mask, handle, "NGA_NbGet_ghost_dir64"); });
}

void NGA_Update_ghosts_nb(int g_a, ga_nbhdl_t* nbhandle) {
  // Collective like GA_Update_ghosts; the update is complete on return, so the handle is one
  // that NGA_NbWait/NGA_NbTest find complete.
  api("NGA_Update_ghosts_nb", [&] {
    if (nbhandle == nullptr) throw error("null handle pointer");
    with_array(g_a, "NGA_Update_ghosts_nb",
               [](auto& a) { a.update_ghosts(ga::boundary::periodic); });
    *nbhandle = remember_request(ga::request{});
  });
}

}  // extern "C"
