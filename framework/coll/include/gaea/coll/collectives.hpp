#pragma once
/// \file
/// The collectives of gaea::coll on contiguous buffers, blocking and non-blocking, over any
/// group. They run on Gaea's transport (UCX active messages): every wait in them keeps serving
/// peers (progress thread or not), so a rank waiting in a collective never stalls one-sided
/// traffic aimed at it.
///
/// Common contract of every function here:
///   - collective over `g`: every member calls it, in the same order relative to the group's
///     other collectives, with matching arguments (same root, counts, operation, algorithm);
///   - mismatched arguments found by any member make the call throw gaea::error on every member
///     that takes part (the message names the group, the call and both values), never hang;
///   - the blocking form returns when this rank's part is complete (buffers usable); the
///     `nonblocking` form returns a request (see request.hpp);
///   - called by a rank outside `g`, or with a bad root: gaea::error on that rank;
///   - a rooted call (reduce, gather, scatter) by a member that is not the root leaves the root's
///     buffer arguments alone (`all`, `out` may be empty there);
///   - sizes are 64-bit; messages larger than the transport's limit are split.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gaea/coll/group.hpp"
#include "gaea/coll/options.hpp"
#include "gaea/coll/request.hpp"

namespace gaea::coll {

/// Reduction operators. land/lor: integral and bool elements (non-zero is true, the result is
/// 0 or 1); min/max: not on complex numbers. Other combinations throw gaea::error.
enum class reduce_op : std::uint8_t { sum, prod, min, max, land, lor };
/// Text names of the reduction operators, in value order.
inline constexpr enum_name<reduce_op> reduce_op_names[] = {
    {reduce_op::sum, "sum"}, {reduce_op::prod, "prod"}, {reduce_op::min, "min"},
    {reduce_op::max, "max"}, {reduce_op::land, "land"}, {reduce_op::lor, "lor"}};
/// Name table of reduce_op for gaea::to_string and gaea::parse.
constexpr enum_names<reduce_op> enum_names_of(reduce_op) noexcept {
  return {"reduction operator", reduce_op_names};
}
/// Text name of `op` ("sum", "prod", "min", "max", "land", "lor").
constexpr std::string_view to_string(reduce_op op) noexcept {
  return gaea::to_string<reduce_op>(op);
}

/// Any type copied as bytes (broadcast, gathers, all-to-all).
template <class T>
concept transferable = std::is_trivially_copyable_v<T>;

namespace detail {
enum class elem : std::uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, c64, c128, bool8 };
template <class T>
constexpr bool is_reducible_v = std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> ||
                                std::is_same_v<T, std::complex<double>>;
template <class T>
constexpr elem elem_of() {
  static_assert(is_reducible_v<T> && !std::is_same_v<T, long double>,
                "coll reductions take integers, float, double, bool or std::complex<float|double>");
  if constexpr (std::is_same_v<T, bool>)
    return elem::bool8;
  else if constexpr (std::is_same_v<T, float>)
    return elem::f32;
  else if constexpr (std::is_same_v<T, double>)
    return elem::f64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return elem::c64;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return elem::c128;
  else if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1)
      return elem::i8;
    else if constexpr (sizeof(T) == 2)
      return elem::i16;
    else if constexpr (sizeof(T) == 4)
      return elem::i32;
    else
      return elem::i64;
  } else {
    if constexpr (sizeof(T) == 1)
      return elem::u8;
    else if constexpr (sizeof(T) == 2)
      return elem::u16;
    else if constexpr (sizeof(T) == 4)
      return elem::u32;
    else
      return elem::u64;
  }
}

// `blocking`: the caller waits for the request at once, so a small shared-memory call may run
// to completion inside the start (an empty request is returned then).
request start_barrier(const group& g, const options& o, bool blocking = false);
request start_broadcast(const group& g, std::byte* buf, std::size_t bytes, int root,
                        const options& o, bool blocking = false);
/// all = allreduce (out on every member, root ignored).
request start_reduce(const group& g, const std::byte* in, std::byte* out, std::size_t count, elem e,
                     reduce_op op, int root, bool all, const options& o, bool blocking = false);
