// The collective call options: which algorithms implement an operation (the registry's
// entries), and scoped_energy.

#include "gaea/coll/options.hpp"

#include <array>
#include <utility>

#include "detail/registry.hpp"
#include "detail/settings.hpp"

namespace gaea::coll {

bool implements(algorithm a, operation op) noexcept {
  return a == algorithm::automatic || detail::find_entry(op, a) != nullptr;
}

namespace {
thread_local std::optional<energy_mode> t_scoped;
}

scoped_energy::scoped_energy(energy_mode m) noexcept
    : previous_(t_scoped.value_or(energy_mode::automatic)) {
  had_previous_ = t_scoped.has_value();
  t_scoped = m;
}

scoped_energy::~scoped_energy() {
  if (had_previous_)
    t_scoped = previous_;
  else
    t_scoped.reset();
}

namespace detail {
std::optional<energy_mode> scoped_energy_mode() noexcept {
  return t_scoped;
}
}  // namespace detail

}  // namespace gaea::coll
