// Packed (copy-based) protocol for strided get/put: one active message per owner piece,
// unpacked or packed by the owner's progress thread.
#include "detail/registry.hpp"

namespace gaea::ga::detail {

void install_packed_handlers(runtime&) {}

}  // namespace gaea::ga::detail
