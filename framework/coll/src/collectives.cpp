// gaea::coll's collective calls: argument checks, the choice of algorithm, and the start of
// a call (inline on shared memory, or a schedule run by an execution, blocking or a request).

#include "gaea/coll/collectives.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <numeric>

#include "detail/builders.hpp"
#include "detail/reduce_ops.hpp"
#include "detail/registry.hpp"
#include "detail/shm_inline.hpp"
#include "detail/shm_region.hpp"
#include "detail/start.hpp"
#include "gaea/base/assert.hpp"
#include "gaea/base/error.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::coll {

namespace detail {

namespace {

std::shared_ptr<group_state> member_state(const group& g, operation op) {
  const auto& st = group_access::state(g);
  if (!st || st->me < 0)
    throw error("gaea::coll: " + std::string(to_string(op)) + " on group '" + g.name() +
                "' by rank " +
                std::to_string(runtime::initialized() ? runtime::current().rank() : -1) +
                ", which is not a member");
  if (!runtime::initialized() || &runtime::current() != st->rt ||
      st->rt->instance() != st->svc->instance())
    throw error("gaea::coll: group '" + g.name() + "' belongs to a runtime that has ended");
  return st;
}

void check_root(const group_state& g, operation op, int root) {
  if (root < 0 || root >= g.size())
    throw error("gaea::coll: " + std::string(to_string(op)) + " on group '" + g.name + "': root " +
                std::to_string(root) + " out of range [0, " + std::to_string(g.size()) + ")");
}

void noop_reduce(std::byte*, const std::byte*, std::size_t) {}

// The call's algorithm (choose()); when that is shared memory and the group has no region yet,
// it is made here, and if it cannot be, every member chooses again, alike (the making tells all
// whether it worked).
algorithm choose_for(const std::shared_ptr<group_state>& g, const call_shape& c, const options& o) {
  const settings& cfg = g->svc->cfg();
  const algorithm a = choose(*g, c, o.algo, cfg);
  if (a != algorithm::shared_memory || g->shm) return a;
  std::string why;
  // By default no single copy where ranks outnumber the hardware threads: a reader would wait
  // for a writer that is off its core, while the region lets the writer return at once.
  const bool shared_cores = g->rt->progress().ranks_share_cores();
  const std::size_t single_copy =
      shared_cores && !cfg.shm_single_copy_set ? 0 : cfg.shm_single_copy;
  g->shm = shm_region::make(g, shm_buffer_bytes(cfg, g->size()), single_copy, why);
  if (g->shm) return a;
  g->shm_why = why.empty() ? std::string("not made") : why;
  if (g->me == 0)
    std::fprintf(stderr,
                 "gaea::coll: group '%s': no shared memory for its collectives (%s); "
                 "they use messages\n",
                 g->name.c_str(), g->shm_why.c_str());
  return choose(*g, c, o.algo, cfg);
}

// The shared-memory context of the call being built (its number is the one make_execution
// gives next).
shm_context shm_of(const std::shared_ptr<group_state>& g, const call_signature& sig) {
  return {g.get(),
          g->shm.get(),
          g->next_call,
          sig,
          g->shm->buffer_bytes(),
          &g->shm_turn,
          g->shm_started++,
          &g->shm_uses,
          g->shm->single_copy_bytes()};
}

// The call by the registry's entry of `a`: inline on the calling thread when the entry has that
// form and the call allows it, else as the entry's schedule run by an execution. `args` holds the
// call's buffers and sizes; the group, the member and the chunk are filled in here.
request run(const std::shared_ptr<group_state>& g, const call_signature& sig, operation op,
            algorithm a, build_args args, const options& o, bool blocking) {
  const entry* e = find_entry(op, a);
  GAEA_ASSERT(e, "the chosen algorithm implements the call's operation");
  args.g = g.get();
  args.me = g->me;
  args.chunk = o.chunk_bytes ? o.chunk_bytes : g->svc->cfg().chunk;
  if (blocking && e->run_inline && shm_inline_allowed(g, sig, args.bytes, o) &&
      e->run_inline(*g, sig, args))
    return {};
  shm_context shm_ctx;  // taken only when the call runs through the region (it takes a turn)
  if (e->region) {
    shm_ctx = shm_of(g, sig);
    args.shm = &shm_ctx;
  }
  schedule s;
  e->build(s, args);
  return request(make_execution(g, sig, std::move(s), args.bytes, o));
}

std::size_t checked_product(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > SIZE_MAX / a) throw error(std::string("gaea::coll: ") + what + " overflows");
  return a * b;
}

// Byte layout of the members' parts in a gather-like call: `counts[i]` elements each (v-variant)
// or `mine_count` each (counts empty), consecutive in member order.
struct parts {
  std::vector<std::size_t> sizes, offsets;
  std::size_t total = 0;
  std::size_t elem_size = 0;
  std::uint64_t count = 0;  // the signature's: elements per member, or the counts' digest
  bool digest = false;
  std::string problem;  // this member's part does not fit its count (only it can tell)
  call_signature signature(operation op, algorithm a, int root) const {
    call_signature sig{static_cast<std::uint8_t>(op),
                       static_cast<std::uint8_t>(a),
                       static_cast<std::uint8_t>(elem_size),
                       0,
                       root,
                       count};
    sig.digest = digest;
    return sig;
  }
};

// Problems every member sees alike (counts' length, a negative count) throw here.
parts part_layout(const group_state& g, const char* op, std::size_t mine_count,
                  std::span<const std::int64_t> counts, std::size_t elem_size) {
  const auto n = static_cast<std::size_t>(g.size());
  const bool uniform = counts.empty();
  const std::string what =
      "gaea::coll: " + std::string(op) + (uniform ? "" : "v") + " on group '" + g.name + "'";
  if (!uniform && counts.size() != n)
    throw error(what + ": " + std::to_string(counts.size()) + " counts for " + std::to_string(n) +
                " members");
  parts p;
  p.sizes.resize(n);
  p.offsets.resize(n);
  p.elem_size = elem_size;
  p.digest = !uniform;
  p.count = uniform ? mine_count : counts_digest(counts);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t c = uniform ? static_cast<std::int64_t>(mine_count) : counts[i];
    if (c < 0)
      throw error(what + ": count[" + std::to_string(i) + "] = " + std::to_string(c) +
                  " is negative");
    p.sizes[i] = checked_product(static_cast<std::size_t>(c), elem_size, "part size");
    p.offsets[i] = p.total;
    if (p.sizes[i] > SIZE_MAX - p.total) throw error(what + ": the total size overflows");
    p.total += p.sizes[i];
  }
  const auto me = static_cast<std::size_t>(g.me);
  if (!uniform && static_cast<std::size_t>(counts[me]) != mine_count)
    p.problem = what + ": this member gives " + std::to_string(mine_count) +
                " elements but counts[" + std::to_string(me) + "] = " + std::to_string(counts[me]);
  return p;
}

