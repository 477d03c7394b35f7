// The broadcast schedule builders: binomial tree, scatter-allgather, pipelined chain,
// the hierarchical form over node teams and leaders, and the hybrid forms.

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "detail/builders.hpp"
#include "detail/shm_region.hpp"
#include "gaea/base/error.hpp"

namespace gaea::coll::detail {

void bcast_binomial(schedule& s, const team& t, int root_pos, std::byte* buf, std::size_t bytes,
                    std::uint32_t phase) {
  const int n = t.size();
  if (n <= 1 || t.pos < 0) return;
  const int rel = (t.pos - root_pos + n) % n;
  auto abs = [&](int r) { return t.member((r + root_pos) % n); };
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      s.add(step_kind::tree).recvs.push_back({abs(rel - mask), tag(phase, 0), buf, bytes});
      break;
    }
    mask <<= 1;
  }
  round* r = nullptr;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask >= n) continue;
    if (!r) r = &s.add(step_kind::tree);
    r->sends.push_back({abs(rel + mask), tag(phase, 0), buf, bytes});
  }
}

void bcast_scatter_allgather(schedule& s, const team& t, int root_pos, std::byte* buf,
                             std::size_t bytes, std::uint32_t phase) {
  const int n = t.size();
  if (n <= 1 || t.pos < 0) return;
  const int rel = (t.pos - root_pos + n) % n;
  auto abs = [&](int r) { return t.member((r + root_pos) % n); };
  const std::size_t piece = (bytes + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  auto lo = [&](int j) { return std::min(bytes, static_cast<std::size_t>(j) * piece); };
  auto at = [&](int j) { return buf ? buf + lo(j) : nullptr; };
  // Binomial scatter: relative rank j ends with piece j (and the root keeps everything).
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      const int hi = std::min(rel + mask, n);
      s.add(step_kind::scatter)
          .recvs.push_back({abs(rel - mask), tag(phase, 0), at(rel), lo(hi) - lo(rel)});
      break;
    }
    mask <<= 1;
  }
  round* r = nullptr;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask >= n) continue;
    if (!r) r = &s.add(step_kind::scatter);
    const int hi = std::min(rel + 2 * mask, n);
    r->sends.push_back({abs(rel + mask), tag(phase, 0), at(rel + mask), lo(hi) - lo(rel + mask)});
  }
  // Ring allgather of the pieces.
  for (int i = 0; i < n - 1; ++i) {
    const int out = (rel - i + n) % n, in = (rel - i - 1 + n) % n;
    round& g = s.add(step_kind::allgather);
    g.sends.push_back({abs((rel + 1) % n), tag(phase + 1, static_cast<std::uint32_t>(i)), at(out),
                       lo(out + 1) - lo(out)});
    g.recvs.push_back({abs((rel - 1 + n) % n), tag(phase + 1, static_cast<std::uint32_t>(i)),
                       at(in), lo(in + 1) - lo(in)});
  }
}

void bcast_chain(schedule& s, const team& t, int root_pos, std::byte* buf, std::size_t bytes,
                 std::size_t chunk, std::uint32_t phase) {
  const int n = t.size();
  if (n <= 1 || t.pos < 0) return;
  const int p = (t.pos - root_pos + n) % n;  // position along the chain
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = std::max<std::size_t>(1, (bytes + chunk - 1) / chunk);
  auto abs = [&](int r) { return t.member((r + root_pos) % n); };
  auto part = [&](std::size_t c) {
    const std::size_t lo = std::min(bytes, c * chunk), hi = std::min(bytes, lo + chunk);
    return std::pair{buf ? buf + lo : nullptr, hi - lo};
  };
  const std::size_t steps = chunks + static_cast<std::size_t>(n) - 1;
  for (std::size_t k = 0; k < steps; ++k) {
    round r;
    r.kind = step_kind::pipeline;
    // Chunk c reaches position p in step c + p - 1 and leaves it in step c + p.
    if (p > 0 && k + 1 >= static_cast<std::size_t>(p) &&
        k + 1 - static_cast<std::size_t>(p) < chunks) {
      const std::size_t c = k + 1 - static_cast<std::size_t>(p);
      auto [ptr, len] = part(c);
      r.recvs.push_back({abs(p - 1), tag(phase, static_cast<std::uint32_t>(c)), ptr, len});
    }
    if (p < n - 1 && k >= static_cast<std::size_t>(p) && k - static_cast<std::size_t>(p) < chunks) {
      const std::size_t c = k - static_cast<std::size_t>(p);
      auto [ptr, len] = part(c);
      r.sends.push_back({abs(p + 1), tag(phase, static_cast<std::uint32_t>(c)), ptr, len});
    }
    if (!r.sends.empty() || !r.recvs.empty()) s.rounds.push_back(std::move(r));
  }
}