/// counts: elements per member (empty = every member gives `mine_count`); elem_size in bytes.
request start_allgather(const group& g, const std::byte* mine, std::size_t mine_count,
                        std::byte* all, std::size_t all_count, std::span<const std::int64_t> counts,
                        std::size_t elem_size, const options& o, bool blocking = false);
/// Every member's `mine` to `all` on `root` (counts as start_allgather's).
request start_gather(const group& g, const std::byte* mine, std::size_t mine_count, std::byte* all,
                     std::size_t all_count, std::span<const std::int64_t> counts,
                     std::size_t elem_size, int root, const options& o, bool blocking = false);
/// The root's `all` cut into every member's `mine` (counts as start_allgather's).
request start_scatter(const group& g, const std::byte* all, std::size_t all_count, std::byte* mine,
                      std::size_t mine_count, std::span<const std::int64_t> counts,
                      std::size_t elem_size, int root, const options& o);
/// Uniform when every span is empty (`block` elements to and from each member).
request start_alltoall(const group& g, const std::byte* send, std::size_t send_count,
                       std::byte* recv, std::size_t recv_count, std::size_t block,
                       std::span<const std::int64_t> send_counts,
                       std::span<const std::int64_t> send_displs,
                       std::span<const std::int64_t> recv_counts,
                       std::span<const std::int64_t> recv_displs, std::size_t elem_size,
                       const options& o, bool blocking = false);

template <class T>
std::byte* bytes_of(std::span<T> s) {
  return reinterpret_cast<std::byte*>(s.data());
}
template <class T>
const std::byte* bytes_of(std::span<const T> s) {
  return reinterpret_cast<const std::byte*>(s.data());
}
}  // namespace detail

/// Returns when every member has entered the barrier. Also completes nothing else: one-sided
/// operations need their own fences (runtime::barrier flushes this thread's puts first).
inline void barrier(const group& g, const options& o = {}) {
  detail::start_barrier(g, o, true).wait();
}
/// Non-blocking form: returns a request that completes once every member has entered.
inline request barrier(const group& g, nonblocking_t, const options& o = {}) {
  return detail::start_barrier(g, o);
}

