// Helpers of the multi-rank tests on gaea::coll: gather a value from all ranks, agree on a verdict.

#include "test_support.hpp"

#include "gaea/coll/collectives.hpp"

namespace gaea::test {

std::vector<std::int64_t> allgather(std::int64_t mine) {
  return coll::allgather(coll::world(), mine);
}

std::vector<double> allgather(double mine) {
  return coll::allgather(coll::world(), mine);
}

bool all(bool mine) {
  return coll::allreduce(coll::world(), mine, coll::reduce_op::land);
}

}  // namespace gaea::test
