#pragma once
// Shared tail of every start_*: resolve the energy mode, prepend the argument check, wrap the
// schedule in an execution.

#include <memory>

#include "detail/execution.hpp"
#include "detail/settings.hpp"
#include "gaea/coll/options.hpp"
#include "gaea/coll/request.hpp"

namespace gaea::coll::detail {

/// The settings of the live runtime's collectives.
const settings& current_settings();

/// Builds the execution of `s` (with the GAEA_COLL_CHECK phase first when on).
/// `bytes` as shape_schedule takes it (for the energy strategy's view of the node-mates).
std::unique_ptr<execution> make_execution(const std::shared_ptr<group_state>& g, call_signature sig,
                                          schedule s, std::size_t bytes, const options& o);

/// Null when the strategy is off for this call (mode, actuators, a one-member group).
/// `prefix`: rounds placed before the algorithm's (the argument check), run at T0.
std::unique_ptr<energy_session> make_energy_session(const std::shared_ptr<group_state>& g,
                                                    const call_signature& sig, std::size_t bytes,
                                                    std::size_t prefix, energy_mode m);

}  // namespace gaea::coll::detail