// A problem only this member can see (its own part, the root's buffer): the call fails on every
// member, which would otherwise wait for this one's part.
[[noreturn]] void fail_call(const std::shared_ptr<group_state>& g, const std::string& what) {
  const std::uint64_t call = g->next_call++;
  if (g->shm) g->shm->abandon(g->me, call);
  throw error(g->svc->fail(*g, call, what));
}

// gather: every member's `from` (this member's part) into `to` on the root; scatter: the
// root's `from` into every member's `to`.
request start_rooted(const group& grp, operation op, const std::byte* from, std::size_t from_count,
                     std::byte* to, std::size_t to_count, std::span<const std::int64_t> counts,
                     std::size_t elem_size, int root, const options& o, bool blocking = false) {
  auto g = member_state(grp, op);
  check_root(*g, op, root);
  const bool gather = op == operation::gather;
  const std::size_t mine_count = gather ? from_count : to_count;
  const std::size_t all_count = gather ? to_count : from_count;
  const parts p = part_layout(*g, gather ? "gather" : "scatter", mine_count, counts, elem_size);
  const auto n = static_cast<std::size_t>(g->size());
  // The average part: the same on every member, so that all choose alike (and throw alike,
  // before fail_call takes a call number).
  const call_shape shape{op, p.total / n, counts.empty()};
  const algorithm a = choose_for(g, shape, o);
  if (!p.problem.empty()) fail_call(g, p.problem);
  if (g->me == root && p.total != checked_product(all_count, elem_size, "root buffer"))
    fail_call(g, "gaea::coll: " + std::string(to_string(op)) + (counts.empty() ? "" : "v") +
                     " on group '" + g->name + "': the root's buffer holds " +
                     std::to_string(all_count) + " elements, the members' parts " +
                     std::to_string(p.total / (elem_size ? elem_size : 1)));
  return run(g, p.signature(op, a, root), op, a,
             {.root = root,
              .from = from,
              .to = to,
              .bytes = p.total / n,
              .offsets = p.offsets,
              .sizes = p.sizes},
             o, blocking);
}

}  // namespace

const settings& current_settings() {
  return service_of(runtime::current()).cfg();
}