void bcast_hierarchical(schedule& s, const group_state& g, int me, int root, std::byte* buf,
                        std::size_t bytes, std::size_t large) {
  const team lead = leaders(g, me, root);
  if (lead.pos >= 0) {
    const int rp = static_cast<int>(std::find(lead.members.begin(), lead.members.end(), root) -
                                    lead.members.begin());
    if (bytes >= large && lead.size() > 2)
      bcast_scatter_allgather(s, lead, rp, buf, bytes, phase_a);
    else
      bcast_binomial(s, lead, rp, buf, bytes, phase_a);
  }
  // Inside the node, from its leader (the root on the root's node).
  const team node = node_team(g, me);
  const int node_root = lead.member(g.node[static_cast<std::size_t>(me)]);
  const int np = static_cast<int>(std::find(node.members.begin(), node.members.end(), node_root) -
                                  node.members.begin());
  bcast_binomial(s, node, np, buf, bytes, phase_c);
}

namespace {

// What a leader tells its node-mates: where the finished buffer lies in its address space.
struct leader_buffer {
  std::int64_t pid = 0;
  std::uint64_t addr = 0;
};

// The leader's side of the node copy: `tell` sends the address to every node-mate, `collect`
// receives their zero-byte "done" (the buffer must stay until then).
void tell_mates(schedule& s, const team& node, int me, std::byte* buf, std::uint32_t phase) {
  if (node.size() <= 1) return;
  std::byte* note = s.temp(sizeof(leader_buffer));
  if (note) {
    const leader_buffer lb{static_cast<std::int64_t>(getpid()),
                           reinterpret_cast<std::uint64_t>(buf)};
    std::memcpy(note, &lb, sizeof lb);
  }
  round& r = s.add(step_kind::copy_private);
  for (int m : node.members)
    if (m != me) r.sends.push_back({m, tag(phase, 0), note, sizeof(leader_buffer)});
}
void collect_mates(schedule& s, const team& node, int me, std::uint32_t phase) {
  if (node.size() <= 1) return;
  round& r = s.add(step_kind::sync);
  for (int m : node.members)
    if (m != me) r.recvs.push_back({m, tag(phase, 1), nullptr, 0});
}

}  // namespace

void bcast_hybrid(schedule& s, const group_state& g, int me, int root, std::byte* buf,
                  std::size_t bytes, std::size_t chunk) {
  const team lead = leaders(g, me, root);
  const team node = node_team(g, me);
  const int leader = lead.member(g.node[static_cast<std::size_t>(me)]);
  if (lead.pos >= 0) {
    const int rp = static_cast<int>(std::find(lead.members.begin(), lead.members.end(), root) -
                                    lead.members.begin());
    if (me == root) tell_mates(s, node, me, buf, phase_c);  // its buffer is ready now
    if (chunk == 0)
      bcast_scatter_allgather(s, lead, rp, buf, bytes, phase_a);
    else
      bcast_chain(s, lead, rp, buf, bytes, chunk, phase_a);
    if (me != root) tell_mates(s, node, me, buf, phase_c);
    collect_mates(s, node, me, phase_c);
    return;
  }
  // A node-mate: the leader's address, one copy of the whole buffer, then "done".
  std::byte* note = s.temp(sizeof(leader_buffer));
  round& r = s.add(step_kind::copy_private);
  r.recvs.push_back({leader, tag(phase_c, 0), note, sizeof(leader_buffer)});
  const int leader_rank = g.ranks[static_cast<std::size_t>(leader)];
  s.then(
      r,
      [note, buf, bytes, leader_rank] {
        leader_buffer lb;
        std::memcpy(&lb, note, sizeof lb);
        if (const int e = copy_process(lb.pid, buf, lb.addr, bytes); e != 0)
          throw error("gaea::coll: a hybrid broadcast could not copy " + std::to_string(bytes) +
                      " bytes from its node leader (rank " + std::to_string(leader_rank) +
                      ", pid " + std::to_string(lb.pid) +
                      "): process_vm_readv: " + std::strerror(e));
      },
      bytes);
  s.add(step_kind::sync).sends.push_back({leader, tag(phase_c, 1), nullptr, 0});
}

}  // namespace gaea::coll::detail
