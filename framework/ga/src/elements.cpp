// scatter / gather / scatter-acc of element lists and read_inc.
#include "detail/registry.hpp"

namespace gaea::ga::detail {

void install_element_handlers(runtime&) {}

}  // namespace gaea::ga::detail
