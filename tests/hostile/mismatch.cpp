// gaea-mismatch: one rank calls a collective with other arguments than the rest, as a buggy
// program would (tests/hostile/cases/agreement.cmake). Every scenario then uses what it made and
// prints what it got, so that a run that is not stopped shows the wrong answer and exits 0.
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gaea-ga/ga.h"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/counters/mutex_set.hpp"
#include "gaea/counters/shared_counter.hpp"
#include "gaea/counters/task_counter.hpp"
#include "gaea/counters/task_pool.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/global_array.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"

namespace {

constexpr const char* usage =
    "usage: gaea-mismatch <scenario>\n"
    "scenarios (rank 1 differs from the others):\n"
    "  extra-array    rank 1 creates an extra array between two collective creations\n"
    "  dims           rank 1 creates the array with dims {100,200}, the others {100,100}\n"
    "  type           rank 1 creates it of float, the others of double\n"
    "  name           rank 1 names it 'B', the others 'A'\n"
    "  pool-n         task_pool::run(150) on rank 1, run(100) on the others\n"
    "  counter-owner  a shared_counter owned by rank 1 says rank 1, by rank 0 say the others\n"
    "  nga-dims       NGA_Create (GA C API) with dims {100,200} on rank 1, {100,100} elsewhere\n"
    "  mutex-count    a mutex_set of 3 mutexes on rank 1, of 2 on the others\n"
    "  task-range     a task_counter over [0, 150) on rank 1, [0, 100) on the others\n"
    "  group-subset   group::subset of world with members {0, 1} on rank 1, {0} elsewhere\n"
    "  write-dataset  ga::write into dataset 'y' on rank 1, 'x' on the others\n"
    "  read-patch     ga::read of the patch [0:49] on rank 1, [0:99] on the others\n";

using gaea::ga::global_array;
using gaea::ga::index;

int run(gaea::runtime& rt, const std::string& scenario) {
  const bool odd = rt.rank() == 1;
  gaea::coll::barrier(gaea::coll::world());
  if (scenario == "extra-array") {
    global_array<double> a("first", {64});
    std::vector<global_array<double>> extra;
    if (odd) extra.emplace_back("extra", index{1000});
    global_array<double> b("second", {64});
    b.fill(2.0);
    std::vector<double> v(64);
    b.get({{0}, {63}}, v);
    std::printf("gaea-mismatch: rank %d read %g from 'second'\n", rt.rank(), v[63]);
  } else if (scenario == "dims") {
    global_array<double> a("A", odd ? index{100, 200} : index{100, 100});
    a.fill(1.0);
    const double d = gaea::ga::dot(a, a);
    std::printf("gaea-mismatch: rank %d dot %g\n", rt.rank(), d);
  } else if (scenario == "type") {
    if (odd) {
      global_array<float> a("A", {100});
      a.fill(1.0F);
    } else {
      global_array<double> a("A", {100});
      a.fill(1.0);
    }
    std::printf("gaea-mismatch: rank %d made its array\n", rt.rank());
  } else if (scenario == "name") {
    global_array<double> a(odd ? "B" : "A", {100});
    a.fill(1.0);
    std::printf("gaea-mismatch: rank %d made '%s'\n", rt.rank(), a.name().c_str());
  } else if (scenario == "pool-n") {
    gaea::counters::task_pool_options opt;
    opt.threads = 1;
    gaea::counters::task_pool pool("P", opt);
    std::atomic<std::int64_t> ran{0};
    pool.run(odd ? 150 : 100, [&](std::int64_t, int) { ran.fetch_add(1); });
    const auto all =
        gaea::coll::allreduce(gaea::coll::world(), ran.load(), gaea::coll::reduce_op::sum);
    std::printf("gaea-mismatch: rank %d: %lld tasks ran\n", rt.rank(), static_cast<long long>(all));
  } else if (scenario == "counter-owner") {
    gaea::counters::shared_counter c("C", odd ? 1 : 0);
    c.fetch_add(1);
    gaea::coll::barrier(gaea::coll::world());
    std::printf("gaea-mismatch: rank %d reads %lld\n", rt.rank(), static_cast<long long>(c.read()));
  } else if (scenario == "mutex-count") {
    gaea::counters::mutex_set m("M", odd ? 3 : 2);
    m.lock(1);
    m.unlock(1);
    std::printf("gaea-mismatch: rank %d made its mutexes\n", rt.rank());
  } else if (scenario == "task-range") {
    gaea::counters::task_counter c("T", odd ? 150 : 100);
    std::int64_t got = 0;
    for (auto r = c.next(); !r.empty(); r = c.next())
      got += r.end - r.begin;
    const auto all = gaea::coll::allreduce(gaea::coll::world(), got, gaea::coll::reduce_op::sum);
    std::printf("gaea-mismatch: rank %d: %lld tasks handed out\n", rt.rank(),
                static_cast<long long>(all));
  } else if (scenario == "group-subset") {
    const std::vector<int> members = odd ? std::vector<int>{0, 1} : std::vector<int>{0};
    const auto g = gaea::coll::world().subset(members, "S");
    std::printf("gaea-mismatch: rank %d: group of %d\n", rt.rank(), g.size());
  } else if (scenario == "write-dataset") {
    global_array<double> a("A", {100});
    a.fill(1.0);
    gaea::ga::write(a, "out.h5", odd ? "y" : "x");
    std::printf("gaea-mismatch: rank %d wrote\n", rt.rank());
  } else if (scenario == "read-patch") {
    global_array<double> a("A", {100});
    a.fill(1.0);
    gaea::ga::write(a, "in.h5", "x");
    gaea::ga::read(a, "in.h5", "x", odd ? gaea::ga::patch{{0}, {49}} : gaea::ga::patch{{0}, {99}});
    std::printf("gaea-mismatch: rank %d read\n", rt.rank());
  } else {
    throw gaea::error("gaea-mismatch: unknown scenario '" + scenario + "'");
  }
  return 0;
}

// The GA C API: NGA_Create with other dims on rank 1, then a dot product.
int run_nga() {
  GA_Initialize();
  int dims[2] = {100, GA_Nodeid() == 1 ? 200 : 100};
  const int g = NGA_Create(C_DBL, 2, dims, "A", nullptr);
  double one = 1.0;
  GA_Fill(g, &one);
  std::printf("gaea-mismatch: rank %d GA_Ddot %g\n", GA_Nodeid(), GA_Ddot(g, g));
  GA_Destroy(g);
  GA_Terminate();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string scenario = argv[1];
  if (scenario == "nga-dims") {
    MPI_Init(&argc, &argv);
    run_nga();
    MPI_Finalize();
    return 0;
  }
  return gaea::run_main("gaea-mismatch", &argc, &argv,
                        [&](gaea::runtime& rt) { return run(rt, scenario); });
}
