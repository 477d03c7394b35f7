#include "detail/mpi_exchange.hpp"

#include <cstdint>
#include <limits>

#include "gaea/base/error.hpp"

namespace gaea::comm::detail {

std::vector<std::vector<std::byte>> allgather_bytes(MPI_Comm comm,
                                                    const std::vector<std::byte>& mine,
                                                    const mpi_wait& wait) {
  if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("gaea::comm: address blob of " + std::to_string(mine.size()) + " bytes too large");
  const auto lens =
      allgather_value<std::int64_t>(comm, static_cast<std::int64_t>(mine.size()), wait);
  std::vector<int> counts(lens.size()), displs(lens.size());
  std::int64_t total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    counts[i] = static_cast<int>(lens[i]);
    displs[i] = static_cast<int>(total);
    total += lens[i];
  }
  std::vector<std::byte> flat(static_cast<std::size_t>(total));
  MPI_Request req;
  MPI_Iallgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, flat.data(), counts.data(),
                  displs.data(), MPI_BYTE, comm, &req);
  wait(req);
  std::vector<std::vector<std::byte>> out(lens.size());
  for (std::size_t i = 0; i < lens.size(); ++i)
    out[i].assign(flat.begin() + displs[i], flat.begin() + displs[i] + counts[i]);
  return out;
}

}  // namespace gaea::comm::detail
