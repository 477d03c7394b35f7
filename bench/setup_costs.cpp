// setup_costs: the set-up costs of [PGAS-BGQ Table II] measured on this machine's UCX: context
// (ucp_init) and worker creation, endpoint creation and wire-up per peer, memory region
// (ucp_mem_map + ucp_rkey_pack) and key unpacking per peer, in time and in space.
//
// Every rank keeps one target worker (progressed while others connect to it) and, per repetition,
// makes a fresh origin worker, an endpoint to every other rank's target worker, flushes them
// (wire-up done), unpacks every peer's key, then tears down. Space: heap bytes (mallinfo2) grown
// per object; UCX's shared-memory segments and sockets are not heap and not counted.
// Output (rank 0): medians over repetitions of the per-rank means, as a table and one JSON line.
// Options: --reps R (20), --region BYTES (65536).
#include <malloc.h>
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
long heap_bytes() {
  return static_cast<long>(mallinfo2().uordblks);
}
void check(ucs_status_t st, const char* what) {
  if (st != UCS_OK) {
    std::fprintf(stderr, "setup_costs: %s failed: %s\n", what, ucs_status_string(st));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
// Waits for `req` while progressing both workers (peers connect to our target worker meanwhile).
void wait_req(ucs_status_ptr_t req, ucp_worker_h a, ucp_worker_h b, const char* what) {
  if (req == nullptr) return;
  if (UCS_PTR_IS_ERR(req)) check(UCS_PTR_STATUS(req), what);
  while (ucp_request_check_status(req) == UCS_INPROGRESS) {
    ucp_worker_progress(a);
    ucp_worker_progress(b);
  }
  check(ucp_request_check_status(req), what);
  ucp_request_free(req);
}
// An MPI barrier during which the target worker keeps serving peers' wire-ups.
void barrier(ucp_worker_h w, ucp_worker_h also = nullptr) {
  MPI_Request r;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  int done = 0;
  while (!done) {
    ucp_worker_progress(w);
    if (also) ucp_worker_progress(also);
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
  }
}
std::vector<std::vector<char>> allgather(const void* p, int len) {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  std::vector<int> lens(static_cast<std::size_t>(n)), offs(static_cast<std::size_t>(n));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int i = 0; i < n; ++i) {
    offs[static_cast<std::size_t>(i)] = total;
    total += lens[static_cast<std::size_t>(i)];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(p, len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::vector<char>> out;
  for (int i = 0; i < n; ++i)
    out.emplace_back(
        all.begin() + offs[static_cast<std::size_t>(i)],
        all.begin() + offs[static_cast<std::size_t>(i)] + lens[static_cast<std::size_t>(i)]);
  return out;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct sample {
  double context_us, worker_us, ep_us, wireup_us, map_us, pack_us, unpack_us;
  double ep_bytes, unpack_bytes, region_bytes;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int reps = 20;
  std::size_t region = 65536;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--region") == 0) region = std::strtoull(argv[i + 1], nullptr, 10);
  }
  const char* tls_env = std::getenv("UCX_TLS");
  const bool peer_errors = tls_env && std::strstr(tls_env, "tcp") != nullptr;
  if (n < 2 || reps < 1) {
    if (me == 0) std::fprintf(stderr, "setup_costs: needs 2 or more ranks and --reps >= 1\n");
    MPI_Finalize();
    return 1;
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
  ucp_config_t* cfg = nullptr;
  check(ucp_config_read(nullptr, nullptr, &cfg), "ucp_config_read");

  // The long-lived context, target worker and region every peer connects to.
  ucp_context_h ctx = nullptr;
  check(ucp_init(&params, cfg, &ctx), "ucp_init");
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  ucp_worker_h target = nullptr;
  check(ucp_worker_create(ctx, &wp, &target), "ucp_worker_create");
  ucp_address_t* addr = nullptr;
  std::size_t addr_len = 0;
  check(ucp_worker_get_address(target, &addr, &addr_len), "ucp_worker_get_address");
  const auto addrs = allgather(addr, static_cast<int>(addr_len));
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                  UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  mp.length = region;
  mp.flags = UCP_MEM_MAP_ALLOCATE;
  ucp_mem_h memh = nullptr;
  check(ucp_mem_map(ctx, &mp, &memh), "ucp_mem_map");
  void* packed = nullptr;
  std::size_t packed_len = 0;
  check(ucp_rkey_pack(ctx, memh, &packed, &packed_len), "ucp_rkey_pack");
  const auto keys = allgather(packed, static_cast<int>(packed_len));

  std::vector<sample> samples;
  for (int r = 0; r < reps; ++r) {
    sample s{};
    // Context and worker: what a rank pays once (or per extra context).
    double t0 = now_us();
    ucp_context_h c2 = nullptr;
    check(ucp_init(&params, cfg, &c2), "ucp_init");
    s.context_us = now_us() - t0;
    t0 = now_us();
    ucp_worker_h origin = nullptr;
    check(ucp_worker_create(ctx, &wp, &origin), "ucp_worker_create");
    s.worker_us = now_us() - t0;
    // Memory region: map (allocating) and pack.
    ucp_mem_h m2 = nullptr;
    const long h_region = heap_bytes();
    t0 = now_us();
    check(ucp_mem_map(ctx, &mp, &m2), "ucp_mem_map");
    s.map_us = now_us() - t0;
    void* p2 = nullptr;
    std::size_t l2 = 0;
    t0 = now_us();
    check(ucp_rkey_pack(ctx, m2, &p2, &l2), "ucp_rkey_pack");
    s.pack_us = now_us() - t0;
    s.region_bytes = static_cast<double>(heap_bytes() - h_region);
    barrier(target);
    // Endpoints to every peer, then wire-up (a flush), then every peer's key.
    std::vector<ucp_ep_h> eps;
    const long h_ep = heap_bytes();
    t0 = now_us();
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      ucp_ep_params_t ep{};
      // Peer error handling where the transports have it (as Gaea's off-node endpoints): it
      // allows a forced close; shared memory has none.
      ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
      if (peer_errors) {
        ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
        ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      }
      ep.address =
          reinterpret_cast<const ucp_address_t*>(addrs[static_cast<std::size_t>(p)].data());
      ucp_ep_h e = nullptr;
      check(ucp_ep_create(origin, &ep, &e), "ucp_ep_create");
      eps.push_back(e);
    }
    s.ep_us = (now_us() - t0) / (n - 1);
    s.ep_bytes = static_cast<double>(heap_bytes() - h_ep) / (n - 1);
    t0 = now_us();
    ucp_request_param_t rp{};
    wait_req(ucp_worker_flush_nbx(origin, &rp), origin, target, "ucp_worker_flush");
    s.wireup_us = (now_us() - t0) / (n - 1);
    std::vector<ucp_rkey_h> rkeys;
    const long h_key = heap_bytes();
    t0 = now_us();
    for (int p = 0, i = 0; p < n; ++p) {
      if (p == me) continue;
      ucp_rkey_h k = nullptr;
      check(ucp_ep_rkey_unpack(eps[static_cast<std::size_t>(i++)],
                               keys[static_cast<std::size_t>(p)].data(), &k),
            "ucp_ep_rkey_unpack");
      rkeys.push_back(k);
    }
    s.unpack_us = (now_us() - t0) / (n - 1);
    s.unpack_bytes = static_cast<double>(heap_bytes() - h_key) / (n - 1);
    for (ucp_rkey_h k : rkeys)
      ucp_rkey_destroy(k);
    barrier(target, origin);  // every peer's wire-up finished on both sides
    for (ucp_ep_h e : eps) {
      ucp_request_param_t cp{};
      cp.op_attr_mask = peer_errors ? UCP_OP_ATTR_FIELD_FLAGS : 0;
      cp.flags = peer_errors ? UCP_EP_CLOSE_FLAG_FORCE : 0;
      ucs_status_ptr_t req = ucp_ep_close_nbx(e, &cp);
      if (req != nullptr && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS) {
          ucp_worker_progress(origin);
          ucp_worker_progress(target);
        }
        ucp_request_free(req);  // a reset by a peer closing too is not an error here
      }
    }
    barrier(target, origin);
    ucp_worker_destroy(origin);
    ucp_rkey_buffer_release(p2);
    ucp_mem_unmap(ctx, m2);
    ucp_cleanup(c2);
    samples.push_back(s);
  }
  // Per rank medians, then the mean over ranks on rank 0.
  auto med = [&](double sample::*f) {
    std::vector<double> v;
    for (const sample& s : samples)
      v.push_back(s.*f);
    double m = median(v), sum = 0;
    MPI_Reduce(&m, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum / n;
  };
  const double context_us = med(&sample::context_us), worker_us = med(&sample::worker_us),
               ep_us = med(&sample::ep_us), wireup_us = med(&sample::wireup_us),
               map_us = med(&sample::map_us), pack_us = med(&sample::pack_us),
               unpack_us = med(&sample::unpack_us), ep_bytes = med(&sample::ep_bytes),
               unpack_bytes = med(&sample::unpack_bytes), region_bytes = med(&sample::region_bytes);
  if (me == 0) {
    const char* tls = std::getenv("UCX_TLS");
    std::printf(
        "setup costs, %d ranks, UCX_TLS=%s, %d reps, region %zu B (medians, mean over ranks)\n", n,
        tls ? tls : "(default)", reps, region);
    std::printf("  context (ucp_init)        %10.1f us\n", context_us);
    std::printf("  worker create             %10.1f us   address %zu B\n", worker_us, addr_len);
    std::printf("  endpoint create / peer    %10.2f us   heap %8.0f B\n", ep_us, ep_bytes);
    std::printf("  endpoint wire-up / peer   %10.2f us\n", wireup_us);
    std::printf("  mem_map (allocate)        %10.2f us\n", map_us);
    std::printf("  rkey_pack                 %10.2f us   packed %zu B, heap %0.f B\n", pack_us,
                packed_len, region_bytes);
    std::printf("  rkey unpack / peer        %10.2f us   heap %8.0f B\n", unpack_us, unpack_bytes);
    std::printf(
        "{\"bench\":\"setup_costs\",\"ranks\":%d,\"tls\":\"%s\",\"reps\":%d,\"context_us\":%.1f,"
        "\"worker_us\":%.1f,\"address_bytes\":%zu,\"ep_us\":%.2f,\"ep_heap_bytes\":%.0f,"
        "\"wireup_us\":%.2f,\"mem_map_us\":%.2f,\"rkey_pack_us\":%.2f,\"packed_rkey_bytes\":%zu,"
        "\"rkey_unpack_us\":%.2f,\"rkey_heap_bytes\":%.0f}\n",
        n, tls ? tls : "", reps, context_us, worker_us, addr_len, ep_us, ep_bytes, wireup_us,
        map_us, pack_us, packed_len, unpack_us, unpack_bytes);
  }
  ucp_rkey_buffer_release(packed);
  barrier(target);
  ucp_mem_unmap(ctx, memh);
  ucp_worker_release_address(target, addr);
  ucp_worker_destroy(target);
  ucp_cleanup(ctx);
  ucp_config_release(cfg);
  MPI_Finalize();
  return 0;
}
