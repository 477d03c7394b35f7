#pragma once
// The runtime's side of gaea/runtime/detail/start_hooks.hpp.

namespace gaea {
class runtime;
}

namespace gaea::detail {

// Runs every registered start hook on `rt` in registration order; a hook that throws ends the
// job through rt.fail() with its message.
void run_start_hooks(runtime& rt);

}  // namespace gaea::detail
