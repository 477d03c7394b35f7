#pragma once
// Allgather of variable-length byte blobs over MPI (set-up and collective allocation: addresses
// and packed remote keys). Non-blocking collectives finished by `wait`, so that a rank waiting
// here can keep serving its peers (see context::wait_mpi).

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace gaea::comm::detail {

using mpi_wait = std::function<void(MPI_Request&)>;

inline void plain_wait(MPI_Request& r) {
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

std::vector<std::vector<std::byte>> allgather_bytes(MPI_Comm comm,
                                                    const std::vector<std::byte>& mine,
                                                    const mpi_wait& wait = plain_wait);

template <class T>
std::vector<T> allgather_value(MPI_Comm comm, const T& mine, const mpi_wait& wait = plain_wait) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<T> all(static_cast<std::size_t>(n));
  MPI_Request req;
  MPI_Iallgather(&mine, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, comm, &req);
  wait(req);
  return all;
}

}  // namespace gaea::comm::detail
