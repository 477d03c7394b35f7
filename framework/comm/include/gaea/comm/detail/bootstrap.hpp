#pragma once
/// \file
/// Internal (not API): collective exchanges over MPI used to set Gaea up (worker addresses, packed
/// keys, CPU bindings). They are non-blocking collectives finished by `wait`, so that a rank
/// waiting here can keep serving its peers (pass context::wait_mpi once traffic can flow).

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gaea/base/error.hpp"

namespace gaea::comm::detail {

/// Finishes a non-blocking MPI request.
using mpi_wait = std::function<void(MPI_Request&)>;
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
  std::vector<int> counts(bytes.size()), displs(bytes.size());
  std::int64_t at = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    counts[i] = static_cast<int>(bytes[i]);
    displs[i] = static_cast<int>(at);
    at += bytes[i];
  }
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

}  // namespace gaea::comm::detail
