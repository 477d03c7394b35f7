// The arbiter's table: creating or attaching the POSIX shared-memory object of (job key, node),
// the robust lock, the outcome of the ranks' requests, and leaving (normally, on a fatal signal,
// or found dead by another rank).

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <new>
#include <string>
#include <thread>

#include "detail/arbiter_table.hpp"
#include "detail/cpu_info.hpp"
#include "detail/fd_io.hpp"
#include "detail/restore_registry.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy {

namespace vote = detail::vote;

namespace {

constexpr std::uint32_t table_magic = 0x47414152;  // "GAAR", stored last by the creator
constexpr std::uint32_t table_version = 1;
constexpr std::size_t max_key = 64;
// Rank states in the table.
constexpr std::int32_t state_none = 0, state_attached = 1, state_withdrawn = 2, state_left = 3;

constexpr std::size_t align_up(std::size_t n) noexcept {
  return (n + 63) / 64 * 64;
}

// Every rank of a node computes the same count: the table's layout depends on it.
int table_cpu_count() noexcept {
  const long conf = sysconf(_SC_NPROCESSORS_CONF);
  return static_cast<int>(std::max<long>(conf, CPU_SETSIZE));
}

bool process_gone(pid_t pid) noexcept {
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

struct arbiter::header {
  std::atomic<std::uint32_t> ready{0};
  std::uint32_t version = table_version;
  std::int32_t local_ranks = 0;
  std::int32_t cpus = 0;
  pthread_mutex_t mutex;
  std::atomic<std::uint64_t> epoch{0};
  std::int32_t left = 0;  // ranks that left or were found dead; guarded by mutex
};

struct arbiter::rank_entry {
  std::atomic<std::int32_t> pid{0};
  std::atomic<std::int32_t> state{state_none};
};

namespace {

struct layout {
  std::size_t ranks, applied, votes, bytes;
};

layout layout_for(int ranks, int cpus, std::size_t header_bytes, std::size_t rank_bytes) {
  layout l{};
  l.ranks = align_up(header_bytes);
  l.applied = align_up(l.ranks + rank_bytes * static_cast<std::size_t>(ranks));
  l.votes = align_up(l.applied + sizeof(std::uint32_t) * static_cast<std::size_t>(cpus));
  l.bytes = align_up(l.votes + sizeof(std::uint32_t) * static_cast<std::size_t>(cpus) *
                                   static_cast<std::size_t>(ranks));
  return l;
}

void check_config(const arbiter_config& cfg, int table_cpus) {
  const std::string who = "DVFS/throttle arbiter of job '" + cfg.job_key + "'";
  if (cfg.job_key.empty() || cfg.job_key.size() > max_key ||
      !std::all_of(cfg.job_key.begin(), cfg.job_key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
      }))
    throw error(who + ": the job key must be 1-64 letters, digits, '-' or '_'");
  if (cfg.local_ranks < 1 || cfg.local_rank < 0 || cfg.local_rank >= cfg.local_ranks)
    throw error(who + ": local rank " + std::to_string(cfg.local_rank) + " is outside 0.." +
                std::to_string(cfg.local_ranks - 1) + " (local_ranks " +
                std::to_string(cfg.local_ranks) + ")");
  for (int c : cfg.cpus)
    if (c < 0 || c >= table_cpus)
      throw error(who + ": CPU " + std::to_string(c) + " is outside 0.." +
                  std::to_string(table_cpus - 1));
}

}  // namespace

arbiter::arbiter(const arbiter_config& cfg) : me_(cfg.local_rank), ranks_(cfg.local_ranks) {
  table_cpus_ = table_cpu_count();
  check_config(cfg, table_cpus_);
  pid_ = getpid();
  cpus_ = cfg.cpus;
  std::sort(cpus_.begin(), cpus_.end());
  cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
  mine_.assign(static_cast<std::size_t>(table_cpus_), 0);
  for (int c : cpus_)
    mine_[static_cast<std::size_t>(c)] = 1;
  name_ = "/gaea-arbiter-" + std::to_string(getuid()) + "-" + cfg.job_key + "-n" +
          std::to_string(cfg.node);
  const layout l = layout_for(ranks_, table_cpus_, sizeof(header), sizeof(rank_entry));
  bytes_ = l.bytes;
  const std::string who = "DVFS/throttle arbiter table " + name_;

  const std::int64_t deadline = detail::now_ns() + cfg.attach_timeout_ns;
  auto wait_a_bit = [&](const std::string& what) {
    if (detail::now_ns() > deadline)
      throw error(who + ": " + what + " after " + std::to_string(cfg.attach_timeout_ns / 1000000) +
                  " ms (the rank that creates it died or uses another layout?)");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  bool creator = false;
  detail::unique_fd fd;
  for (;;) {
    fd = detail::unique_fd(shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600));
    if (fd) {
      creator = true;
      if (ftruncate(fd.get(), static_cast<off_t>(bytes_)) != 0) {
        const int e = errno;
        shm_unlink(name_.c_str());
        throw error(who + ": ftruncate to " + std::to_string(bytes_) +
                    " bytes: " + detail::error_text(e));
      }
      break;
    }
    if (errno != EEXIST) throw error(who + ": shm_open: " + detail::error_text(errno));
    fd = detail::unique_fd(shm_open(name_.c_str(), O_RDWR, 0));
    if (fd) break;
    if (errno != ENOENT) throw error(who + ": shm_open: " + detail::error_text(errno));
    wait_a_bit("vanished while attaching");  // unlinked in between: try to create it again
  }
  if (!creator)
    for (struct stat st{};;) {  // the creator's ftruncate gives it its size
      if (fstat(fd.get(), &st) != 0) throw error(who + ": fstat: " + detail::error_text(errno));
      if (static_cast<std::size_t>(st.st_size) == bytes_) break;
      if (st.st_size != 0)
        throw error(who + ": its size is " + std::to_string(st.st_size) +
                    " bytes, this rank expects " + std::to_string(bytes_) + " (" +
                    std::to_string(ranks_) +
                    " local ranks): created by another version or for another rank count");
      wait_a_bit("still empty");
    }
  map_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    if (creator) shm_unlink(name_.c_str());
    throw error(who + ": mmap: " + detail::error_text(errno));
  }
  char* base = static_cast<char*>(map_);
  // Zero-filled by ftruncate: every atomic there reads 0, as constructed.
  rank_table_ = reinterpret_cast<rank_entry*>(base + l.ranks);
  applied_ = reinterpret_cast<std::atomic<std::uint32_t>*>(base + l.applied);
  votes_ = reinterpret_cast<std::atomic<std::uint32_t>*>(base + l.votes);
  try {
    if (creator) {
      h_ = new (map_) header;
      h_->local_ranks = ranks_;
      h_->cpus = table_cpus_;
      pthread_mutexattr_t attr;
      pthread_mutexattr_init(&attr);
      pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
      pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
      const int rc = pthread_mutex_init(&h_->mutex, &attr);
      pthread_mutexattr_destroy(&attr);
      if (rc != 0) throw error(who + ": pthread_mutex_init: " + detail::error_text(rc));
      h_->ready.store(table_magic, std::memory_order_release);
    } else {
      h_ = static_cast<header*>(map_);
      while (h_->ready.load(std::memory_order_acquire) != table_magic)
        wait_a_bit("not initialised");
      if (h_->version != table_version || h_->local_ranks != ranks_ || h_->cpus != table_cpus_)
        throw error(who + ": created for " + std::to_string(h_->local_ranks) + " local ranks and " +
                    std::to_string(h_->cpus) + " CPUs (version " + std::to_string(h_->version) +
                    "), this rank has " + std::to_string(ranks_) + " and " +
                    std::to_string(table_cpus_) + " (version " + std::to_string(table_version) +
                    ")");
    }
    guard g(*this);
    rank_entry& r = rank_of(me_);
    const std::int32_t st = r.state.load();
    const pid_t other = r.pid.load();
    if ((st == state_attached || st == state_withdrawn) && !process_gone(other))
      throw error(who + ": local rank " + std::to_string(me_) + " is already attached by process " +
                  std::to_string(other));
    r.pid.store(pid_);
    r.state.store(state_attached);
    for (int c : cpus_)
      vote_of(c, me_).store(vote::present, std::memory_order_release);
    sweep_dead();
  } catch (...) {
    munmap(map_, bytes_);
    if (creator) shm_unlink(name_.c_str());
    throw;
  }
  hook_ = detail::add_exit_hook(&arbiter::on_exit, this);
  if (cfg.install_signal_handlers) detail::install_fatal_signal_handlers();
}

