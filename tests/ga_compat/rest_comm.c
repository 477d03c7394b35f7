/* GA 5.9's GA_Initialize_comm: GA on half of the job's ranks, then on the other half (as GA's
 * comm_init test), each half checking its size, ranks and a put/get round trip. */
#include <mpi.h>

#include "check.h"
#include "ga-mpi.h"
#include "ga.h"

static void run_on(MPI_Comm comm, int expected_size) {
  CHECK(GA_Initialize_comm(comm) == 1, "GA_Initialize_comm");
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int me = GA_Nodeid(), n = GA_Nnodes();
  CHECK(me == rank && n == expected_size, "GA rank %d of %d; expected %d of %d", me, n, rank,
        expected_size);
  int size = 0;
  MPI_Comm_size(GA_MPI_Comm(), &size);
  CHECK(size == expected_size, "GA_MPI_Comm has %d ranks", size);
  int dims[1] = {8 * n}, lo[1] = {8 * ((me + 1) % n)}, hi[1] = {8 * ((me + 1) % n) + 7};
  int g = NGA_Create(C_INT, 1, dims, "half", NULL);
  int v[8], w[8];
  for (int i = 0; i < 8; ++i)
    v[i] = lo[0] + i;
  NGA_Put(g, lo, hi, v, NULL);
  GA_Sync();
  NGA_Get(g, lo, hi, w, NULL);
  for (int i = 0; i < 8; ++i)
    CHECK(w[i] == v[i], "element %d is %d", lo[0] + i, w[i]);
  GA_Destroy(g);
  GA_Terminate();
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int color = rank < size / 2 ? 0 : 1;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  int half_size;
  MPI_Comm_size(half, &half_size);
  for (int turn = 0; turn < 2; ++turn) {
    if (color == turn) run_on(half, half_size);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&half);
  if (rank == 0) printf("rest_comm: passed on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
