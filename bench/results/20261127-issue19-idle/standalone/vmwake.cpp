// Reaction to a message over loopback TCP or shared memory, outside Gaea: the receiver spins
// throughout, or sleeps until `lead` before the expected arrival and spins from there, or blocks
// in poll(). Sender: absolute-time sleeps at a fixed gap. Prints the median reaction per gap.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}
static void sleep_until(int64_t ns) {
  timespec t{time_t(ns / 1000000000), long(ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) == EINTR) {
  }
}
static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  sched_setaffinity(0, sizeof s, &s);
}
struct shm_slot {
  std::atomic<int64_t> seq{0};
  std::atomic<int64_t> sent{0};
};

int main(int argc, char** argv) {
  const std::string tr = argc > 1 ? argv[1] : "tcp";     // tcp | shm
  const std::string mode = argc > 2 ? argv[2] : "spin";  // spin | lead | poll
  const int64_t gap = (argc > 3 ? atoll(argv[3]) : 5000) * 1000;
  const int64_t lead = (argc > 4 ? atoll(argv[4]) : 60) * 1000;
  const int n = argc > 5 ? atoi(argv[5]) : 40;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  auto* slot = static_cast<shm_slot*>(
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  new (slot) shm_slot;
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  bind(lfd, (sockaddr*)&a, sizeof a);
  socklen_t al = sizeof a;
  getsockname(lfd, (sockaddr*)&a, &al);
  listen(lfd, 1);
  const int64_t t0 = now_ns() + 50000000;  // schedule start, shared by fork
  pid_t pid = fork();
  if (pid == 0) {  // sender
    pin(1);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connect(fd, (sockaddr*)&a, sizeof a);
    for (int i = 0; i < n; ++i) {
      sleep_until(t0 + (i + 1) * gap);
      const int64_t t = now_ns();
      if (tr == "tcp") {
        if (send(fd, &t, sizeof t, 0) != sizeof t) _exit(1);
      } else {
        slot->sent.store(t);
        slot->seq.store(i + 1, std::memory_order_release);
      }
    }
    sleep(1);
    _exit(0);
  }
  pin(0);
  int fd = accept(lfd, nullptr, nullptr);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<double> r;
  for (int i = 0; i < n; ++i) {
    const int64_t expected = t0 + (i + 1) * gap;
    if (mode == "lead") sleep_until(expected - lead);
    int64_t sent = 0, seen = 0;
    if (tr == "tcp") {
      if (mode == "poll") {
        pollfd p{fd, POLLIN, 0};
        poll(&p, 1, -1);
      }
      for (;;) {
        ssize_t k = recv(fd, &sent, sizeof sent, MSG_DONTWAIT);
        if (k == (ssize_t)sizeof sent) break;
      }
      seen = now_ns();
    } else {
      while (slot->seq.load(std::memory_order_acquire) < i + 1) {
        if (mode == "poll") usleep(0);
      }
      seen = now_ns();
      sent = slot->sent.load();
    }
    if (i >= 3) r.push_back((seen - sent) / 1000.0);
  }
  waitpid(pid, nullptr, 0);
  std::sort(r.begin(), r.end());
  printf("%s %s gap_us=%lld lead_us=%lld median_us=%.1f p90_us=%.1f\n", tr.c_str(), mode.c_str(),
         (long long)(gap / 1000), (long long)(lead / 1000), r[r.size() / 2], r[r.size() * 9 / 10]);
}
