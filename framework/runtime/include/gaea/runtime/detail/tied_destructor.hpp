#pragma once
/// \file
/// Internal (not API): the destructor of an object tied to one runtime (a counter, a mutex set),
/// which runs its collective clean-up while that runtime lives and touches nothing of it after.

#include <cstdint>
#include <string_view>
#include <utility>

#include "gaea/base/detail/destructor_call.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::detail {

/// While the runtime whose instance() is `instance` is live, runs `destroy` as
/// destructor_call(prefix, destroy) does. Once the object has outlived that runtime (whose
/// shut-down reported it), runs only `orphan`, which must touch nothing of the runtime or its
/// transport: drop a process-wide entry, or leak what died with the runtime.
template <class Destroy, class Orphan>
void tied_destructor_call(std::uint64_t instance, std::string_view prefix, Destroy&& destroy,
                          Orphan&& orphan) noexcept {
  if (!runtime::is_live(instance)) {
    std::forward<Orphan>(orphan)();
    return;
  }
  destructor_call(prefix, std::forward<Destroy>(destroy));
}

}  // namespace gaea::detail
