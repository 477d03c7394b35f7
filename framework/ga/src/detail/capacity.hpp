#pragma once
// Memory checks before a collective allocation, so that a too-large array fails with a clear
// error on every rank instead of a SIGBUS when shared-memory pages are first touched.

#include <cstddef>
#include <string>

namespace gaea {
class runtime;
}

namespace gaea::ga::detail {

/// Collective. Checks that every node has room for its ranks' parts (`bytes` on this rank)
/// in shared memory (/dev/shm), in available RAM, and under the locked-memory
/// limit when that limit is finite and the transport registers memory. Throws gaea::error on
/// every rank if any rank's node lacks room; `what` names the object.
void check_capacity(runtime& rt, std::size_t bytes, const std::string& what);

}  // namespace gaea::ga::detail
