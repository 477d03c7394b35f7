// algorithm::shared_memory: every operation through the group's region on its node. Each step of
// a call posts a value (shm_step_value) once its member has written its buffer; readers wait for
// the values they need, copy (or reduce) straight from the writers' buffers, and post that they
// are done. A member writes a buffer again only once every member is done with its previous use
// (two buffers per member let one step's copies overlap the next step's writes). A member that
// abandons a call marks every step of it done, so that the others' next calls do not wait for it.

#include <algorithm>
#include <cstring>
#include <numeric>

#include "detail/builders.hpp"
#include "detail/shm_call.hpp"
#include "detail/shm_region.hpp"

namespace gaea::coll::detail {

namespace {

constexpr int all_members = -1, no_member = -2;

// One step: this member writes its buffer (when `write` is set) and posts; the step is ready
// once `from` (a member, all_members or no_member) has posted; `read` runs, then this member is
// done with the step — unless `result` is set: then it posts its result (a reduction's slice)
// and a second round waits for `result_from`'s results, runs `result`, and is done.
struct step_spec {
  std::function<void(std::byte* buf)> write;
  int from = all_members;
  std::function<void()> read;
  std::function<void()> result;
  int result_from = all_members;
  std::size_t bytes = 0;  // local work, for the model
  int slot = -1;          // >= 0: the write goes to that eager slot of buffer 1 (shm_uses.hpp)
};

class builder {
 public:
  builder(schedule& s, const shm_context& c) : s_(s), c_(c) {
    if (s.shape_only) return;
    // The rounds' functions hold a plain pointer to the call's state (small captures need no
    // allocation); the schedule owns it through `problem`.
    auto owner = std::make_shared<shm_call>();
    cs_ = owner.get();
    cs_->g = c.g;
    cs_->r = c.region;
    cs_->call = c.call;
    cs_->sig = c.sig;
    cs_->checked.assign(static_cast<std::size_t>(c.g->size()), 0);
    s.problem = std::shared_ptr<std::string>(owner, &cs_->problem);
    s.rounds.reserve(s.rounds.size() + 2);
    // Its turn: the group's earlier shared-memory calls are done here. Then sign.
    round& r = s.add(step_kind::sync);
    shm_call* cs = cs_;
    std::uint64_t* turn = c.turn;
    const std::uint64_t ticket = c.ticket;
    r.can_begin = [turn, ticket] { return *turn == ticket; };
    r.begin = [cs] { shm_sign(cs->ctl(cs->g->me), cs->call, cs->sig); };
    s.on_end = [cs, turn, ticket](bool completed) {
      *turn = std::max(*turn, ticket + 1);
      if (!completed) cs->r->abandon(cs->g->me, cs->call);
    };
  }
  ~builder() {
    if (cs_) *c_.uses = uses_;
  }
  builder(const builder&) = delete;
  builder& operator=(const builder&) = delete;

