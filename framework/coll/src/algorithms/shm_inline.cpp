// Small blocking algorithm::shared_memory calls run on the calling thread, without a schedule,
// an execution or a request: the steps the shm_* builders would make (shm.cpp), posted and
// awaited in the same order with the same values, so that members may run one call either way.

#include "detail/shm_inline.hpp"

#include <algorithm>
#include <cstring>

#include "detail/settings.hpp"
#include "detail/shm_call.hpp"
#include "detail/start.hpp"
#include "gaea/base/error.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::coll::detail {

namespace {

constexpr int no_member = -2, all_members = -1;
// Reads of the flags before a wait through the progress engine (which costs a wait scope).
constexpr int quick_polls = 64;

// The builders' choice (shm.cpp): such a part is copied straight between the members' buffers.
bool goes_single_copy(const group_state& g, std::size_t bytes) {
  return shm_goes_single_copy(bytes, g.shm->single_copy_bytes());
}

// One call: its number and turn are taken and it is signed at construction; a call that does not
// reach done() is abandoned (its steps marked done for the others) when it unwinds.
class inline_call {
 public:
  inline_call(group_state& g, const call_signature& sig) : g_(g), ticket_(g.shm_started++) {
    c_.g = &g;
    c_.r = g.shm.get();
    c_.call = g.next_call++;
    c_.sig = sig;
    c_.checked.assign(static_cast<std::size_t>(g.size()), 0);
    shm_sign(c_.ctl(g.me), c_.call, sig);
  }
  ~inline_call() {
    if (!done_) c_.r->abandon(g_.me, c_.call);
    g_.shm_turn = std::max(g_.shm_turn, ticket_ + 1);
  }
  inline_call(const inline_call&) = delete;
  inline_call& operator=(const inline_call&) = delete;

  std::uint64_t call() const { return c_.call; }
  std::byte* buffer(int m) const { return c_.r->buffer(m, 1); }
  // Member m's eager slot `slot` of buffer 1 (shm_uses.hpp).
  std::byte* slot_buffer(int m, int slot) const {
    return buffer(m) + shm_eager_slot_offset(slot, c_.r->buffer_bytes());
  }
  // A call of no step (nothing to move): the builders make none either.
  void no_step() { done_ = true; }

  // The call's one step (step 1, buffer 1, or its eager slot): `write` fills this member's
  // buffer once every member is done with its last use, the step is posted, `from` is awaited,
  // `read` runs.
  template <class Write, class Read>
  void step(bool writes, Write write, int from, Read read, int slot = -1) {
    if (writes) {
      claim(slot);
      write(slot >= 0 ? slot_buffer(g_.me, slot) : buffer(g_.me));
    }
    const std::uint64_t v = c_.value(1, 0);
    c_.post(v);
    await(from, v);
    read();
    c_.consume(c_.value(1, 1));
    done_ = true;
  }

  // The call's one single-copy step, as the builders make it: this member publishes `mine` (its
  // buffer for the others' reads), `from` is awaited, `read` copies straight from the members'
  // buffers, and this member returns once `done_from` have posted that they are done reading.
  template <class Read>
  void direct_step(const void* mine, int from, Read read, int done_from) {
    if (mine) {
      claim(-1);  // publishing is the builders' write: it claims buffer 1 as every write does
      c_.ctl(g_.me).published(c_.call) = reinterpret_cast<std::uint64_t>(mine);
    }
    const std::uint64_t v = c_.value(1, 0);
    c_.post(v);
    await(from, v);
    read();
    const std::uint64_t d = c_.value(1, 1);
    c_.post(d);
    await(done_from, d);
    c_.consume(d);
    done_ = true;
  }
  // Copies `bytes` of `from` to member m's published buffer at `offset`.
  void write_published(int m, std::size_t offset, const std::byte* from, std::size_t bytes) const {
    c_.r->write_to(m, c_.ctl(m).published(c_.call) + offset, from, bytes);
  }
  // Copies `bytes` at `offset` of member m's published buffer into `to`.
  void read_published(int m, std::size_t offset, std::byte* to, std::size_t bytes) const {
    c_.r->read_from(m, to, c_.ctl(m).published(c_.call) + offset, bytes);
  }

