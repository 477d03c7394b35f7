#pragma once
// Memory checks before a collective allocation, so that a too-large array fails with a clear
// error on every rank instead of a SIGBUS when shared-memory pages are first touched.

#include <cstddef>
#include <string>

namespace gaea {
class runtime;
namespace coll {
class group;
}
}  // namespace gaea

namespace gaea::ga::detail {

/// Collective over `g`. Checks that every node has room for its members' parts (`bytes` here)
/// in shared memory (/dev/shm), in available RAM, and under the locked-memory
/// limit when that limit is finite and the transport registers memory. Throws gaea::error on
/// every rank if any rank's node lacks room; `what` names the object.
void check_capacity(runtime& rt, const coll::group& g, std::size_t bytes, const std::string& what);

}  // namespace gaea::ga::detail
