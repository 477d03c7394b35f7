#include "detail/start.hpp"

namespace gaea::coll::detail {

std::unique_ptr<energy_session> make_energy_session(const std::shared_ptr<group_state>&,
                                                    const schedule&, const call_signature&,
                                                    energy_mode) {
  return nullptr;
}

}  // namespace gaea::coll::detail
