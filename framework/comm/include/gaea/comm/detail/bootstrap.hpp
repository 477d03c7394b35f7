#pragma once
/// \file
/// Internal (not API): collective exchanges over MPI used to set Gaea up (worker addresses, packed
/// keys, CPU bindings) and to collect its outputs (traces, verdicts). They are non-blocking
/// collectives finished by `wait`, so that a rank waiting here can keep serving its peers (pass
/// context::wait_mpi once traffic can flow).

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gaea/base/error.hpp"

namespace gaea::comm::detail {

/// Finishes a non-blocking MPI request.
using mpi_wait = std::function<void(MPI_Request&)>;
// MPI's int counts and displacements of parts of `bytes` each, laid end to end (callers have
// checked that the total fits an int).
inline std::pair<std::vector<int>, std::vector<int>> counts_and_displacements(
    const std::vector<std::int64_t>& bytes) {
  std::vector<int> counts(bytes.size()), displs(bytes.size());
  std::int64_t at = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    counts[i] = static_cast<int>(bytes[i]);
    displs[i] = static_cast<int>(at);
    at += bytes[i];
  }
  return {std::move(counts), std::move(displs)};
}

inline void plain_wait(MPI_Request& r) {
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/// Every rank's `mine`, in rank order. Collective over `comm`. Throws gaea::error if a rank's
/// value is too large for MPI's int counts.
template <class T>
std::vector<T> allgather_value(MPI_Comm comm, const T& mine, const mpi_wait& wait = plain_wait) {
  static_assert(std::is_trivially_copyable_v<T>);
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<T> all(static_cast<std::size_t>(n));
  MPI_Request req;
  MPI_Iallgather(&mine, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, comm, &req);
  wait(req);
  return all;
}

/// Every rank's vector `mine` (lengths may differ), in rank order. Collective over `comm`.
/// Any sizes: when the total exceeds `single_call_limit` bytes (default: MPI's int counts,
/// 2 GiB), each rank's part is broadcast in chunks of at most that size instead.
template <class T>
std::vector<std::vector<T>> allgatherv(
    MPI_Comm comm, const std::vector<T>& mine, const mpi_wait& wait = plain_wait,
    std::int64_t single_call_limit = std::numeric_limits<int>::max()) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t my_bytes = mine.size() * sizeof(T);
  const auto bytes = allgather_value<std::int64_t>(comm, static_cast<std::int64_t>(my_bytes), wait);
  std::int64_t total = 0;
  for (std::int64_t b : bytes)
    total += b;
  std::vector<std::vector<T>> out(bytes.size());
  if (total > single_call_limit) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const auto chunk = static_cast<std::size_t>(std::max<std::int64_t>(1, single_call_limit));
    for (std::size_t r = 0; r < bytes.size(); ++r) {
      out[r].resize(static_cast<std::size_t>(bytes[r]) / sizeof(T));
      if (static_cast<int>(r) == me) out[r] = mine;
      auto* p = reinterpret_cast<std::byte*>(out[r].data());
      for (std::size_t at = 0; at < static_cast<std::size_t>(bytes[r]); at += chunk) {
        const std::size_t n = std::min(chunk, static_cast<std::size_t>(bytes[r]) - at);
        MPI_Request req;
        MPI_Ibcast(p + at, static_cast<int>(n), MPI_BYTE, static_cast<int>(r), comm, &req);
        wait(req);
      }
    }
    return out;
  }
  const auto [counts, displs] = counts_and_displacements(bytes);
  std::vector<std::byte> flat(static_cast<std::size_t>(total));
  MPI_Request req;
  MPI_Iallgatherv(mine.data(), static_cast<int>(my_bytes), MPI_BYTE, flat.data(), counts.data(),
                  displs.data(), MPI_BYTE, comm, &req);
  wait(req);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out[i].resize(static_cast<std::size_t>(bytes[i]) / sizeof(T));
    if (!out[i].empty())
      std::memcpy(out[i].data(), flat.data() + displs[i], static_cast<std::size_t>(bytes[i]));
  }
  return out;
}

