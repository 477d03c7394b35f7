// Gather to and scatter from a root: a binomial tree, whose interior positions forward their
// whole subtree's parts in one message (as MPICH and Open MPI do for gather), and the linear
// form, where the root talks to every position directly.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "detail/builders.hpp"

namespace gaea::coll::detail {

namespace {

// The parts in tree order: relative position j (0 is the root) is team position
// (j + root) % n, and sum[j] counts the bytes of the relative positions below j, so that a
// subtree [lo, hi) is one contiguous range of an interior position's buffer.
class tree_layout {
 public:
  tree_layout(int n, int root, std::span<const std::size_t> sizes)
      : n_(n), root_(root), sum_(static_cast<std::size_t>(n) + 1, 0) {
    for (int j = 0; j < n; ++j)
      sum_[static_cast<std::size_t>(j) + 1] =
          sum_[static_cast<std::size_t>(j)] + sizes[static_cast<std::size_t>(pos(j))];
  }
  int pos(int rel) const noexcept { return (rel + root_) % n_; }
  std::size_t below(int rel) const noexcept { return sum_[static_cast<std::size_t>(rel)]; }
  std::size_t bytes(int lo, int hi) const noexcept { return below(hi) - below(lo); }
  /// One past the last relative position of `rel`'s subtree (the root's is everything).
  int subtree_end(int rel) const noexcept {
    return rel == 0 ? n_ : std::min(rel + (rel & -rel), n_);
  }
  /// The relative positions whose parent is `rel`, nearest first.
  std::vector<int> children(int rel) const {
    std::vector<int> out;
    for (int mask = 1; mask < n_ && (rel & mask) == 0; mask <<= 1)
      if (rel + mask < n_) out.push_back(rel + mask);
    return out;
  }
  int parent(int rel) const noexcept { return rel - (rel & -rel); }
  /// [lo, hi) cut where it wraps past the last team position: the pieces that are consecutive in
  /// the root's member-ordered buffer (one piece, or two).
  std::vector<std::pair<int, int>> straight_pieces(int lo, int hi) const {
    const int wrap = n_ - root_;  // relative position of team position 0
    if (root_ == 0 || hi <= wrap || lo >= wrap) return {{lo, hi}};
    return {{lo, wrap}, {wrap, hi}};
  }