/// `buf` of member `root` is copied into `buf` of every member (same size everywhere).
template <transferable T>
request broadcast(const group& g, std::span<T> buf, int root, nonblocking_t,
                  const options& o = {}) {
  return detail::start_broadcast(g, detail::bytes_of(buf), buf.size_bytes(), root, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void broadcast(const group& g, std::span<T> buf, int root, const options& o = {}) {
  detail::start_broadcast(g, detail::bytes_of(buf), buf.size_bytes(), root, o, true).wait();
}
/// `s` as member `root` has it, on every member (the length travels first).
std::string broadcast(const group& g, std::string s, int root);

/// Element-wise reduction of every member's `in` into `out` on member `root` (`out` ignored on
/// the others; may alias `in` on the root). Same count on every member.
template <class T>
request reduce(const group& g, std::span<const T> in, std::span<T> out, reduce_op op, int root,
               nonblocking_t, const options& o = {}) {
  return detail::start_reduce(g, detail::bytes_of(in), detail::bytes_of(out), in.size(),
                              detail::elem_of<T>(), op, root, false, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <class T>
void reduce(const group& g, std::span<const T> in, std::span<T> out, reduce_op op, int root,
            const options& o = {}) {
  detail::start_reduce(g, detail::bytes_of(in), detail::bytes_of(out), in.size(),
                       detail::elem_of<T>(), op, root, false, o, true)
      .wait();
}

/// In place: `inout` becomes the element-wise reduction over all members, identical on all.
template <class T>
request allreduce(const group& g, std::span<T> inout, reduce_op op, nonblocking_t,
                  const options& o = {}) {
  return detail::start_reduce(g, detail::bytes_of(inout), detail::bytes_of(inout), inout.size(),
                              detail::elem_of<T>(), op, 0, true, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <class T>
void allreduce(const group& g, std::span<T> inout, reduce_op op, const options& o = {}) {
  detail::start_reduce(g, detail::bytes_of(inout), detail::bytes_of(inout), inout.size(),
                       detail::elem_of<T>(), op, 0, true, o, true)
      .wait();
}
/// One value: the reduction of `value` over all members.
template <class T>
T allreduce(const group& g, T value, reduce_op op, const options& o = {}) {
  allreduce(g, std::span<T>(&value, 1), op, o);
  return value;
}

/// Member i's `mine` lands at all[i * mine.size()]; all.size() == mine.size() * g.size().
template <transferable T>
request allgather(const group& g, std::span<const T> mine, std::span<T> all, nonblocking_t,
                  const options& o = {}) {
  return detail::start_allgather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all),
                                 all.size(), {}, sizeof(T), o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void allgather(const group& g, std::span<const T> mine, std::span<T> all, const options& o = {}) {
  detail::start_allgather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all), all.size(),
                          {}, sizeof(T), o, true)
      .wait();
}
/// One value per member, in member order.
template <transferable T>
std::vector<T> allgather(const group& g, const T& mine, const options& o = {}) {
  std::vector<T> all(static_cast<std::size_t>(g.size()));
  allgather(g, std::span<const T>(&mine, 1), std::span<T>(all), o);
  return all;
}
/// Member i contributes counts[i] elements (its `mine`), stored consecutively in member order;
/// all.size() == sum(counts). `counts` is the same on every member (a different one is a
/// mismatch: gaea::error).
template <transferable T>
request allgatherv(const group& g, std::span<const T> mine, std::span<T> all,
                   std::span<const std::int64_t> counts, nonblocking_t, const options& o = {}) {
  return detail::start_allgather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all),
                                 all.size(), counts, sizeof(T), o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void allgatherv(const group& g, std::span<const T> mine, std::span<T> all,
                std::span<const std::int64_t> counts, const options& o = {}) {
  detail::start_allgather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all), all.size(),
                          counts, sizeof(T), o, true)
      .wait();
}

/// Gather to one member: member i's `mine` lands at all[i * mine.size()] on member `root`. On
/// the root all.size() == mine.size() * g.size() (else gaea::error on every member); on the
/// others `all` is not touched and may be empty. Same mine.size() on every member. Algorithms:
/// binomial or linear (default rule in framework/coll/README.md).
template <transferable T>
request gather(const group& g, std::span<const T> mine, std::span<T> all, int root, nonblocking_t,
               const options& o = {}) {
  return detail::start_gather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all),
                              all.size(), {}, sizeof(T), root, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void gather(const group& g, std::span<const T> mine, std::span<T> all, int root,
            const options& o = {}) {
  detail::start_gather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all), all.size(),
                       {}, sizeof(T), root, o, true)
      .wait();
}
/// One value per member, in member order, on `root`; an empty vector on the others.
template <transferable T>
std::vector<T> gather(const group& g, const T& mine, int root, const options& o = {}) {
  std::vector<T> all(g.rank() == root ? static_cast<std::size_t>(g.size()) : 0);
  gather(g, std::span<const T>(&mine, 1), std::span<T>(all), root, o);
  return all;
}
/// Member i contributes counts[i] elements (its `mine`, zero allowed), stored consecutively in
/// member order in `all` on `root` (all.size() == sum(counts) there; ignored elsewhere).
/// `counts` is the same on every member (a different one is a mismatch: gaea::error).
template <transferable T>
request gatherv(const group& g, std::span<const T> mine, std::span<T> all,
                std::span<const std::int64_t> counts, int root, nonblocking_t,
                const options& o = {}) {
  return detail::start_gather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all),
                              all.size(), counts, sizeof(T), root, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void gatherv(const group& g, std::span<const T> mine, std::span<T> all,
             std::span<const std::int64_t> counts, int root, const options& o = {}) {
  detail::start_gather(g, detail::bytes_of(mine), mine.size(), detail::bytes_of(all), all.size(),
                       counts, sizeof(T), root, o, true)
      .wait();
}

