// Printing (GA_Print, GA_Print_file, GA_Print_patch, NGA_Print_patch(64),
// GA_Print_distribution, GA_Summarize): collective; rank 0 reads and prints, between syncs so
// that every earlier update is in and the output of one call is complete before the next.
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"
#include "gaea/ga/patch_ops.hpp"
#include "gaea/runtime/runtime.hpp"

using namespace gaea::ga_compat::detail;
namespace ga = gaea::ga;
using gaea::error;

namespace {

template <class T>
std::string text(T v) {
  char buf[64];
  if constexpr (std::is_integral_v<T>)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else if constexpr (gaea::ga::detail::is_complex_v<T>)
    std::snprintf(buf, sizeof buf, "(%.6g,%.6g)", static_cast<double>(v.real()),
                  static_cast<double>(v.imag()));
  else
    std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  return buf;
}

// One line per run along the last dimension ("name[i, j, lo:hi] v v v", pretty) or one line per
// element ("name[i, j] = v").
template <class T>
void print(std::FILE* f, ga::global_array<T>& a, const ga::patch& p, bool pretty) {
  a.sync();
  if (a.group().rank() == 0) {  // process 0 of the array's group
    std::vector<T> v(static_cast<std::size_t>(p.elements()));
    a.get(p, v);
    std::fprintf(f, " global array: %s%s\n", a.name().c_str(), p.str().c_str());
    const int n = p.ndim();
    const ga::index_t len = p.extent(n - 1);
    ga::index e = p.lo;
    std::size_t k = 0;
    while (k < v.size()) {
      // Appends, not operator+ chains: GCC 12 -O3 reports a false -Wrestrict on those.
      std::string head = a.name();
      head += '[';
      for (int d = 0; d + 1 < n; ++d)
        head += std::to_string(e[static_cast<std::size_t>(d)]) + ", ";
      if (pretty) {
        std::string line = head;
        line += std::to_string(p.lo[static_cast<std::size_t>(n - 1)]);
        line += ':';
        line += std::to_string(p.hi[static_cast<std::size_t>(n - 1)]);
        line += ']';
        for (ga::index_t j = 0; j < len; ++j) {
          line += ' ';
          line += text(v[k++]);
        }
        std::fprintf(f, "%s\n", line.c_str());
      } else {
        for (ga::index_t j = 0; j < len; ++j)
          std::fprintf(f, "%s%lld] = %s\n", head.c_str(),
                       static_cast<long long>(p.lo[static_cast<std::size_t>(n - 1)] + j),
                       text(v[k++]).c_str());
      }
      for (int d = n - 2; d >= 0; --d) {  // next run
        const auto u = static_cast<std::size_t>(d);
        if (++e[u] <= p.hi[u]) break;
        e[u] = p.lo[u];
      }
    }
    std::fflush(f);
  }
  a.sync();
}

template <class I>
void print_patch(const char* fn, int g_a, I* lo, I* hi, int pretty) {
  api(fn, [&] {
    with_array(g_a, fn,
               [&](auto& a) { print(stdout, a, to_patch(lo, hi, a.ndim()), pretty != 0); });
  });
}

}  // namespace

extern "C" {

void GA_Print_file(FILE* file, int g_a) {
  api("GA_Print_file", [&] {
    if (!file) throw error("null FILE");
    with_array(g_a, "GA_Print_file", [&](auto& a) { print(file, a, ga::whole_patch(a), true); });
  });
}
void GA_Print(int g_a) {
  api("GA_Print", [&] {
    with_array(g_a, "GA_Print", [&](auto& a) { print(stdout, a, ga::whole_patch(a), true); });
  });
}
void GA_Print_patch(int g_a, int ilo, int ihi, int jlo, int jhi, int pretty) {
  int lo[2] = {ilo, jlo}, hi[2] = {ihi, jhi};
  print_patch("GA_Print_patch", g_a, lo, hi, pretty);
}
void NGA_Print_patch(int g_a, int lo[], int hi[], int pretty) {
  print_patch("NGA_Print_patch", g_a, lo, hi, pretty);
}
void NGA_Print_patch64(int g_a, int64_t lo[], int64_t hi[], int pretty) {
  print_patch("NGA_Print_patch64", g_a, lo, hi, pretty);
}

// Rank 0 lists every rank's tiles (block-cyclic arrays: many per rank).
void GA_Print_distribution(int g_a) {
  api("GA_Print_distribution", [&] {
    with_array(g_a, "GA_Print_distribution", [&](auto& a) {
      a.sync();
      // Process 0 of the array's group prints; ranks are the group's (as GA numbers them).
      if (a.group().rank() == 0) {
        std::printf(" distribution of global array: %s %s\n", a.name().c_str(),
                    gaea::format_index(a.dims()).c_str());
        for (int r = 0; r < a.layout().nprocs(); ++r) {
          std::string line = "  rank ";
          line += std::to_string(r);
          line += ':';
          const auto tiles = a.tiles(a.layout().rank_of(r));
          if (tiles.empty()) line += " (nothing)";
          for (const ga::tile& t : tiles) {
            line += ' ';
            line += t.box.str();
          }
          std::printf("%s\n", line.c_str());
        }
        std::fflush(stdout);
      }
      a.sync();
    });
  });
}

// Rank 0 lists the live arrays: handle, name, type, shape (verbose: and their bytes per rank).
void GA_Summarize(int verbose) {
  api("GA_Summarize", [&] {
    state& st = current("GA_Summarize");
    st.rt->barrier();
    if (st.rt->rank() == 0) {
      const auto live = st.arrays.live();
      std::printf(" summary of %zu global arrays:\n", live.size());
      for (array_slot* s : live) {
        std::string dims;
        std::visit(
            [&](auto& a) {
              if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(a)>, std::monostate>)
                dims = gaea::format_index(a.dims());
            },
            s->array);
        std::printf("  handle %d: '%s' %s %s", s->handle, s->name.c_str(),
                    type_name(s->type).c_str(), dims.c_str());
        if (verbose && !s->bytes_per_rank.empty())
          std::printf(", %zu bytes on rank 0", s->bytes_per_rank[0]);
        std::printf("\n");
      }
      std::fflush(stdout);
    }
    st.rt->barrier();
  });
}

}  // extern "C"