/// Every rank's vector `mine` (lengths may differ), in rank order, on `root` only: the other
/// ranks get an empty result, and no rank but `root` holds more than its own part (what
/// allgatherv would cost every rank). Collective over `comm`. Any sizes: when the total exceeds
/// `single_call_limit` bytes (default: MPI's int counts, 2 GiB), each rank sends its part to
/// `root` point to point, in chunks of at most that size, on a duplicate of `comm` (so that no
/// message of the caller can match).
template <class T>
std::vector<std::vector<T>> gatherv(
    MPI_Comm comm, const std::vector<T>& mine, int root, const mpi_wait& wait = plain_wait,
    std::int64_t single_call_limit = std::numeric_limits<int>::max()) {
  static_assert(std::is_trivially_copyable_v<T>);
  int me = 0, n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const bool is_root = me == root;
  const auto my_bytes = static_cast<std::int64_t>(mine.size() * sizeof(T));
  std::vector<std::int64_t> bytes(is_root ? static_cast<std::size_t>(n) : 0);
  MPI_Request req;
  MPI_Igather(&my_bytes, 1, MPI_INT64_T, bytes.data(), 1, MPI_INT64_T, root, comm, &req);
  wait(req);
  // Only the root knows the total: it tells the others which path to take.
  std::int64_t total = 0;
  for (std::int64_t b : bytes)
    total += b;
  int chunked = is_root && total > single_call_limit ? 1 : 0;
  MPI_Ibcast(&chunked, 1, MPI_INT, root, comm, &req);
  wait(req);
  std::vector<std::vector<T>> out(bytes.size());
  for (std::size_t r = 0; r < bytes.size(); ++r)
    out[r].resize(static_cast<std::size_t>(bytes[r]) / sizeof(T));
  if (chunked) {
    MPI_Comm dup;
    MPI_Comm_idup(comm, &dup, &req);
    wait(req);
    const auto chunk = static_cast<std::size_t>(std::max<std::int64_t>(1, single_call_limit));
    const auto move = [&](std::byte* p, std::size_t size, int peer) {
      for (std::size_t at = 0; at < size; at += chunk) {
        const int k = static_cast<int>(std::min(chunk, size - at));
        if (is_root)
          MPI_Irecv(p + at, k, MPI_BYTE, peer, 0, dup, &req);
        else
          MPI_Isend(p + at, k, MPI_BYTE, peer, 0, dup, &req);
        wait(req);
      }
    };
    if (is_root) {
      for (int r = 0; r < n; ++r)
        if (r == me)
          out[static_cast<std::size_t>(r)] = mine;
        else
          move(reinterpret_cast<std::byte*>(out[static_cast<std::size_t>(r)].data()),
               static_cast<std::size_t>(bytes[static_cast<std::size_t>(r)]), r);
    } else {
      // MPI_Isend takes a const buffer; the cast only satisfies `move`'s shared signature.
      move(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(mine.data())),
           static_cast<std::size_t>(my_bytes), root);
    }
    MPI_Comm_free(&dup);
    return out;
  }
  const auto [counts, displs] = counts_and_displacements(bytes);
  std::vector<std::byte> flat(static_cast<std::size_t>(total));
  MPI_Igatherv(mine.data(), static_cast<int>(my_bytes), MPI_BYTE, flat.data(), counts.data(),
               displs.data(), MPI_BYTE, root, comm, &req);
  wait(req);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!out[i].empty())
      std::memcpy(out[i].data(), flat.data() + displs[i], static_cast<std::size_t>(bytes[i]));
  return out;
}

/// `root`'s vector `mine` on every rank (the others' `mine` is ignored). Collective over `comm`.
/// Throws gaea::error on every rank alike if it exceeds MPI's int counts.
template <class T>
std::vector<T> broadcast(MPI_Comm comm, const std::vector<T>& mine, int root,
                         const mpi_wait& wait = plain_wait) {
  static_assert(std::is_trivially_copyable_v<T>);
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::int64_t bytes = me == root ? static_cast<std::int64_t>(mine.size() * sizeof(T)) : 0;
  MPI_Request req;
  MPI_Ibcast(&bytes, 1, MPI_INT64_T, root, comm, &req);
  wait(req);
  if (bytes > std::numeric_limits<int>::max())
    throw error("gaea::comm: broadcast of " + std::to_string(bytes) + " bytes from rank " +
                std::to_string(root) + " exceeds MPI's int counts");
  std::vector<T> out =
      me == root ? mine : std::vector<T>(static_cast<std::size_t>(bytes) / sizeof(T));
  MPI_Ibcast(out.data(), static_cast<int>(bytes), MPI_BYTE, root, comm, &req);
  wait(req);
  return out;
}

}  // namespace gaea::comm::detail
