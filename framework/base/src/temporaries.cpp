// The registry of live temporaries and the signal handler that removes them (temporaries.hpp).
// The handler only reads memory that exists for the whole run (a fixed table) and only makes
// system calls: no allocation, no locks.
#include "gaea/base/temporaries.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>

namespace gaea {

namespace {

enum slot_state : int { slot_free = 0, slot_busy = 1, slot_live = 2 };
struct slot {
  std::atomic<int> state{slot_free};
  temporary_kind kind = temporary_kind::file;
  char path[PATH_MAX];
};
constexpr int slot_count = 64;
std::array<slot, slot_count> g_slots;

constexpr std::array<int, 3> cleanup_signals{SIGTERM, SIGINT, SIGHUP};
std::array<struct sigaction, cleanup_signals.size()> g_previous{};
// Set while a signal's chain runs. Two chaining handlers re-installed over each other (the
// energy module's and this one) each restore the other: a second entry ends the chain with the
// default disposition instead of passing the signal round for ever.
std::array<std::atomic<int>, cleanup_signals.size()> g_entered{};

// Open MPI's MPI-IO opens a side file "<file>.locktest.<rank>" for a moment while it opens a file
// collectively; a signal in that moment would leave it beside the temporary. Up to this many
// ranks' side files are removed with a temporary file.
constexpr int side_files = 64;
// Directories are emptied this many levels deep (an OTF2 archive has two).
constexpr int max_depth = 6;

void unlink_file(const char* path) noexcept {
  static constexpr char suffix[] = ".locktest.";
  ::unlink(path);
  // "<path>.locktest.<k>", formatted without allocating.
  char name[PATH_MAX + 16];
  std::size_t n = ::strnlen(path, PATH_MAX - 1);
  std::memcpy(name, path, n);
  std::memcpy(name + n, suffix, sizeof suffix - 1);
  n += sizeof suffix - 1;
  for (int k = 0; k < side_files; ++k) {
    std::size_t m = n;
    if (k >= 10) name[m++] = static_cast<char>('0' + k / 10);
    name[m++] = static_cast<char>('0' + k % 10);
    name[m] = '\0';
    ::unlink(name);
  }
}

// Removes what directory `fd` holds (closes fd). getdents64 rather than readdir, which may
// allocate. Entries are removed while the listing is read, so it is read again until a pass
// removes nothing.
void empty_directory(int fd, int depth) noexcept {
  alignas(8) char buf[4096];
  for (int pass = 0; pass < 4; ++pass) {
    bool removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf + off);
        off += e->d_reclen;
        const char* name = e->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        if (::unlinkat(fd, name, 0) == 0) {
          removed = true;
        } else if (errno == EISDIR && depth < max_depth) {
          const int sub = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub >= 0) empty_directory(sub, depth + 1);
          if (::unlinkat(fd, name, AT_REMOVEDIR) == 0) removed = true;
        }
      }
    }
    if (!removed) break;
  }
  ::close(fd);
}

void remove_directory(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  empty_directory(fd, 0);
  ::rmdir(path);
}

extern "C" void on_cleanup_signal(int sig) {
  const int saved = errno;
  remove_temporaries();
  // Back to what was there before (the default ends the process), then deliver the signal
  // again: it stays pending until this handler returns.
  for (std::size_t i = 0; i < cleanup_signals.size(); ++i) {
    if (cleanup_signals[i] != sig) continue;
    if (g_entered[i].exchange(1) == 0) {
      ::sigaction(sig, &g_previous[i], nullptr);
    } else {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      ::sigaction(sig, &dfl, nullptr);
    }
  }
  ::raise(sig);
  errno = saved;
}

}  // namespace

temporary_registration::temporary_registration(const std::filesystem::path& path,
                                               temporary_kind kind) noexcept {
  install_temporary_cleanup();
  std::error_code ec;
  std::string p;
  try {
    p = std::filesystem::absolute(path, ec).string();
  } catch (...) {  // allocation: stay unregistered
    return;
  }
  if (ec || p.empty() || p.size() >= PATH_MAX) return;
  for (int i = 0; i < slot_count; ++i) {
    slot& s = g_slots[static_cast<std::size_t>(i)];
    int expected = slot_free;
    if (!s.state.compare_exchange_strong(expected, slot_busy, std::memory_order_acq_rel)) continue;
    std::memcpy(s.path, p.c_str(), p.size() + 1);
    s.kind = kind;
    s.state.store(slot_live, std::memory_order_release);
    slot_ = i;
    return;
  }
}

temporary_registration& temporary_registration::operator=(temporary_registration&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void temporary_registration::release() noexcept {
  if (slot_ < 0) return;
  g_slots[static_cast<std::size_t>(slot_)].state.store(slot_free, std::memory_order_release);
  slot_ = -1;
}

void install_temporary_cleanup() noexcept {
  static std::mutex m;
  std::lock_guard lock(m);
  for (std::size_t i = 0; i < cleanup_signals.size(); ++i) {
    struct sigaction current {};
    if (::sigaction(cleanup_signals[i], nullptr, &current) != 0) continue;
    const bool plain = (current.sa_flags & SA_SIGINFO) == 0;
    if (plain && current.sa_handler == on_cleanup_signal) continue;
    if (plain && current.sa_handler == SIG_IGN) continue;  // nohup: stays ignored
    g_previous[i] = current;
    g_entered[i].store(0);
    struct sigaction mine {};
    mine.sa_handler = on_cleanup_signal;
    sigemptyset(&mine.sa_mask);
    mine.sa_flags = SA_RESTART;
    ::sigaction(cleanup_signals[i], &mine, nullptr);
  }
}

void remove_temporaries() noexcept {
  for (slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) != slot_live) continue;
    if (s.kind == temporary_kind::directory)
      remove_directory(s.path);
    else
      unlink_file(s.path);
  }
}

}  // namespace gaea
