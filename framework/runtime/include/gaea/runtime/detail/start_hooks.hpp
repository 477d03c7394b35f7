#pragma once
/// \file
/// Set-up that Gaea's modules run in every runtime once it is up (internal to the modules; not
/// for applications), so that no program has to call a module's collective set-up by hand.

namespace gaea {
class runtime;
}

namespace gaea::detail {

/// Registers `hook`: every gaea::runtime runs it at the end of its construction, on every rank
/// and on the owner thread, in registration order; it may communicate (collective). A hook that
/// throws ends the job with its message (runtime::fail). Call it from a module's static
/// initializer (start_hook_registration); not thread-safe.
void add_start_hook(void (*hook)(runtime&));

/// Registers a start hook at static initialization:
///   const gaea::detail::start_hook_registration world_at_start{&make_world};
struct start_hook_registration {
  /// Calls add_start_hook(hook).
  explicit start_hook_registration(void (*hook)(runtime&)) { add_start_hook(hook); }
};

}  // namespace gaea::detail
