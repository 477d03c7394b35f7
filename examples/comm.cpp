// gaea::comm: the transport under everything, used directly. Each rank exposes a segment of
// remotely accessible memory; every rank puts a message into its right neighbour's segment, then
// takes a ticket from a 64-bit fetch-add on rank 0's segment. After a barrier each rank reads
// what its left neighbour wrote (a get from its own segment works like any other) and checks
// it, and rank 0 checks that the tickets add up.
//   mpirun -np 4 gaea-example-comm
#include <cstdint>
#include <cstdio>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/runtime/runtime.hpp"

int main(int argc, char** argv) {
  return gaea::run_main("gaea-example-comm", &argc, &argv, [](gaea::runtime& rt) {
    const int me = rt.rank(), p = rt.size();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    // Layout of every rank's segment: [0] the ticket counter (used on rank 0), [1] the message.
    constexpr std::uint64_t counter_at = 0, message_at = sizeof(std::int64_t);
    gaea::comm::segment seg(rt.comm(), 2 * sizeof(std::int64_t), "example");  // collective
    gaea::comm::worker& w = rt.worker();  // this thread's transport worker
    gaea::comm::completion c;             // counts this thread's operations in flight

    const std::int64_t message = 1000 + me;
    w.put(right, seg, message_at, &message, sizeof message, c);
    std::int64_t ticket = -1;
    w.fetch_add(0, seg, counter_at, 1, &ticket, c);
    rt.wait(c);    // both are done at the origin (the ticket has arrived)
    rt.barrier();  // flushes the puts everywhere, then synchronises

    std::int64_t got = -1;
    w.get(me, seg, message_at, &got, sizeof got, c);
    rt.wait(c);
    int bad = got != 1000 + left;
    bad += ticket < 0 || ticket >= p;

    if (me == 0) {
      std::int64_t tickets = -1;
      w.get(0, seg, counter_at, &tickets, sizeof tickets, c);
      rt.wait(c);
      bad += tickets != p;
      std::printf(
          "comm: %d ranks, rank 0 got %lld from rank %d, %lld tickets handed out, "
          "transport to rank %d: %s: %s\n",
          p, static_cast<long long>(got), left, static_cast<long long>(tickets), right,
          w.transports(right).c_str(), bad == 0 ? "ok" : "FAILED");
    }
    rt.barrier();  // nobody frees the segment while a peer may still read it
    return bad == 0 ? 0 : 1;
  });
}