std::unique_ptr<execution> make_execution(const std::shared_ptr<group_state>& g, call_signature sig,
                                          schedule s, std::size_t bytes, const options& o) {
  const settings& cfg = g->svc->cfg();
  std::size_t prefix = 0;  // rounds of the argument check before the algorithm's
  if (cfg.check && g->size() > 1) {
    // Zero-byte allreduce first: every message carries the sender's call signature and every
    // member depends on every other, so a mismatch fails the call on all members.
    schedule checked;
    allreduce_recursive_doubling(checked, whole(*g, g->me), nullptr, 0, reducer{1, noop_reduce},
                                 phase_check);
    prefix = checked.rounds.size();
    s.rounds.insert(s.rounds.begin(), std::make_move_iterator(checked.rounds.begin()),
                    std::make_move_iterator(checked.rounds.end()));
  }
  energy_mode m = o.energy;
  if (m == energy_mode::automatic) m = scoped_energy_mode().value_or(cfg.energy);
  auto energy = make_energy_session(g, sig, bytes, prefix, m);
  const std::uint64_t call = g->next_call++;
  return std::make_unique<execution>(g, call, sig, std::move(s), std::move(energy));
}

request start_barrier(const group& grp, const options& o, bool blocking) {
  auto g = member_state(grp, operation::barrier);
  const call_shape shape{operation::barrier, 0, true};
  const algorithm a = choose_for(g, shape, o);
  const call_signature sig{static_cast<std::uint8_t>(operation::barrier),
                           static_cast<std::uint8_t>(a)};
  return run(g, sig, operation::barrier, a, {}, o, blocking);
}

request start_broadcast(const group& grp, std::byte* buf, std::size_t bytes, int root,
                        const options& o, bool blocking) {
  auto g = member_state(grp, operation::broadcast);
  check_root(*g, operation::broadcast, root);
  const call_shape shape{operation::broadcast, bytes, true};
  const algorithm a = choose_for(g, shape, o);
  call_signature sig{static_cast<std::uint8_t>(operation::broadcast),
                     static_cast<std::uint8_t>(a),
                     0,
                     0,
                     root,
                     bytes};
  return run(g, sig, operation::broadcast, a, {.root = root, .to = buf, .bytes = bytes}, o,
             blocking);
}

request start_reduce(const group& grp, const std::byte* in, std::byte* out, std::size_t count,
                     elem e, reduce_op op, int root, bool all, const options& o, bool blocking) {
  const operation kind = all ? operation::allreduce : operation::reduce;
  auto g = member_state(grp, kind);
  if (!all) check_root(*g, kind, root);
  const reducer r = make_reducer(e, op);
  const std::size_t bytes = checked_product(count, r.elem_size, "reduction size");
  const call_shape shape{kind, bytes, true};
  const algorithm a = choose_for(g, shape, o);
  call_signature sig{static_cast<std::uint8_t>(kind),
                     static_cast<std::uint8_t>(a),
                     static_cast<std::uint8_t>(e),
                     static_cast<std::uint8_t>(op),
                     all ? -1 : root,
                     count};
  if (!all && g->me == root && out == nullptr && count > 0)
    throw error("gaea::coll: reduce on group '" + g->name + "': the root needs an output");
  return run(
      g, sig, kind, a,
      {.root = all ? -1 : root, .from = in, .to = out, .bytes = bytes, .count = count, .red = r}, o,
      blocking);
}

request start_allgather(const group& grp, const std::byte* mine, std::size_t mine_count,
                        std::byte* all, std::size_t all_count, std::span<const std::int64_t> counts,
                        std::size_t elem_size, const options& o, bool blocking) {
  auto g = member_state(grp, operation::allgather);
  const parts p = part_layout(*g, "allgather", mine_count, counts, elem_size);
  // Choosing may throw on every member alike, so it comes before fail_call takes a call number.
  const call_shape shape{operation::allgather, p.total / p.sizes.size(), counts.empty()};
  const algorithm a = choose_for(g, shape, o);
  if (!p.problem.empty()) fail_call(g, p.problem);
  if (p.total != checked_product(all_count, elem_size, "allgather output"))
    fail_call(g, "gaea::coll: allgather on group '" + g->name + "': the output holds " +
                     std::to_string(all_count) + " elements, the members give " +
                     std::to_string(p.total / (elem_size ? elem_size : 1)));
  return run(g, p.signature(operation::allgather, a, -1), operation::allgather, a,
             {.from = mine,
              .to = all,
              .bytes = mine_count * elem_size,
              .offsets = p.offsets,
              .sizes = p.sizes},
             o, blocking);
}

request start_gather(const group& grp, const std::byte* mine, std::size_t mine_count,
                     std::byte* all, std::size_t all_count, std::span<const std::int64_t> counts,
                     std::size_t elem_size, int root, const options& o, bool blocking) {
  return start_rooted(grp, operation::gather, mine, mine_count, all, all_count, counts, elem_size,
                      root, o, blocking);
}

request start_scatter(const group& grp, const std::byte* all, std::size_t all_count,
                      std::byte* mine, std::size_t mine_count, std::span<const std::int64_t> counts,
                      std::size_t elem_size, int root, const options& o) {
  return start_rooted(grp, operation::scatter, all, all_count, mine, mine_count, counts, elem_size,
                      root, o);
}