arbiter::~arbiter() {
  detail::remove_exit_hook(hook_);
  bool last = false;
  try {
    guard g(*this);
    for (int c : cpus_)
      vote_of(c, me_).store(0, std::memory_order_release);
    rank_entry& r = rank_of(me_);
    if (r.state.load() != state_left) {
      r.state.store(state_left);
      ++h_->left;
    }
    h_->epoch.fetch_add(1);
    sweep_dead();
    last = h_->left >= ranks_;
  } catch (...) {  // the lock failed: withdraw without it, as the signal path does
    on_exit(this);
  }
  munmap(map_, bytes_);
  if (last) shm_unlink(name_.c_str());
}

arbiter::guard::guard(arbiter& a) : a_(a) {
  a_.lock();
}
arbiter::guard::~guard() {
  a_.unlock();
}

void arbiter::lock() {
  const int rc = pthread_mutex_lock(&h_->mutex);
  if (rc == EOWNERDEAD) {  // its holder died: whatever it was writing is one word, written whole
    pthread_mutex_consistent(&h_->mutex);
    sweep_dead();
    return;
  }
  if (rc != 0)
    throw error("DVFS/throttle arbiter table " + name_ + ": locking: " + detail::error_text(rc));
}

void arbiter::unlock() noexcept {
  pthread_mutex_unlock(&h_->mutex);
}

