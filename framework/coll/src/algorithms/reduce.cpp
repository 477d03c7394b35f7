// The reduce and allreduce schedule builders: binomial reduce, recursive doubling, ring,
// and their hierarchical forms over node teams and leaders.

#include <algorithm>
#include <cstring>

#include "detail/builders.hpp"

namespace gaea::coll::detail {

void reduce_binomial(schedule& s, const team& t, int root_pos, const std::byte* in, std::byte* out,
                     std::size_t count, const reducer& r, std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const std::size_t bytes = count * r.elem_size;
  const int rel = (t.pos - root_pos + n) % n;
  std::byte* acc = rel == 0 ? out : s.temp(bytes);
  if (acc != in || s.shape_only) {
    round& c = s.add(step_kind::local_copy);
    s.then(
        c,
        [=] {
          if (bytes) std::memmove(acc, in, bytes);
        },
        bytes);
  }
  if (n <= 1) return;
  auto abs = [&](int x) { return t.member((x + root_pos) % n); };
  std::byte* tmp = s.temp(bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      s.add(step_kind::tree).sends.push_back({abs(rel - mask), tag(phase, 0), acc, bytes});
      break;
    }
    if (rel + mask < n) {
      round& x = s.add(step_kind::reduce);
      x.recvs.push_back({abs(rel + mask), tag(phase, 0), tmp, bytes});
      s.then(
          x, [=] { r.fn(acc, tmp, count); }, bytes);
    }
  }
}

void allreduce_recursive_doubling(schedule& s, const team& t, std::byte* acc, std::size_t count,
                                  const reducer& r, std::uint32_t phase) {
  const int n = t.size();
  if (n <= 1 || t.pos < 0) return;
  const std::size_t bytes = count * r.elem_size;
  std::byte* tmp = s.temp(bytes);
  int p2 = 1;
  while (p2 * 2 <= n)
    p2 *= 2;
  const int rem = n - p2;
  const int me = t.pos;
  // The first 2*rem positions pair up: evens hand their data to the next odd and wait.
  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      s.add(step_kind::reduce).sends.push_back({t.member(me + 1), tag(phase, 0), acc, bytes});
      s.add(step_kind::tree).recvs.push_back({t.member(me + 1), tag(phase, 1), acc, bytes});
      return;
    }
    round& x = s.add(step_kind::reduce);
    x.recvs.push_back({t.member(me - 1), tag(phase, 0), tmp, bytes});
    s.then(
        x, [=] { r.fn(acc, tmp, count); }, bytes);
    newrank = me / 2;
  } else {
    newrank = me - rem;
  }
  auto actual = [&](int nr) { return nr < rem ? nr * 2 + 1 : nr + rem; };
  std::uint32_t k = 2;
  for (int mask = 1; mask < p2; mask <<= 1, ++k) {
    const int partner = t.member(actual(newrank ^ mask));
    round& x = s.add(step_kind::reduce);
    x.sends.push_back({partner, tag(phase, k), acc, bytes});
    x.recvs.push_back({partner, tag(phase, k), tmp, bytes});
    // IEEE + and * commute exactly, so both partners hold the same bits afterwards.
    s.then(
        x, [=] { r.fn(acc, tmp, count); }, bytes);
  }
  if (me < 2 * rem)
    s.add(step_kind::tree).sends.push_back({t.member(me - 1), tag(phase, 1), acc, bytes});
}

void allreduce_ring(schedule& s, const team& t, std::byte* acc, std::size_t count, const reducer& r,
                    std::uint32_t phase) {
  const int n = t.size();
  if (n <= 1 || t.pos < 0) return;
  const std::size_t per = (count + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  auto lo = [&](int j) { return std::min(count, static_cast<std::size_t>(j) * per); };
  auto len = [&](int j) { return lo(j + 1) - lo(j); };
  auto at = [&](int j) { return acc ? acc + lo(j) * r.elem_size : nullptr; };
  std::byte* tmp = s.temp(per * r.elem_size);
  const int me = t.pos, next = t.member((me + 1) % n), prev = t.member((me - 1 + n) % n);
  // Reduce-scatter: after n-1 steps this position holds the full sum of piece me+1.
  for (int i = 0; i < n - 1; ++i) {
    const int out = (me - i + n) % n, in = (me - i - 1 + n) % n;
    round& x = s.add(step_kind::reduce);
    x.sends.push_back(
        {next, tag(phase, static_cast<std::uint32_t>(i)), at(out), len(out) * r.elem_size});
    x.recvs.push_back(
        {prev, tag(phase, static_cast<std::uint32_t>(i)), tmp, len(in) * r.elem_size});
    std::byte* dst = at(in);
    const std::size_t c = len(in);
    s.then(
        x, [=] { r.fn(dst, tmp, c); }, c * r.elem_size);
  }
  // Allgather of the reduced pieces.
  for (int i = 0; i < n - 1; ++i) {
    const int out = (me + 1 - i + n) % n, in = (me - i + n) % n;
    round& x = s.add(step_kind::allgather);
    x.sends.push_back(
        {next, tag(phase + 1, static_cast<std::uint32_t>(i)), at(out), len(out) * r.elem_size});
    x.recvs.push_back(
        {prev, tag(phase + 1, static_cast<std::uint32_t>(i)), at(in), len(in) * r.elem_size});
  }
}

void allreduce_hierarchical(schedule& s, const group_state& g, int me, std::byte* acc,
                            std::size_t count, const reducer& r) {
  const team node = node_team(g, me);
  reduce_binomial(s, node, 0, acc, acc, count, r, phase_a);
  const team lead = leaders(g, me, 0);
  if (lead.pos >= 0) allreduce_recursive_doubling(s, lead, acc, count, r, phase_b);
  bcast_binomial(s, node, 0, acc, count * r.elem_size, phase_c);
}

void reduce_hierarchical(schedule& s, const group_state& g, int me, int root, const std::byte* in,
                         std::byte* out, std::size_t count, const reducer& r) {
  // Inside each node to its leader (the root on the root's node), then among the leaders.
  const team lead = leaders(g, me, root);
  const team node = node_team(g, me);
  const int node_root = lead.member(g.node[static_cast<std::size_t>(me)]);
  const int np = static_cast<int>(std::find(node.members.begin(), node.members.end(), node_root) -
                                  node.members.begin());
  if (lead.pos < 0) {
    reduce_binomial(s, node, np, in, nullptr, count, r, phase_a);
    return;
  }
  std::byte* partial = me == root ? out : s.temp(count * r.elem_size);
  reduce_binomial(s, node, np, in, partial, count, r, phase_a);
  const int rp = static_cast<int>(std::find(lead.members.begin(), lead.members.end(), root) -
                                  lead.members.begin());
  reduce_binomial(s, lead, rp, partial, partial, count, r, phase_b);
}

}  // namespace gaea::coll::detail
