#pragma once
// How far each member's clock is from member 0's, for coll::measure's common start.

#include "gaea/coll/group.hpp"

namespace gaea::coll::detail {

struct clock_offset {
  double offset = 0;  ///< seconds to add to member 0's clock to read this member's
  double rtt = 0;     ///< the round trip it was measured with (0: not measured); error <= rtt/2
};

/// Collective over `g`. Members that run on member 0's kernel (the same boot moment on the wall
/// clock, within 50 µs: one clock, as the emulated hosts of scripts/cluster.sh) get offset 0
/// unless `always`; the others the offset of
/// the quickest of 16 round trips with member 0 (Cristian's method). Member 0 gets {0, 0}.
clock_offset offset_from_member0(const group& g, bool always);

}  // namespace gaea::coll::detail
