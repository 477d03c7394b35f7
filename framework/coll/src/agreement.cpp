// gaea::coll::agree_on: checks that a collective call got the same arguments on every member
// (call_record, its encoding, and the message naming the first difference).

#include "gaea/coll/agreement.hpp"

#include <array>
#include <cstring>

#include "detail/group_state.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea::coll {

call_record::call_record(std::string_view object, std::string_view name, std::string_view call)
    : parts_{std::string(object), std::string(name), std::string(call)} {}

call_record& call_record::add(std::string_view field, std::string value) {
  parts_.emplace_back(field);
  parts_.push_back(std::move(value));
  return *this;
}

namespace {

// A record on the wire: the group's agreed-call number, then each part as length and bytes.
struct decoded {
  std::uint64_t seq = 0;
  std::vector<std::string> parts;
};

void put_u64(std::string& out, std::uint64_t v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.append(b, sizeof v);
}

std::string encode(std::uint64_t seq, const std::vector<std::string>& parts) {
  std::string out;
  put_u64(out, seq);
  for (const std::string& p : parts) {
    put_u64(out, p.size());
    out += p;
  }
  return out;
}

decoded decode(std::string_view in) {
  decoded d;
  auto get_u64 = [&in] {
    std::uint64_t v = 0;
    if (in.size() < sizeof v) throw error("gaea::coll::agree_on: a truncated record");
    std::memcpy(&v, in.data(), sizeof v);
    in.remove_prefix(sizeof v);
    return v;
  };
  d.seq = get_u64();
  while (!in.empty()) {
    const std::uint64_t n = get_u64();
    if (n > in.size()) throw error("gaea::coll::agree_on: a truncated record");
    d.parts.emplace_back(in.substr(0, n));
    in.remove_prefix(n);
  }
  return d;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

const std::string& part(const decoded& d, std::size_t i) {
  static const std::string none = "(nothing)";
  return i < d.parts.size() ? d.parts[i] : none;
}

// The message every member throws: member 0's record against the first one that differs.
std::string mismatch(const group& g, const std::vector<decoded>& all) {
  std::size_t b = 1;
  while (b < all.size() && all[b].seq == all[0].seq && all[b].parts == all[0].parts)
    ++b;
  const decoded& x = all[0];
  const decoded& y = all[b];
  const std::string ra = "rank " + std::to_string(g.world_rank(0));
  const std::string rb = "rank " + std::to_string(g.world_rank(static_cast<int>(b)));
  auto what = [](const decoded& d) {
    return part(d, 0) + " '" + part(d, 1) + "' (" + part(d, 2) + ")";
  };
  const bool same_call = x.seq == y.seq && part(x, 0) == part(y, 0) && part(x, 2) == part(y, 2);
  if (same_call && part(x, 1) != part(y, 1))
    return part(x, 0) + " " + part(x, 2) + " as '" + part(x, 1) + "' on " + ra + " but as '" +
           part(y, 1) + "' on " + rb +
           " (every rank must pass the same name; or a rank made a collective call the others "
           "did not)";
  if (!same_call)
    return "collective calls out of step on group '" + g.name() + "': " + ra + "'s agreed call #" +
           std::to_string(x.seq) + " is " + what(x) + ", " + rb + "'s #" + std::to_string(y.seq) +
           " is " + what(y) + " (a rank made a collective call the others did not, or skipped one)";
  for (std::size_t i = 3; i < std::max(x.parts.size(), y.parts.size()); i += 2)
    if (part(x, i) != part(y, i) || part(x, i + 1) != part(y, i + 1))
      return part(x, 0) + " '" + part(x, 1) + "': " + part(x, 2) + " with " + part(x, i) + " " +
             part(x, i + 1) + " on " + ra + " but " +
             (part(x, i) == part(y, i) ? "" : part(y, i) + " ") + part(y, i + 1) + " on " + rb;
  return "gaea::coll::agree_on: records differ in no argument";  // a digest collision
}

}  // namespace

void agree_on(const group& g, const call_record& r) {
  const auto& st = detail::group_access::state(g);
  if (!st || st->me < 0)
    throw error("gaea::coll: " + r.parts()[0] + " '" + r.parts()[1] + "' (" + r.parts()[2] +
                ") on group '" + g.name() + "' by a rank that is not a member");
  // The group's count of agreed calls travels in the record, so that a mismatch says which
  // call each rank was at.
  const std::uint64_t seq = ++st->agreed_calls;
  const std::string mine = encode(seq, r.parts());
  const std::uint64_t h = fnv1a(mine);
  // min of (h, ~h) gives the smallest and (complemented) the largest digest in one allreduce.
  std::array<std::uint64_t, 2> v{h, ~h};
  allreduce(g, std::span<std::uint64_t>(v), reduce_op::min);
  if (v[0] == ~v[1]) return;
  const std::vector<std::int64_t> lengths = allgather(g, static_cast<std::int64_t>(mine.size()));
  std::int64_t total = 0;
  for (const std::int64_t n : lengths)
    total += n;
  std::string all(static_cast<std::size_t>(total), '\0');
  allgatherv(g, std::span<const char>(mine), std::span<char>(all), lengths);
  std::vector<decoded> records;
  std::size_t at = 0;
  for (const std::int64_t n : lengths) {
    records.push_back(decode(std::string_view(all).substr(at, static_cast<std::size_t>(n))));
    at += static_cast<std::size_t>(n);
  }
  throw error(mismatch(g, records));
}

}  // namespace gaea::coll