 private:
  // Claims buffer 1 (or eager slot `slot`) for this call's write and waits until it is free:
  // every member is done with the last call that wrote it (shm.cpp's rule).
  void claim(int slot) {
    const std::uint64_t v = c_.value(1, 1);
    const std::uint64_t free_at = slot >= 0
                                      ? g_.shm_uses.claim_slot(static_cast<std::size_t>(slot), v)
                                      : g_.shm_uses.claim(1, v);
    wait([&] { return c_.all_consumed(free_at); }, [&] { return c_.not_consumed(free_at); });
  }
  // Waits until `from` (a member, all_members or no_member) has posted `v`.
  void await(int from, std::uint64_t v) {
    if (from == all_members)
      wait([&] { return c_.all_posted(v); }, [&] { return c_.not_posted(v); });
    else if (from != no_member && from != g_.me)
      wait([&] { return c_.seen(from, v); }, [&] { return c_.not_seen(from, v); });
  }
  template <class Ready, class Who>
  void wait(Ready ready, Who waiting_for) {
    auto over = [&] { return ready() || !c_.problem.empty(); };
    for (int i = 0; i < quick_polls; ++i)
      if (over()) return fail_on_problem();
    runtime& rt = *g_.rt;
    auto failed = [&] { return g_.svc->failure(g_.id, c_.call).has_value(); };
    {
      const progress::scoped_wait_label label([&] { return describe_wait(waiting_for()); });
      rt.progress().wait_until(rt.worker(), [&] { return over() || failed(); });
    }
    if (auto f = g_.svc->failure(g_.id, c_.call)) fail(*f);
    fail_on_problem();
  }
  void fail_on_problem() {
    if (!c_.problem.empty()) fail(c_.problem);
  }
  [[noreturn]] void fail(const std::string& what) {
    std::string msg = what;
    try {
      msg = g_.svc->fail(g_, c_.call, what);  // tells the members that may wait for this one
    } catch (...) {  // telling them failed: this member still throws its own message
    }
    throw error(msg);
  }
  progress::wait_info describe_wait(const std::vector<int>& members) const {
    std::string from;
    progress::wait_info info = call_wait_info(g_, c_.sig, c_.call, members, from);
    info.detail = "round 1: " + (from.empty() ? std::string("nothing left (it is finishing)")
                                              : "the shared-memory step of " + from);
    return info;
  }

  group_state& g_;
  shm_call c_;
  std::uint64_t ticket_;
  bool done_ = false;
};

}  // namespace

bool shm_inline_allowed(const std::shared_ptr<group_state>& g, const call_signature& sig,
                        std::size_t bytes, const options& o) {
  // Only what the execution would add nothing to: no argument-check rounds, no trace region, no
  // energy session, and no earlier call of the group pending here (its turn comes first).
  if (!g->shm || !g->shm_pending.empty() || g->svc->cfg().check || trace::recording()) return false;
  energy_mode m = o.energy;
  if (m == energy_mode::automatic) m = scoped_energy_mode().value_or(g->svc->cfg().energy);
  return m == energy_mode::off || !make_energy_session(g, sig, bytes, 0, m);
}

bool shm_inline_barrier(group_state& g, const call_signature& sig) {
  inline_call c(g, sig);
  c.step(
      false, [](std::byte*) {}, all_members, [] {});
  return true;
}

bool shm_inline_broadcast(group_state& g, const call_signature& sig, int root, std::byte* buf,
                          std::size_t bytes) {
  const bool direct = goes_single_copy(g, bytes);
  if (bytes > g.shm->buffer_bytes() && !direct) return false;
  inline_call c(g, sig);
  if (bytes == 0) return c.no_step(), true;
  const bool is_root = g.me == root;
  if (direct) {
    // shm_broadcast's single copy: the root writes its share into the readers' buffers.
    const std::size_t share = shm_broadcast_root_share(bytes, g.size());
    c.direct_step(
        buf, is_root ? all_members : root,
        [&] {
          if (!is_root) return c.read_published(root, share, buf + share, bytes - share);
          for (int m = 0; m < g.size(); ++m)
            if (m != root && share) c.write_published(m, 0, buf, share);
        },
        is_root ? all_members : root);
    return true;
  }
  // shm_broadcast's choice: small ones go through the call's eager slot.
  const int slot =
      shm_eager_slot(c.call(), bytes, g.shm->buffer_bytes(), g.shm->single_copy_bytes());
  const std::byte* src = slot >= 0 ? c.slot_buffer(root, slot) : c.buffer(root);
  c.step(
      is_root, [&](std::byte* mine) { std::memcpy(mine, buf, bytes); }, is_root ? no_member : root,
      [&] {
        if (!is_root) std::memcpy(buf, src, bytes);
      },
      slot);
  return true;
}

