#pragma once
// Allgather of variable-length byte blobs over MPI (used only at set-up and collective
// allocation: addresses and packed remote keys).

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace gaea::comm::detail {

std::vector<std::vector<std::byte>> allgather_bytes(MPI_Comm comm,
                                                    const std::vector<std::byte>& mine);

template <class T>
std::vector<T> allgather_value(MPI_Comm comm, const T& mine) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<T> all(static_cast<std::size_t>(n));
  MPI_Allgather(&mine, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, comm);
  return all;
}

}  // namespace gaea::comm::detail
