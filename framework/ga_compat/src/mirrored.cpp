// Mirrored arrays (GA: one copy per SMP node, merged by summing the copies). On Gaea the mirror
// group is the world group and an array created on it is one ordinary distributed array, which
// every node reads and writes directly: it already holds what GA's merge computes when nodes
// accumulate into their copies, so GA_Merge_mirrored only synchronises and
// NGA_Merge_distr_patch copies (what GA 5.8 does for a non-mirrored array on one node).

#include "detail/indices.hpp"
#include "detail/state.hpp"
#include "ga.h"

using namespace gaea::ga_compat::detail;

extern "C" {

int GA_Pgroup_get_mirror(void) {
  return api("GA_Pgroup_get_mirror", [] {
    current("GA_Pgroup_get_mirror");
    return world_pgroup;
  });
}
int NGA_Pgroup_get_mirror(void) {
  return GA_Pgroup_get_mirror();
}

void GA_Merge_mirrored(int g_a) {
  api("GA_Merge_mirrored", [&] {
    current("GA_Merge_mirrored").arrays.allocated(g_a, "GA_Merge_mirrored");
    GA_Sync();
  });
}
void NGA_Merge_mirrored(int g_a) {
  GA_Merge_mirrored(g_a);
}

void NGA_Merge_distr_patch(int g_a, int alo[], int ahi[], int g_b, int blo[], int bhi[]) {
  api("NGA_Merge_distr_patch", [&] { NGA_Copy_patch('N', g_a, alo, ahi, g_b, blo, bhi); });
}
void NGA_Merge_distr_patch64(int g_a, int64_t alo[], int64_t ahi[], int g_b, int64_t blo[],
                             int64_t bhi[]) {
  api("NGA_Merge_distr_patch64", [&] { NGA_Copy_patch64('N', g_a, alo, ahi, g_b, blo, bhi); });
}

}  // extern "C"