  std::size_t buffer_bytes() const { return c_.buffer_bytes; }
  // Whether a part of `bytes` goes by single copy (never in shape_only schedules).
  bool single_copy(std::size_t bytes) const {
    return c_.region && shm_goes_single_copy(bytes, c_.single_copy_bytes);
  }
  // Publishes `at` (and a reduction's output `out`) as this member's buffers of the call, for
  // the others' single-copy reads and writes.
  std::function<void(std::byte*)> publish(const void* at, const void* out = nullptr) const {
    return [r = c_.region, me = me(), call = c_.call, a = reinterpret_cast<std::uint64_t>(at),
            o = reinterpret_cast<std::uint64_t>(out)](std::byte*) {
      r->control(me).published(call, 0) = a;
      r->control(me).published(call, 1) = o;
    };
  }
  // Reads `bytes` of member m's published buffer at `offset` into `to`.
  std::function<void()> read_published(int m, std::size_t offset, std::byte* to,
                                       std::size_t bytes) const {
    return [r = c_.region, m, call = c_.call, offset, to, bytes] {
      r->read_from(m, to, r->control(m).published(call) + offset, bytes);
    };
  }
  // Writes `bytes` of `from` to member m's published buffer (`which` 1: its output) at `offset`.
  std::function<void()> write_published(int m, std::size_t offset, const std::byte* from,
                                        std::size_t bytes, int which = 0) const {
    return [r = c_.region, m, call = c_.call, which, offset, from, bytes] {
      r->write_to(m, r->control(m).published(call, which) + offset, from, bytes);
    };
  }
  int me() const { return c_.g->me; }
  int size() const { return c_.g->size(); }
  std::byte* buffer(int m, std::uint64_t step) const {
    return c_.region ? c_.region->buffer(m, static_cast<int>(step & 1)) : nullptr;
  }
  // This call's eager slot of buffer 1 for a broadcast of `bytes`, or -1 when it does not fit.
  int eager_slot(std::size_t bytes) const {
    return shm_eager_slot(c_.call, bytes, c_.buffer_bytes, c_.region ? c_.single_copy_bytes : 0);
  }
  // Member m's buffer of step k, at eager slot `slot` when it is one.
  std::byte* buffer(int m, std::uint64_t step, int slot) const {
    std::byte* b = buffer(m, step);
    if (!b || slot < 0) return b;
    return b + shm_eager_slot_offset(slot, c_.buffer_bytes);
  }
  std::uint64_t next_step() { return ++steps_; }

  void add(std::uint64_t k, step_spec spec) {
    round& r = s_.add(step_kind::local_copy);
    r.local_bytes = spec.bytes;
    if (!cs_) {
      if (spec.result) s_.add(step_kind::local_copy).local_bytes = spec.bytes;
      return;
    }
    shm_call* cs = cs_;
    // Buffer k & 1 (or the slot) is free once every member is done with its previous use (the
    // last earlier step, of this call or an earlier one, that wrote it: the others read it only
    // then).
    if (spec.write) {
      const std::uint64_t v = cs->value(k, 1);
      const std::uint64_t free_at = spec.slot >= 0
                                        ? uses_.claim_slot(static_cast<std::size_t>(spec.slot), v)
                                        : uses_.claim(k, v);
      r.can_begin = [cs, free_at] { return cs->all_consumed(free_at) || !cs->problem.empty(); };
      r.waiting_for = [cs, free_at] { return cs->not_consumed(free_at); };
    }
    std::byte* mine = buffer(me(), k, spec.slot);
    r.begin = [cs, k, mine, write = std::move(spec.write)] {
      if (write) write(mine);
      cs->post(cs->value(k, 0));
    };
    wait_for(r, spec.from, cs->value(k, 0));
    const bool two_phase = static_cast<bool>(spec.result);
    r.after.push_back([cs, k, two_phase, read = std::move(spec.read)] {
      if (read) read();
      if (two_phase)
        cs->post(cs->value(k, 1));
      else
        cs->consume(cs->value(k, 1));
    });
    if (!two_phase) return;
    round& r2 = s_.add(step_kind::local_copy);
    r2.local_bytes = spec.bytes;
    wait_for(r2, spec.result_from, cs->value(k, 1));
    r2.after.push_back([cs, k, result = std::move(spec.result)] {
      result();
      cs->consume(cs->value(k, 1));
    });
  }

 private:
  void wait_for(round& r, int from, std::uint64_t v) {
    shm_call* cs = cs_;
    if (from == no_member || from == me()) return;
    if (from == all_members) {
      r.ready = [cs, v] { return cs->all_posted(v) || !cs->problem.empty(); };
      r.waiting_for = [cs, v] { return cs->not_posted(v); };
    } else {
      r.ready = [cs, v, from] { return cs->seen(from, v) || !cs->problem.empty(); };
      r.waiting_for = [cs, v, from] { return cs->not_seen(from, v); };
    }
  }

