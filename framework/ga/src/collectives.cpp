#include "collectives.hpp"

#include <cstdint>

#include "gaea/base/error.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

void allreduce(runtime& rt, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  MPI_Request req;
  MPI_Iallreduce(MPI_IN_PLACE, inout, count, type, op, rt.comm().mpi_comm(), &req);
  rt.comm().wait_mpi(req);
}

std::string broadcast(runtime& rt, std::string s, int root) {
  std::uint64_t len = s.size();
  MPI_Request req;
  MPI_Ibcast(&len, 1, MPI_UINT64_T, root, rt.comm().mpi_comm(), &req);
  rt.comm().wait_mpi(req);
  s.resize(len);
  MPI_Ibcast(s.data(), static_cast<int>(len), MPI_CHAR, root, rt.comm().mpi_comm(), &req);
  rt.comm().wait_mpi(req);
  return s;
}

void agree(runtime& rt, const std::string& problem) {
  int first = problem.empty() ? rt.size() : rt.rank();
  allreduce(rt, &first, 1, MPI_INT, MPI_MIN);
  if (first == rt.size()) return;
  throw Error(broadcast(rt, problem, first));
}

}  // namespace gaea::ga::detail