 private:
  int n_, root_;
  std::vector<std::size_t> sum_;
};

std::byte* at(std::byte* base, std::size_t off) {
  return base ? base + off : nullptr;
}

// A copy of `bytes` once round `r` is done (none in shape-only mode).
void copy_after(schedule& s, round& r, std::byte* dst, const std::byte* src, std::size_t bytes) {
  s.then(
      r,
      [=] {
        if (bytes && dst != src) std::memmove(dst, src, bytes);
      },
      bytes);
}

}  // namespace

void gather_binomial(schedule& s, const team& t, int root_pos, const std::byte* mine,
                     std::byte* all, std::span<const std::size_t> offsets,
                     std::span<const std::size_t> sizes, std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const tree_layout l(n, root_pos, sizes);
  const int rel = (t.pos - root_pos + n) % n;
  const std::size_t own = sizes[static_cast<std::size_t>(t.pos)];
  const std::vector<int> kids = l.children(rel);
  if (rel == 0) {
    // Subtrees that are consecutive in member order land in place; one that wraps past the last
    // position comes through a temporary and is cut in two.
    round& r = s.add(kids.empty() ? step_kind::local_copy : step_kind::tree);
    for (int c : kids) {
      const int end = l.subtree_end(c);
      const auto pieces = l.straight_pieces(c, end);
      const int from = t.member(l.pos(c));
      if (pieces.size() == 1) {
        r.recvs.push_back({from, tag(phase, 0),
                           at(all, offsets[static_cast<std::size_t>(l.pos(c))]), l.bytes(c, end)});
        continue;
      }
      std::byte* tmp = s.temp(l.bytes(c, end));
      r.recvs.push_back({from, tag(phase, 0), tmp, l.bytes(c, end)});
      for (auto [a, b] : pieces)
        copy_after(s, r, at(all, offsets[static_cast<std::size_t>(l.pos(a))]),
                   at(tmp, l.below(a) - l.below(c)), l.bytes(a, b));
    }
    copy_after(s, r, at(all, offsets[static_cast<std::size_t>(t.pos)]), mine, own);
    return;
  }
  const int up = t.member(l.pos(l.parent(rel)));
  if (kids.empty()) {
    s.add(step_kind::tree).sends.push_back({up, tag(phase, 0), const_cast<std::byte*>(mine), own});
    return;
  }
  // Interior: the subtree's parts in tree order, own part first, then each child's subtree.
  const int end = l.subtree_end(rel);
  std::byte* buf = s.temp(l.bytes(rel, end));
  round& r = s.add(step_kind::tree);
  for (int c : kids)
    r.recvs.push_back({t.member(l.pos(c)), tag(phase, 0), at(buf, l.below(c) - l.below(rel)),
                       l.bytes(c, l.subtree_end(c))});
  copy_after(s, r, buf, mine, own);
  s.add(step_kind::tree).sends.push_back({up, tag(phase, 0), buf, l.bytes(rel, end)});
}

void gather_linear(schedule& s, const team& t, int root_pos, const std::byte* mine, std::byte* all,
                   std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                   std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const std::size_t own = sizes[static_cast<std::size_t>(t.pos)];
  if (t.pos != root_pos) {
    s.add(step_kind::exchange)
        .sends.push_back({t.member(root_pos), tag(phase, 0), const_cast<std::byte*>(mine), own});
    return;
  }
  round& r = s.add(n > 1 ? step_kind::exchange : step_kind::local_copy);
  for (int p = 0; p < n; ++p)
    if (p != root_pos)
      r.recvs.push_back({t.member(p), tag(phase, 0), at(all, offsets[static_cast<std::size_t>(p)]),
                         sizes[static_cast<std::size_t>(p)]});
  copy_after(s, r, at(all, offsets[static_cast<std::size_t>(root_pos)]), mine, own);
}

void scatter_binomial(schedule& s, const team& t, int root_pos, const std::byte* all,
                      std::byte* mine, std::span<const std::size_t> offsets,
                      std::span<const std::size_t> sizes, std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const tree_layout l(n, root_pos, sizes);
  const int rel = (t.pos - root_pos + n) % n;
  const std::size_t own = sizes[static_cast<std::size_t>(t.pos)];
  const std::vector<int> kids = l.children(rel);
  // The sends go largest subtree first, so that the deepest branch starts earliest.
  if (rel == 0) {
    auto* src = const_cast<std::byte*>(all);  // sends only read it
    std::vector<std::byte*> from(kids.size());
    round* pack = nullptr;  // a subtree that wraps is packed into tree order first
    for (std::size_t k = 0; k < kids.size(); ++k) {
      const int c = kids[k], end = l.subtree_end(c);
      const auto pieces = l.straight_pieces(c, end);
      if (pieces.size() == 1) {
        from[k] = at(src, offsets[static_cast<std::size_t>(l.pos(c))]);
        continue;
      }
      from[k] = s.temp(l.bytes(c, end));
      if (!pack) pack = &s.add(step_kind::local_copy);
      for (auto [a, b] : pieces)
        copy_after(s, *pack, at(from[k], l.below(a) - l.below(c)),
                   at(src, offsets[static_cast<std::size_t>(l.pos(a))]), l.bytes(a, b));
    }
    round& r = s.add(kids.empty() ? step_kind::local_copy : step_kind::scatter);
    for (std::size_t k = kids.size(); k-- > 0;)
      r.sends.push_back({t.member(l.pos(kids[k])), tag(phase, 0), from[k],
                         l.bytes(kids[k], l.subtree_end(kids[k]))});
    copy_after(s, r, mine, at(src, offsets[static_cast<std::size_t>(t.pos)]), own);
    return;
  }
  const int up = t.member(l.pos(l.parent(rel)));
  const int end = l.subtree_end(rel);
  std::byte* buf = kids.empty() ? mine : s.temp(l.bytes(rel, end));
  round& r = s.add(step_kind::scatter);
  r.recvs.push_back({up, tag(phase, 0), buf, l.bytes(rel, end)});
  if (kids.empty()) return;
  copy_after(s, r, mine, buf, own);
  round& x = s.add(step_kind::scatter);
  for (std::size_t k = kids.size(); k-- > 0;)
    x.sends.push_back({t.member(l.pos(kids[k])), tag(phase, 0),
                       at(buf, l.below(kids[k]) - l.below(rel)),
                       l.bytes(kids[k], l.subtree_end(kids[k]))});
}

void scatter_linear(schedule& s, const team& t, int root_pos, const std::byte* all, std::byte* mine,
                    std::span<const std::size_t> offsets, std::span<const std::size_t> sizes,
                    std::uint32_t phase) {
  const int n = t.size();
  if (t.pos < 0) return;
  const std::size_t own = sizes[static_cast<std::size_t>(t.pos)];
  if (t.pos != root_pos) {
    s.add(step_kind::exchange).recvs.push_back({t.member(root_pos), tag(phase, 0), mine, own});
    return;
  }
  auto* src = const_cast<std::byte*>(all);  // sends only read it
  round& r = s.add(n > 1 ? step_kind::exchange : step_kind::local_copy);
  for (int p = 0; p < n; ++p)
    if (p != root_pos)
      r.sends.push_back({t.member(p), tag(phase, 0), at(src, offsets[static_cast<std::size_t>(p)]),
                         sizes[static_cast<std::size_t>(p)]});
  copy_after(s, r, mine, at(src, offsets[static_cast<std::size_t>(root_pos)]), own);
}

}  // namespace gaea::coll::detail