  schedule& s_;
  const shm_context& c_;
  shm_call* cs_ = nullptr;
  std::uint64_t steps_ = 0;
  shm_buffer_uses uses_ = c_.uses ? *c_.uses : shm_buffer_uses{};
};

std::size_t ceil_div(std::size_t a, std::size_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

// Parts of sizes[m] bytes, one per member, moved `per_step` bytes of each at a time: `write`
// copies member me's piece [at, at + len) of step k, `read` member m's.
template <class Write, class Read>
void parts_steps(builder& b, std::span<const std::size_t> sizes, std::size_t per_step, int from,
                 Write write, Read read) {
  const std::size_t longest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  const std::size_t steps = ceil_div(longest, per_step);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t at = i * per_step;
    auto piece = [at, per_step](std::size_t size) {
      return size > at ? std::min(per_step, size - at) : std::size_t{0};
    };
    std::size_t touched = 0;
    for (std::size_t s : sizes)
      touched += piece(s);
    const std::uint64_t k = b.next_step();
    step_spec spec;
    spec.from = from;
    spec.bytes = touched;
    spec.write = write(k, at, piece);
    spec.read = read(k, at, piece);
    b.add(k, std::move(spec));
  }
}

}  // namespace

void shm_barrier(schedule& s, const shm_context& c) {
  builder b(s, c);
  step_spec spec;
  b.add(b.next_step(), std::move(spec));
}

void shm_broadcast(schedule& s, const shm_context& c, int root, std::byte* buf, std::size_t bytes) {
  builder b(s, c);
  const std::size_t chunk = b.buffer_bytes();
  const bool is_root = b.me() == root;
  if (b.single_copy(bytes)) {
    // Every member publishes its buffer; the root writes its share into each reader's while the
    // readers read the rest of its own; each returns once the others are done with its buffer.
    const std::size_t share = shm_broadcast_root_share(bytes, b.size());
    step_spec spec;
    spec.bytes = bytes;
    spec.write = b.publish(buf);
    if (is_root) {
      spec.from = all_members;
      std::vector<std::function<void()>> writes;
      for (int m = 0; m < b.size(); ++m)
        if (m != root && share) writes.push_back(b.write_published(m, 0, buf, share));
      spec.read = [writes = std::move(writes)] {
        for (const auto& w : writes)
          w();
      };
      spec.result_from = all_members;
    } else {
      spec.from = root;
      spec.read = b.read_published(root, share, buf + share, bytes - share);
      spec.result_from = root;
    }
    spec.result = [] {};
    b.add(b.next_step(), std::move(spec));
    return;
  }
  if (const int slot = b.eager_slot(bytes); slot >= 0) {
    // Small: through this call's eager slot, so the root does not wait for the readers of its
    // previous broadcasts.
    const std::uint64_t k = b.next_step();
    step_spec spec;
    spec.bytes = bytes;
    spec.slot = slot;
    if (is_root) {
      spec.write = [buf, bytes](std::byte* mine) { std::memcpy(mine, buf, bytes); };
      spec.from = no_member;
    } else {
      spec.from = root;
      const std::byte* src = b.buffer(root, k, slot);
      spec.read = [buf, bytes, src] { std::memcpy(buf, src, bytes); };
    }
    b.add(k, std::move(spec));
    return;
  }
  for (std::size_t at = 0; at < bytes; at += chunk) {
    const std::size_t len = std::min(chunk, bytes - at);
    const std::uint64_t k = b.next_step();
    step_spec spec;
    spec.bytes = len;
    if (is_root) {
      spec.write = [buf, at, len](std::byte* mine) { std::memcpy(mine, buf + at, len); };
      spec.from = no_member;
    } else {
      spec.from = root;
      const std::byte* src = b.buffer(root, k);
      spec.read = [buf, at, len, src] { std::memcpy(buf + at, src, len); };
    }
    b.add(k, std::move(spec));
  }
}

void shm_reduce(schedule& s, const shm_context& c, int root, const std::byte* in, std::byte* out,
                std::size_t count, const reducer& red) {
  builder b(s, c);
  const int n = b.size(), me = b.me();
  const bool all = root < 0;
  const std::size_t es = red.elem_size;
  const std::size_t per_step = std::max<std::size_t>(1, b.buffer_bytes() / es);
  // Small calls and pairs: every reader combines whole chunks itself (one step less); larger
  // ones: each member combines its slice of every chunk, then the readers collect the slices.
  if (shm_reduce_goes_single_copy(all, count * es, b.single_copy(count * es))) {
    // Member m combines slice m of every member's input, read straight from their buffers, in
    // member order; once every member has read its inputs, it writes the result slice into every
    // member's output (an output may be its owner's input).
    auto lo = [count, n](int m) {
      return count * static_cast<std::size_t>(m) / static_cast<std::size_t>(n);
    };
    const std::size_t a = lo(me), e = lo(me + 1) - a, total = count * es;
    std::byte* theirs = s.temp(2 * e * es + es);
    // The slice is combined in this member's output where that is not its input (one copy
    // less), else in a temporary: the others read the input until all are done.
    const bool in_out = out + total <= in || in + total <= out;
    std::byte* acc = in_out ? out + a * es : theirs + e * es;
    step_spec spec;
    spec.bytes = count * es;
    spec.write = b.publish(in, out);
    spec.from = all_members;
    std::vector<std::function<void()>> reads;
    for (int m = 0; m < n; ++m)
      reads.push_back(m == me || e == 0 ? std::function<void()>{}
                                        : b.read_published(m, a * es, theirs, e * es));
    spec.read = [reads = std::move(reads), acc, theirs, mine = in + a * es, me, e, es, red] {
      for (std::size_t m = 0; m < reads.size(); ++m) {
        const std::byte* src = static_cast<int>(m) == me ? mine : theirs;
        if (e && static_cast<int>(m) != me) reads[m]();
        if (m == 0)
          std::memcpy(acc, src, e * es);
        else
          red.fn(acc, src, e);
      }
    };
    std::vector<std::function<void()>> writes;
    for (int m = 0; m < n; ++m)
      if (m != me && e) writes.push_back(b.write_published(m, a * es, acc, e * es, 1));
    spec.result_from = all_members;
    spec.result = [writes = std::move(writes), acc, o = out + a * es, e, es] {
      if (e && o != acc) std::memcpy(o, acc, e * es);
      for (const auto& w : writes)
        w();
    };
    b.add(b.next_step(), std::move(spec));
    // The results are in place once every member has written its slice.
    step_spec done;
    done.from = all_members;
    b.add(b.next_step(), std::move(done));
    return;
  }
  const bool whole = shm_reduce_whole_chunks(n, count * es);
  std::byte* tmp = whole ? nullptr : s.temp(b.buffer_bytes() / static_cast<std::size_t>(n) + es);
  for (std::size_t at = 0; at < count; at += per_step) {
    const std::size_t len = std::min(per_step, count - at);
    const std::uint64_t k = b.next_step();
    std::vector<const std::byte*> bufs;
    for (int m = 0; m < n; ++m)
      bufs.push_back(b.buffer(m, k));
    step_spec spec;
    spec.bytes = len * es * static_cast<std::size_t>(n);
    spec.write = [in, at, len, es](std::byte* mine) { std::memcpy(mine, in + at * es, len * es); };
    const bool reads = all || me == root;
    if (whole) {
      spec.from = reads ? all_members : no_member;
      if (reads)
        spec.read = [bufs, out, at, len, es, red] {
          std::byte* o = out + at * es;
          std::memcpy(o, bufs[0], len * es);
          for (std::size_t m = 1; m < bufs.size(); ++m)
            red.fn(o, bufs[m], len);
        };
    } else {
      // Slice m: elements [len * m / n, len * (m + 1) / n) of the chunk, in member order.
      auto lo = [len, n](int m) {
        return len * static_cast<std::size_t>(m) / static_cast<std::size_t>(n);
      };
      spec.from = all_members;
      std::byte* mine = const_cast<std::byte*>(bufs[static_cast<std::size_t>(me)]);
      spec.read = [bufs, mine, tmp, lo, me, es, red] {
        const std::size_t a = lo(me), e = lo(me + 1) - a;
        std::memcpy(tmp, bufs[0] + a * es, e * es);
        for (std::size_t m = 1; m < bufs.size(); ++m)
          red.fn(tmp, bufs[m] + a * es, e);
        std::memcpy(mine + a * es, tmp, e * es);
      };
      spec.result_from = reads ? all_members : no_member;
      spec.result = [bufs, out, at, lo, es, reads] {
        if (!reads) return;
        for (std::size_t m = 0; m < bufs.size(); ++m) {
          const std::size_t a = lo(static_cast<int>(m)), e = lo(static_cast<int>(m) + 1) - a;
          std::memcpy(out + (at + a) * es, bufs[m] + a * es, e * es);
        }
      };
    }
    b.add(k, std::move(spec));
  }
}

void shm_allgather(schedule& s, const shm_context& c, int root, const std::byte* mine,
                   std::byte* all, std::span<const std::size_t> offsets,
                   std::span<const std::size_t> sizes) {
  builder b(s, c);
  const int me = b.me();
  const bool reads = root < 0 || me == root;
  const auto my = static_cast<std::size_t>(me);
  const std::size_t longest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  if (b.single_copy(longest)) {
    // Every member publishes its part; the readers copy each part at once; every member returns
    // once all that read its part have (it must live until then).
    step_spec spec;
    spec.bytes = std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
    if (sizes[my]) spec.write = b.publish(mine);
    spec.from = reads ? all_members : no_member;
    if (reads) {
      std::vector<std::function<void()>> copies;
      for (int m = 0; m < b.size(); ++m)
        if (m != me && sizes[static_cast<std::size_t>(m)])
          copies.push_back(b.read_published(m, 0, all + offsets[static_cast<std::size_t>(m)],
                                            sizes[static_cast<std::size_t>(m)]));
      std::byte* own = all + offsets[my];
      spec.read = [copies = std::move(copies), own, mine, len = sizes[my]] {
        for (const auto& copy : copies)
          copy();
        if (len && own != mine) std::memmove(own, mine, len);
      };
    }
    // allgather: everyone reads everyone; gather: the root reads, the others wait for it.
    spec.result_from = root < 0 ? all_members : (me == root ? no_member : root);
    spec.result = [] {};
    b.add(b.next_step(), std::move(spec));
    return;
  }
  // This member's own part: copied once, at the first step (unless it is already in place).
  bool own_copied = false;
  parts_steps(
      b, sizes, b.buffer_bytes(), reads ? all_members : no_member,
      [&](std::uint64_t, std::size_t at, auto piece) -> std::function<void(std::byte*)> {
        const std::size_t len = piece(sizes[my]);
        if (len == 0) return {};
        return [mine, at, len](std::byte* buf) { std::memcpy(buf, mine + at, len); };
      },
      [&](std::uint64_t k, std::size_t at, auto piece) -> std::function<void()> {
        if (!reads) return {};
        std::vector<std::pair<const std::byte*, std::size_t>> from;  // per member: source, len
        for (int m = 0; m < b.size(); ++m)
          from.emplace_back(b.buffer(m, k), piece(sizes[static_cast<std::size_t>(m)]));
        const bool copy_own = !own_copied && all + offsets[my] != mine;
        own_copied = true;
        std::vector<std::size_t> off(offsets.begin(), offsets.end());
        const std::size_t own_len = sizes[my];
        return [from, off, all, at, me, mine, copy_own, own_len] {
          for (std::size_t m = 0; m < from.size(); ++m)
            if (static_cast<int>(m) != me && from[m].second)
              std::memcpy(all + off[m] + at, from[m].first, from[m].second);
          if (copy_own && own_len)
            std::memmove(all + off[static_cast<std::size_t>(me)], mine, own_len);
        };
      });
}

void shm_scatter(schedule& s, const shm_context& c, int root, const std::byte* all, std::byte* mine,
                 std::span<const std::size_t> offsets, std::span<const std::size_t> sizes) {
  builder b(s, c);
  const int me = b.me(), n = b.size();
  const std::size_t area = shm_area_bytes(b.buffer_bytes(), n);
  const bool is_root = me == root;
  std::vector<std::size_t> off(offsets.begin(), offsets.end()), len(sizes.begin(), sizes.end());
  parts_steps(
      b, sizes, area, is_root ? no_member : root,
      [&](std::uint64_t, std::size_t at, auto piece) -> std::function<void(std::byte*)> {
        if (!is_root) return {};
        return [all, off, len, at, area, piece, me](std::byte* buf) {
          for (std::size_t m = 0; m < off.size(); ++m)
            if (static_cast<int>(m) != me)
              std::memcpy(buf + m * area, all + off[m] + at, piece(len[m]));
        };
      },
      [&](std::uint64_t k, std::size_t at, auto piece) -> std::function<void()> {
        const std::size_t l = piece(len[static_cast<std::size_t>(me)]);
        if (is_root || l == 0) return {};
        const std::byte* src = b.buffer(root, k) + static_cast<std::size_t>(me) * area;
        return [mine, at, src, l] { std::memcpy(mine + at, src, l); };
      });
  if (is_root && len[static_cast<std::size_t>(me)] && !s.shape_only &&
      all + off[static_cast<std::size_t>(me)] != mine) {
    round& r = s.rounds.back();
    r.after.push_back([mine, src = all + off[static_cast<std::size_t>(me)],
                       l = len[static_cast<std::size_t>(me)]] { std::memmove(mine, src, l); });
  }
}

void shm_alltoall(schedule& s, const shm_context& c, const std::byte* send, std::byte* recv,
                  std::size_t block) {
  builder b(s, c);
  const int me = b.me(), n = b.size();
  const std::size_t area = shm_area_bytes(b.buffer_bytes(), n);
  const auto un = static_cast<std::size_t>(n);
  const auto my = static_cast<std::size_t>(me);
  if (b.single_copy(block)) {
    // Every member publishes its send buffer and reads its block of every other's straight into
    // recv; it returns once all have read theirs from its buffer (it must live until then).
    step_spec spec;
    spec.bytes = 2 * block * un;
    spec.write = b.publish(send);
    spec.from = all_members;
    std::vector<std::function<void()>> copies;
    for (int m = 0; m < n; ++m)
      if (m != me)
        copies.push_back(
            b.read_published(m, my * block, recv + static_cast<std::size_t>(m) * block, block));
    spec.read = [copies = std::move(copies), send, recv, block, my] {
      for (const auto& copy : copies)
        copy();
      std::memmove(recv + my * block, send + my * block, block);
    };
    spec.result_from = all_members;
    spec.result = [] {};
    b.add(b.next_step(), std::move(spec));
    return;
  }
  const std::size_t steps = ceil_div(block, area);
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t at = i * area, len = std::min(area, block - at);
    const std::uint64_t k = b.next_step();
    step_spec spec;
    spec.bytes = 2 * len * un;
    spec.write = [send, at, len, block, area, un, my](std::byte* buf) {
      for (std::size_t m = 0; m < un; ++m)
        if (m != my) std::memcpy(buf + m * area, send + m * block + at, len);
    };
    std::vector<const std::byte*> src;
    for (int m = 0; m < n; ++m)
      src.push_back(b.buffer(m, k) + my * area);
    spec.read = [src, recv, at, len, block, my] {
      for (std::size_t m = 0; m < src.size(); ++m)
        if (m != my) std::memcpy(recv + m * block + at, src[m], len);
    };
    b.add(k, std::move(spec));
  }
  // Its own block: straight from send to recv.
  if (block && !s.shape_only) {
    if (s.rounds.empty()) s.add(step_kind::local_copy);
    s.rounds.back().after.push_back(
        [send, recv, block, my] { std::memmove(recv + my * block, send + my * block, block); });
  }
}

}  // namespace gaea::coll::detail
