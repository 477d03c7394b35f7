#include "test_support.hpp"

namespace gaea::test {

std::vector<std::int64_t> allgather(std::int64_t mine) {
  rt().barrier();
  std::vector<std::int64_t> all(static_cast<std::size_t>(rt().size()));
  MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  return all;
}

std::vector<double> allgather(double mine) {
  rt().barrier();
  std::vector<double> all(static_cast<std::size_t>(rt().size()));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

bool all(bool mine) {
  rt().barrier();
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

}  // namespace gaea::test