request start_alltoall(const group& grp, const std::byte* send, std::size_t send_count,
                       std::byte* recv, std::size_t recv_count, std::size_t block,
                       std::span<const std::int64_t> send_counts,
                       std::span<const std::int64_t> send_displs,
                       std::span<const std::int64_t> recv_counts,
                       std::span<const std::int64_t> recv_displs, std::size_t elem_size,
                       const options& o, bool blocking) {
  auto g = member_state(grp, operation::alltoall);
  const auto n = static_cast<std::size_t>(g->size());
  const bool uniform =
      send_counts.empty() && send_displs.empty() && recv_counts.empty() && recv_displs.empty();
  exchange_layout l;
  l.send_off.resize(n);
  l.send_len.resize(n);
  l.recv_off.resize(n);
  l.recv_len.resize(n);
  const std::string what = "gaea::coll: " + std::string(uniform ? "alltoall" : "alltoallv") +
                           " on group '" + g->name + "'";
  if (uniform) {
    if (send_count != recv_count || send_count % n != 0)
      throw error(what + ": send holds " + std::to_string(send_count) + " and recv " +
                  std::to_string(recv_count) + " elements; both must be equal and a multiple of " +
                  std::to_string(n) + " members");
    for (std::size_t i = 0; i < n; ++i) {
      l.send_len[i] = l.recv_len[i] = checked_product(block, elem_size, "alltoall block");
      l.send_off[i] = l.recv_off[i] = i * l.send_len[i];
    }
  } else {
    auto layout = [&](std::span<const std::int64_t> c, std::span<const std::int64_t> d,
                      std::size_t have, const char* side, std::vector<std::size_t>& off,
                      std::vector<std::size_t>& len) {
      if (c.size() != n || d.size() != n)
        throw error(what + ": " + side + " counts/displacements have " + std::to_string(c.size()) +
                    "/" + std::to_string(d.size()) + " entries for " + std::to_string(n) +
                    " members");
      for (std::size_t i = 0; i < n; ++i) {
        if (c[i] < 0 || d[i] < 0 || static_cast<std::size_t>(c[i]) > have ||
            static_cast<std::size_t>(d[i]) > have - static_cast<std::size_t>(c[i]))
          throw error(what + ": " + side + " block " + std::to_string(i) + " (count " +
                      std::to_string(c[i]) + ", displacement " + std::to_string(d[i]) +
                      ") outside the " + std::to_string(have) + "-element buffer");
        off[i] = static_cast<std::size_t>(d[i]) * elem_size;
        len[i] = static_cast<std::size_t>(c[i]) * elem_size;
      }
    };
    layout(send_counts, send_displs, send_count, "send", l.send_off, l.send_len);
    layout(recv_counts, recv_displs, recv_count, "recv", l.recv_off, l.recv_len);
    const auto me = static_cast<std::size_t>(g->me);
    if (l.send_len[me] != l.recv_len[me])
      throw error(what + ": this member sends itself " + std::to_string(send_counts[me]) +
                  " elements but expects " + std::to_string(recv_counts[me]));
  }
  const call_shape shape{operation::alltoall, l.send_len.empty() ? 0 : l.send_len[0], uniform};
  const algorithm a = choose_for(g, shape, o);
  call_signature sig{static_cast<std::uint8_t>(operation::alltoall),
                     static_cast<std::uint8_t>(a),
                     static_cast<std::uint8_t>(elem_size),
                     0,
                     -1,
                     uniform ? block : 0};
  return run(g, sig, operation::alltoall, a,
             {.from = send, .to = recv, .bytes = l.send_len[0], .layout = &l}, o, blocking);
}

}  // namespace detail

std::string cannot_run(const group& g, algorithm a, operation op, bool uniform) {
  const auto& st = detail::group_access::state(g);
  if (!st) return "an empty group";
  if (!implements(a, op))
    return std::string(to_string(a)) + " is not an algorithm of " + std::string(to_string(op));
  const detail::entry* e = detail::find_entry(op, a);
  if (!e) return {};  // automatic
  return detail::why_not(*e,
                         {op, st->size(), uniform, st.get(), st->svc ? &st->svc->cfg() : nullptr});
}

std::string broadcast(const group& g, std::string s, int root) {
  std::uint64_t len = s.size();
  broadcast(g, std::span<std::uint64_t>(&len, 1), root);
  s.resize(len);
  broadcast(g, std::span<char>(s.data(), s.size()), root);
  return s;
}

void agree(const group& g, const std::string& problem) {
  const int first = allreduce(g, problem.empty() ? g.size() : g.rank(), reduce_op::min);
  if (first == g.size()) return;
  throw error(broadcast(g, problem, first));
}

}  // namespace gaea::coll