/// Scatter from one member: all[i * mine.size() .. + mine.size()) of member `root` lands in
/// member i's `mine`. On the root all.size() == mine.size() * g.size() (else gaea::error on
/// every member); elsewhere `all` is not read and may be empty. Same mine.size() on every member.
/// Algorithms: binomial or linear (default rule in framework/coll/README.md).
template <transferable T>
request scatter(const group& g, std::span<const T> all, std::span<T> mine, int root, nonblocking_t,
                const options& o = {}) {
  return detail::start_scatter(g, detail::bytes_of(all), all.size(), detail::bytes_of(mine),
                               mine.size(), {}, sizeof(T), root, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void scatter(const group& g, std::span<const T> all, std::span<T> mine, int root,
             const options& o = {}) {
  scatter(g, all, mine, root, nonblocking, o).wait();
}
/// Member i receives counts[i] elements (zero allowed) into its `mine` (mine.size() ==
/// counts[i]), taken consecutively in member order from `all` on `root` (all.size() ==
/// sum(counts) there; not read elsewhere). `counts` is the same on every member.
template <transferable T>
request scatterv(const group& g, std::span<const T> all, std::span<const std::int64_t> counts,
                 std::span<T> mine, int root, nonblocking_t, const options& o = {}) {
  return detail::start_scatter(g, detail::bytes_of(all), all.size(), detail::bytes_of(mine),
                               mine.size(), counts, sizeof(T), root, o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void scatterv(const group& g, std::span<const T> all, std::span<const std::int64_t> counts,
              std::span<T> mine, int root, const options& o = {}) {
  scatterv(g, all, counts, mine, root, nonblocking, o).wait();
}

/// Block j of `send` (send.size() / g.size() elements) goes to member j, and block i of `recv`
/// comes from member i. send.size() == recv.size(), a multiple of g.size().
template <transferable T>
request alltoall(const group& g, std::span<const T> send, std::span<T> recv, nonblocking_t,
                 const options& o = {}) {
  const std::size_t p = static_cast<std::size_t>(g.size() > 0 ? g.size() : 1);
  return detail::start_alltoall(g, detail::bytes_of(send), send.size(), detail::bytes_of(recv),
                                recv.size(), send.size() / p, {}, {}, {}, {}, sizeof(T), o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void alltoall(const group& g, std::span<const T> send, std::span<T> recv, const options& o = {}) {
  const std::size_t p = static_cast<std::size_t>(g.size() > 0 ? g.size() : 1);
  detail::start_alltoall(g, detail::bytes_of(send), send.size(), detail::bytes_of(recv),
                         recv.size(), send.size() / p, {}, {}, {}, {}, sizeof(T), o, true)
      .wait();
}
/// Member j receives send[send_displs[j] .. + send_counts[j]) into its recv[recv_displs[i] ..
/// + recv_counts[i]) where i is this member; counts and displacements in elements, one per
/// member, checked against the buffers (gaea::error).
template <transferable T>
request alltoallv(const group& g, std::span<const T> send,
                  std::span<const std::int64_t> send_counts,
                  std::span<const std::int64_t> send_displs, std::span<T> recv,
                  std::span<const std::int64_t> recv_counts,
                  std::span<const std::int64_t> recv_displs, nonblocking_t, const options& o = {}) {
  return detail::start_alltoall(g, detail::bytes_of(send), send.size(), detail::bytes_of(recv),
                                recv.size(), 0, send_counts, send_displs, recv_counts, recv_displs,
                                sizeof(T), o);
}
/// Blocking form of the call above: returns when this rank's part is complete.
template <transferable T>
void alltoallv(const group& g, std::span<const T> send, std::span<const std::int64_t> send_counts,
               std::span<const std::int64_t> send_displs, std::span<T> recv,
               std::span<const std::int64_t> recv_counts, std::span<const std::int64_t> recv_displs,
               const options& o = {}) {
  alltoallv(g, send, send_counts, send_displs, recv, recv_counts, recv_displs, nonblocking, o)
      .wait();
}

/// Empty when algorithm `a` can run `op` on `g` (uniform: equal blocks, as alltoall, not
/// alltoallv), else why not — what a call with options::algo = a would throw. Not collective;
/// `g` must be a group of the live runtime. (shm: only on a group within one node.)
std::string cannot_run(const group& g, algorithm a, operation op, bool uniform = true);

/// Collective verdict: `problem` is this rank's error (empty when fine). When any member has
/// one, every member throws gaea::error with the message of the lowest such member, so that no
/// member goes on into work that the others have abandoned.
void agree(const group& g, const std::string& problem);

}  // namespace gaea::coll
