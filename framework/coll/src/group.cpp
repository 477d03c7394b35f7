// gaea::coll::group: world(), split and subset, and the collectives' service per runtime.

#include "gaea/coll/group.hpp"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <unordered_set>

#include "detail/group_state.hpp"
#include "detail/service.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/runtime/detail/start_hooks.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace detail {

namespace {

struct world_holder {
  std::mutex mutex;
  std::uint64_t instance = 0;
  std::unique_ptr<service> svc;
  std::unique_ptr<group> world;
};

world_holder& holder() {
  static world_holder h;
  return h;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  // splitmix64 over the three: ids of derived groups, equal on every member by construction.
  auto f = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  return f(f(f(a) ^ b) ^ c) | 2;  // never 0 (no group) or 1 (world)
}

}  // namespace

std::shared_ptr<group_state> make_group_state(service& svc, std::uint64_t id, std::string name,
                                              std::vector<int> ranks) {
  auto g = std::make_shared<group_state>();
  g->svc = &svc;
  g->rt = &svc.rt();
  g->id = id;
  g->name = std::move(name);
  g->ranks = std::move(ranks);
  const comm::context& ctx = g->rt->comm();
  std::vector<int> node_keys;  // comm's node names (lowest rank on the node)
  g->node.resize(g->ranks.size());
  for (std::size_t i = 0; i < g->ranks.size(); ++i) {
    if (g->ranks[i] == g->rt->rank()) g->me = static_cast<int>(i);
    const int key = ctx.node_of(g->ranks[i]);
    auto it = std::find(node_keys.begin(), node_keys.end(), key);
    if (it == node_keys.end()) {
      node_keys.push_back(key);
      g->node_members.emplace_back();
      it = node_keys.end() - 1;
    }
    const auto n = static_cast<std::size_t>(it - node_keys.begin());
    g->node[i] = static_cast<int>(n);
    g->node_members[n].push_back(static_cast<int>(i));
  }
  for (const auto& m : g->node_members)
    if (m.back() - m.front() + 1 != static_cast<int>(m.size())) g->block = false;
  svc.add_group(g);
  return g;
}

service& service_of(runtime& rt) {
  world_holder& h = holder();
  std::lock_guard lock(h.mutex);
  if (!h.svc || h.instance != rt.instance())
    throw error("gaea::coll: no world group in this runtime (it is made when the runtime starts)");
  return *h.svc;
}

namespace {
// Every runtime makes the world group as it starts, on every rank: no program calls world()
// by hand before its first collective.
void make_world(runtime&) {
  (void)world();
}
const gaea::detail::start_hook_registration world_at_start{&make_world};
}  // namespace

}  // namespace detail

const group& world() {
  runtime& rt = runtime::current();
  detail::world_holder& h = detail::holder();
  std::unique_lock lock(h.mutex);
  if (h.svc && h.instance == rt.instance()) return *h.world;
  rt.require_owner_thread("the first coll::world() of a runtime");
  h.world.reset();
  h.svc = std::make_unique<detail::service>(rt);
  h.instance = rt.instance();
  std::vector<int> ranks(static_cast<std::size_t>(rt.size()));
  std::iota(ranks.begin(), ranks.end(), 0);
  h.world = std::make_unique<group>(
      detail::group_access::make(detail::make_group_state(*h.svc, 1, "world", std::move(ranks))));
  detail::service& svc = *h.svc;
  const group& w = *h.world;
  lock.unlock();
  // Every rank has its handler before any rank sends a collective message.
  rt.barrier();
  agree(w, svc.setup_problem());
  return w;
}

int group::rank() const noexcept {
  return st_ ? st_->me : -1;
}
int group::size() const noexcept {
  return st_ ? st_->size() : 0;
}

int group::world_rank(int i) const {
  if (!st_ || i < 0 || i >= st_->size())
    throw error("gaea::coll: member " + std::to_string(i) + " out of range [0, " +
                std::to_string(size()) + ") of group '" + name() + "'");
  return st_->ranks[static_cast<std::size_t>(i)];
}

int group::node_of(int i) const {
  world_rank(i);
  return st_->node[static_cast<std::size_t>(i)];
}

int group::nodes() const noexcept {
  return st_ ? st_->nodes() : 0;
}

int group::node_size() const noexcept {
  return st_ && st_->me >= 0 ? static_cast<int>(st_->node_of_member(st_->me).size()) : 0;
}

const std::string& group::name() const noexcept {
  static const std::string empty = "(empty)";
  return st_ ? st_->name : empty;
}

bool group::block_placement() const noexcept {
  return !st_ || st_->block;
}

namespace {
group empty_group(detail::group_state& parent, std::uint64_t id, std::string name) {
  auto g = std::make_shared<detail::group_state>();
  g->svc = parent.svc;
  g->rt = parent.rt;
  g->id = id;
  g->name = std::move(name);
  return detail::group_access::make(std::move(g));
}
}  // namespace

group group::split(int color, int key, std::string name) const {
  if (!st_ || st_->me < 0)
    throw error("gaea::coll: group::split on group '" + this->name() +
                "' by a rank that is not a member");
  struct entry {
    std::int32_t color, key;
  };
  const std::vector<entry> all = allgather(*this, entry{color, key});
  const std::uint64_t child = st_->children++;
  if (name.empty())
    name = st_->name + "/split" + std::to_string(child) + ":" + std::to_string(color);
  const std::uint64_t id = detail::mix(st_->id, child, static_cast<std::uint32_t>(color));
  if (color < 0) return empty_group(*st_, id, std::move(name));
  std::vector<int> members;
  for (int i = 0; i < size(); ++i)
    if (all[static_cast<std::size_t>(i)].color == color) members.push_back(i);
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
  });
  std::vector<int> ranks;
  for (int m : members)
    ranks.push_back(st_->ranks[static_cast<std::size_t>(m)]);
  return detail::group_access::make(
      detail::make_group_state(*st_->svc, id, std::move(name), std::move(ranks)));
}

group group::subset(std::span<const int> members, std::string name) const {
  if (!st_ || st_->me < 0)
    throw error("gaea::coll: group::subset on group '" + this->name() +
                "' by a rank that is not a member");
  // Every member must pass the same list (and name).
  const std::vector<std::int64_t> list(members.begin(), members.end());
  agree_on(*this, call_record("group", name, "subset of '" + this->name() + "'")
                      .add("members", format_index(list)));
  std::unordered_set<int> seen;
  for (int m : members) {
    if (m < 0 || m >= size())
      // The same list everywhere, hence the same verdict on every member.
      throw error("gaea::coll: group::subset of '" + this->name() + "': member " +
                  std::to_string(m) + " out of range [0, " + std::to_string(size()) + ")");
    if (!seen.insert(m).second)
      throw error("gaea::coll: group::subset of '" + this->name() + "': member " +
                  std::to_string(m) + " listed twice");
  }
  const std::uint64_t child = st_->children++;
  if (name.empty()) name = st_->name + "/subset" + std::to_string(child);
  const std::uint64_t id = detail::mix(st_->id, child, 0xFFFFFFFFull);
  if (!seen.contains(st_->me)) return empty_group(*st_, id, std::move(name));
  std::vector<int> ranks;
  for (int m : members)
    ranks.push_back(st_->ranks[static_cast<std::size_t>(m)]);
  return detail::group_access::make(
      detail::make_group_state(*st_->svc, id, std::move(name), std::move(ranks)));
}

}  // namespace gaea::coll
