#include "gaea/coll/options.hpp"

#include <array>
#include <utility>

#include "detail/settings.hpp"

namespace gaea::coll {

namespace {
constexpr std::array<std::pair<algorithm, std::string_view>, 11> algorithm_names{{
    {algorithm::automatic, "auto"},
    {algorithm::dissemination, "dissemination"},
    {algorithm::binomial, "binomial"},
    {algorithm::scatter_allgather, "scatter_allgather"},
    {algorithm::chain, "chain"},
    {algorithm::recursive_doubling, "recursive_doubling"},
    {algorithm::ring, "ring"},
    {algorithm::hierarchical, "hierarchical"},
    {algorithm::bruck, "bruck"},
    {algorithm::pairwise, "pairwise"},
    {algorithm::send_recv, "send_recv"},
}};
constexpr std::array<std::string_view, 6> operation_names{"barrier",   "broadcast", "reduce",
                                                          "allreduce", "allgather", "alltoall"};
static_assert(operation_names.size() == static_cast<std::size_t>(operation::alltoall) + 1);
}  // namespace

std::string_view to_string(algorithm a) noexcept {
  for (const auto& [v, n] : algorithm_names)
    if (v == a) return n;
  return "?";
}

std::optional<algorithm> parse_algorithm(std::string_view s) noexcept {
  for (const auto& [v, n] : algorithm_names)
    if (n == s) return v;
  return std::nullopt;
}

std::string_view to_string(operation o) noexcept {
  const auto i = static_cast<std::size_t>(o);
  return i < operation_names.size() ? operation_names[i] : "?";
}

std::optional<operation> parse_operation(std::string_view s) noexcept {
  for (std::size_t i = 0; i < operation_names.size(); ++i)
    if (operation_names[i] == s) return static_cast<operation>(i);
  return std::nullopt;
}

std::string_view to_string(energy_mode m) noexcept {
  switch (m) {
    case energy_mode::automatic:
      return "auto";
    case energy_mode::on:
      return "on";
    case energy_mode::off:
      return "off";
  }
  return "?";
}

bool implements(algorithm a, operation op) noexcept {
  using enum algorithm;
  switch (a) {
    case automatic:
      return true;
    case dissemination:
      return op == operation::barrier;
    case binomial:
      return op == operation::broadcast || op == operation::reduce;
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
