// The collective call options: which algorithms implement an operation, and scoped_energy.

#include "gaea/coll/options.hpp"

#include <array>
#include <utility>

#include "detail/settings.hpp"

namespace gaea::coll {

bool implements(algorithm a, operation op) noexcept {
  using enum algorithm;
  switch (a) {
    case automatic:
    case shared_memory:
      return true;
    case dissemination:
      return op == operation::barrier;
    case binomial:
      return op == operation::broadcast || op == operation::reduce || op == operation::gather ||
             op == operation::scatter;
    case linear:
      return op == operation::gather || op == operation::scatter;
    case scatter_allgather:
    case chain:
      return op == operation::broadcast;
    case recursive_doubling:
      return op == operation::allreduce;
    case ring:
      return op == operation::allgather || op == operation::allreduce;
    case hierarchical:
      return op == operation::barrier || op == operation::broadcast || op == operation::reduce ||
             op == operation::allreduce;
    case bruck:
    case pairwise:
    case send_recv:
      return op == operation::alltoall;
  }
  return false;
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