bool arbiter::mine(int cpu) const noexcept {
  return cpu >= 0 && cpu < table_cpus_ && mine_[static_cast<std::size_t>(cpu)] != 0;
}

std::atomic<std::uint32_t>& arbiter::vote_of(int cpu, int rank) const noexcept {
  return votes_[static_cast<std::size_t>(cpu) * static_cast<std::size_t>(ranks_) +
                static_cast<std::size_t>(rank)];
}

std::atomic<std::uint32_t>& arbiter::applied_of(int cpu) const noexcept {
  return applied_[static_cast<std::size_t>(cpu)];
}

arbiter::rank_entry& arbiter::rank_of(int rank) const noexcept {
  return rank_table_[rank];
}

std::uint32_t arbiter::my_vote(int cpu) const noexcept {
  return mine(cpu) ? vote_of(cpu, me_).load(std::memory_order_acquire) : 0;
}

void arbiter::set_my_vote(int cpu, std::uint32_t v) noexcept {
  if (mine(cpu)) vote_of(cpu, me_).store(v | vote::present, std::memory_order_release);
}

std::uint32_t arbiter::outcome(int cpu) const noexcept {
  bool any = false, all_low = true;
  int level = throttle_levels - 1;
  for (int r = 0; r < ranks_; ++r) {
    const std::uint32_t v = vote_of(cpu, r).load(std::memory_order_acquire);
    if ((v & vote::present) == 0) continue;
    any = true;
    all_low = all_low && vote::low(v);
    level = std::min(level, vote::level(v));
  }
  if (!any) return 0;
  return vote::with_level(all_low ? vote::calls_low : 0u, level);
}

std::uint32_t arbiter::applied(int cpu) const noexcept {
  return cpu >= 0 && cpu < table_cpus_ ? applied_of(cpu).load(std::memory_order_acquire) : 0;
}

void arbiter::set_applied(int cpu, std::uint32_t v) noexcept {
  if (cpu >= 0 && cpu < table_cpus_) applied_of(cpu).store(v, std::memory_order_release);
}

std::uint64_t arbiter::epoch() const noexcept {
  return h_->epoch.load(std::memory_order_acquire);
}

void arbiter::unlink_name() noexcept {
  shm_unlink(name_.c_str());  // ENOENT: another rank did it
}

bool arbiter::sweep_due() const noexcept {
  return detail::now_ns() - last_sweep_ns_.load(std::memory_order_relaxed) >= 1'000'000;
}

void arbiter::sweep_if_due() noexcept {
  if (sweep_due()) sweep_dead();
}

void arbiter::sweep_dead() noexcept {
  last_sweep_ns_.store(detail::now_ns(), std::memory_order_relaxed);
  for (int r = 0; r < ranks_; ++r) {
    if (r == me_) continue;
    rank_entry& e = rank_of(r);
    const std::int32_t st = e.state.load();
    if ((st != state_attached && st != state_withdrawn) || !process_gone(e.pid.load())) continue;
    for (int c = 0; c < table_cpus_; ++c)
      vote_of(c, r).store(0, std::memory_order_release);
    e.state.store(state_left);
    ++h_->left;
    h_->epoch.fetch_add(1);
  }
}

void arbiter::on_exit(void* self) noexcept {
  auto* a = static_cast<arbiter*>(self);
  if (getpid() != a->pid_) return;  // a forked child leaves its parent's requests alone
  for (int c : a->cpus_)
    a->vote_of(c, a->me_).store(0, std::memory_order_release);
  std::int32_t attached = state_attached;
  a->rank_of(a->me_).state.compare_exchange_strong(attached, state_withdrawn);
  a->h_->epoch.fetch_add(1);
}

std::shared_ptr<arbiter> attach_arbiter(const arbiter_config& cfg) {
  if (cfg.local_ranks <= 1) return nullptr;
  return std::make_shared<arbiter>(cfg);
}

void unlink_name(arbiter& a) noexcept {
  a.unlink_name();
}

}  // namespace gaea::energy
