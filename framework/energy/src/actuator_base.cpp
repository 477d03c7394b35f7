#include "detail/actuator_base.hpp"

namespace gaea::energy::detail {

std::vector<transition> actuator_base::transitions() const {
  std::lock_guard lock(mutex_);
  return log_.entries();
}

}  // namespace gaea::energy::detail