bool shm_inline_reduce(group_state& g, const call_signature& sig, int root, const std::byte* in,
                       std::byte* out, std::size_t count, const reducer& red) {
  // One step of whole chunks, as shm_reduce makes for small calls and pairs.
  const int n = g.size();
  const std::size_t es = red.elem_size;
  const std::size_t per_step = std::max<std::size_t>(1, g.shm->buffer_bytes() / es);
  if (count > per_step || !shm_reduce_whole_chunks(n, count * es) ||
      shm_reduce_goes_single_copy(root < 0, count * es, goes_single_copy(g, count * es)))
    return false;  // single copy: shm_reduce's schedule
  inline_call c(g, sig);
  if (count == 0) return c.no_step(), true;
  const bool reads = root < 0 || g.me == root;
  c.step(
      true, [&](std::byte* mine) { std::memcpy(mine, in, count * es); },
      reads ? all_members : no_member,
      [&] {
        if (!reads) return;
        std::memcpy(out, c.buffer(0), count * es);
        for (int m = 1; m < n; ++m)
          red.fn(out, c.buffer(m), count);
      });
  return true;
}

bool shm_inline_allgather(group_state& g, const call_signature& sig, int root,
                          const std::byte* mine, std::byte* all,
                          std::span<const std::size_t> offsets,
                          std::span<const std::size_t> sizes) {
  const std::size_t longest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  const bool direct = goes_single_copy(g, longest);
  if (longest > g.shm->buffer_bytes() && !direct) return false;
  inline_call c(g, sig);
  if (longest == 0) return c.no_step(), true;
  const auto me = static_cast<std::size_t>(g.me);
  const bool reads = root < 0 || g.me == root;
  auto own = [&] {
    if (sizes[me] && all + offsets[me] != mine) std::memmove(all + offsets[me], mine, sizes[me]);
  };
  if (direct) {
    // allgather: everyone reads everyone; gather: the root reads, the others wait for it.
    c.direct_step(
        sizes[me] ? mine : nullptr, reads ? all_members : no_member,
        [&] {
          if (!reads) return;
          for (std::size_t m = 0; m < sizes.size(); ++m)
            if (m != me && sizes[m])
              c.read_published(static_cast<int>(m), 0, all + offsets[m], sizes[m]);
          own();
        },
        root < 0 ? all_members : (g.me == root ? no_member : root));
    return true;
  }
  c.step(
      sizes[me] > 0, [&](std::byte* buf) { std::memcpy(buf, mine, sizes[me]); },
      reads ? all_members : no_member,
      [&] {
        if (!reads) return;
        for (std::size_t m = 0; m < sizes.size(); ++m)
          if (m != me && sizes[m])
            std::memcpy(all + offsets[m], c.buffer(static_cast<int>(m)), sizes[m]);
        own();
      });
  return true;
}

bool shm_inline_alltoall(group_state& g, const call_signature& sig, const std::byte* send,
                         std::byte* recv, std::size_t block) {
  // One area of the buffer per member, as shm_alltoall lays them out.
  const auto n = static_cast<std::size_t>(g.size());
  const std::size_t area = shm_area_bytes(g.shm->buffer_bytes(), g.size());
  const bool direct = goes_single_copy(g, block);
  if (block > area && !direct) return false;
  inline_call c(g, sig);
  if (block == 0) return c.no_step(), true;
  const auto me = static_cast<std::size_t>(g.me);
  if (direct) {
    c.direct_step(
        send, all_members,
        [&] {
          for (std::size_t m = 0; m < n; ++m)
            if (m != me) c.read_published(static_cast<int>(m), me * block, recv + m * block, block);
          std::memmove(recv + me * block, send + me * block, block);
        },
        all_members);
    return true;
  }
  c.step(
      true,
      [&](std::byte* buf) {
        for (std::size_t m = 0; m < n; ++m)
          if (m != me) std::memcpy(buf + m * area, send + m * block, block);
      },
      all_members,
      [&] {
        for (std::size_t m = 0; m < n; ++m)
          if (m != me)
            std::memcpy(recv + m * block, c.buffer(static_cast<int>(m)) + me * area, block);
        std::memmove(recv + me * block, send + me * block, block);
      });
  return true;
}

}  // namespace gaea::coll::detail
