// A group's shared memory on its node (memfd or shm_open), the call signatures in its control
// blocks, and single-copy reads from other members (process_vm_readv).

#include "detail/shm_region.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "detail/group_state.hpp"
#include "gaea/base/error.hpp"
#include "gaea/coll/collectives.hpp"

namespace gaea::coll::detail {

namespace {
constexpr std::size_t control_bytes = (sizeof(shm_control) + 127) / 128 * 128;

std::size_t region_bytes(int members, std::size_t buffer_bytes) {
  const auto n = static_cast<std::size_t>(members);
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t raw = n * control_bytes + 2 * n * buffer_bytes;
  return (raw + page - 1) / page * page;
}

constexpr std::uint64_t no_call = ~std::uint64_t{0};

std::array<std::uint64_t, 3> pack(const call_signature& s) noexcept {
  return {std::uint64_t{s.op} | std::uint64_t{s.algo} << 8 | std::uint64_t{s.elem} << 16 |
              std::uint64_t{s.rop} << 24 | std::uint64_t{static_cast<std::uint32_t>(s.root)} << 32,
          s.count, std::uint64_t{s.digest}};
}

call_signature unpack(const std::array<std::uint64_t, 3>& w) noexcept {
  call_signature s;
  s.op = static_cast<std::uint8_t>(w[0]);
  s.algo = static_cast<std::uint8_t>(w[0] >> 8);
  s.elem = static_cast<std::uint8_t>(w[0] >> 16);
  s.rop = static_cast<std::uint8_t>(w[0] >> 24);
  s.root = static_cast<std::int32_t>(static_cast<std::uint32_t>(w[0] >> 32));
  s.count = w[1];
  s.digest = w[2] != 0;
  return s;
}

std::string errno_text(const char* call, int e) {
  return std::string(call) + ": " + std::strerror(e);
}

// Maps `fd` (closed here) of `bytes`; null and `why` set on failure.
void* map_fd(int fd, std::size_t bytes, std::string& why) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED) {
    why = errno_text("mmap", e);
    return nullptr;
  }
  return p;
}

// Member 0, first choice: an anonymous memory file, which vanishes with the last process that
// maps it, so a job killed before every member attached leaves nothing in /dev/shm. Members open
// it through /proc/<pid>/fd/<n>, which the kernel allows only to this user's processes. Its
// path, or "" and why; `fd` stays open until every member has opened it.
std::string create_anonymous(std::size_t bytes, void*& base, int& fd, std::string& why) {
  fd = memfd_create("gaea-coll", MFD_CLOEXEC);
  if (fd < 0) {
    why = errno_text("memfd_create", errno);
    return {};
  }
  if (fchmod(fd, 0600) != 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    why = errno_text("memfd set-up", errno) + " (" + std::to_string(bytes) + " bytes)";
    close(fd);
    fd = -1;
    return {};
  }
  base = map_fd(dup(fd), bytes, why);
  if (!base) {
    close(fd);
    fd = -1;
    return {};
  }
  return "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd);
}

// Member 0, where /proc cannot pass the file: a new object only this user may open, named
// unpredictably (unlinked once every member mapped it); its name, or "" and why.
std::string create_named(const group_state& g, std::size_t bytes, void*& base, std::string& why) {
  std::random_device rd;
  const std::string name = "/gaea-coll-" + std::to_string(geteuid()) + "-" +
                           std::to_string(getpid()) + "-" + std::to_string(g.id) + "-" +
                           std::to_string(rd()) + std::to_string(rd());
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (fd < 0) {
    why = errno_text("shm_open", errno);
    return {};
  }
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    why = errno_text("ftruncate", errno) + " (" + std::to_string(bytes) + " bytes)";
    close(fd);
    shm_unlink(name.c_str());
    return {};
  }
  base = map_fd(fd, bytes, why);
  if (!base) {
    shm_unlink(name.c_str());
    return {};
  }
  return name;
}

// Other members: the creator's object, if it is this user's and has the expected size.
void* attach(const std::string& name, std::size_t bytes, std::string& why) {
  const bool anonymous = name.starts_with("/proc/");
  // /proc/<pid>/fd/<n> is a link by design; a named object must not be one.
  const int fd = anonymous ? open(name.c_str(), O_RDWR | O_CLOEXEC)
                           : shm_open(name.c_str(), O_RDWR | O_NOFOLLOW, 0);
  if (fd < 0) {
    why = errno_text(anonymous ? "open" : "shm_open", errno) + " (" + name + ")";
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
      static_cast<std::size_t>(st.st_size) != bytes) {
    why = "the object is not this user's private object of " + std::to_string(bytes) + " bytes";
    close(fd);
    return nullptr;
  }
  return map_fd(fd, bytes, why);
}

// Whether this member can read every other member's memory (same user, no ptrace restriction):
// each member's pid field, read where its owner says it lies, must hold that pid.
bool can_read_members(const shm_region& r, int me) {
  for (int m = 0; m < r.members(); ++m) {
    if (m == me) continue;
    const shm_control& c = r.control(m);
    std::int64_t seen = 0;
    if (copy_process(static_cast<pid_t>(c.pid), reinterpret_cast<std::byte*>(&seen), c.pid_addr,
                     sizeof seen) != 0 ||
        seen != c.pid)
      return false;
  }
  return true;
}
}  // namespace

int copy_process(std::int64_t pid, std::byte* local, std::uint64_t remote, std::size_t bytes,
                 bool write) {
  while (bytes > 0) {
    iovec l{local, bytes};
    iovec r{reinterpret_cast<void*>(remote), bytes};
    const ssize_t got = write ? process_vm_writev(static_cast<pid_t>(pid), &l, 1, &r, 1, 0)
                              : process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return got < 0 ? errno : EFAULT;
    const auto n = static_cast<std::size_t>(got);
    local += n;
    remote += n;
    bytes -= n;
  }
  return 0;
}

const std::string& process_copy_refusal() {
  static const std::string why = [] {
    // Yama at 1 or above lets a process read only its descendants; mpirun's ranks are siblings.
    if (std::ifstream f("/proc/sys/kernel/yama/ptrace_scope"); f) {
      int scope = 0;
      if (f >> scope && scope > 0)
        return "kernel.yama.ptrace_scope is " + std::to_string(scope) +
               ": a process may not read a node-mate's memory";
    }
    std::int64_t probe = 1, seen = 0;
    if (const int e = copy_process(getpid(), reinterpret_cast<std::byte*>(&seen),
                                   reinterpret_cast<std::uint64_t>(&probe), sizeof probe);
        e != 0 || seen != probe)
      return std::string("process_vm_readv is refused here: ") + std::strerror(e ? e : EFAULT);
    return std::string();
  }();
  return why;
}

void shm_sign(shm_control& c, std::uint64_t call, const call_signature& sig) noexcept {
  shm_signature_slot& slot = c.sig[call % shm_signature_slots];
  const auto w = pack(sig);
  slot.call.store(no_call, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (std::size_t i = 0; i < w.size(); ++i)
    slot.word[i].store(w[i], std::memory_order_relaxed);
  slot.call.store(call, std::memory_order_release);
}

std::optional<call_signature> shm_signature_of(const shm_control& c, std::uint64_t call) noexcept {
  const shm_signature_slot& slot = c.sig[call % shm_signature_slots];
  if (slot.call.load(std::memory_order_acquire) != call) return std::nullopt;
  std::array<std::uint64_t, 3> w;
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = slot.word[i].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot.call.load(std::memory_order_relaxed) != call) return std::nullopt;
  return unpack(w);
}

std::unique_ptr<shm_region> shm_region::make(const std::shared_ptr<group_state>& gp,
                                             std::size_t buffer_bytes, std::size_t single_copy,
                                             std::string& why) {
  const group_state& g = *gp;
  const std::size_t bytes = region_bytes(g.size(), buffer_bytes);
  // The exchange runs on message algorithms (a shared-memory one would need this region).
  const group grp = group_access::make(gp);
  options msg;
  msg.algo = algorithm::binomial;
  options red;
  red.algo = algorithm::recursive_doubling;
  void* base = nullptr;
  int ok = 0;
  // An anonymous file first; a named object where some member cannot open it through /proc.
  for (const bool anonymous : {true, false}) {
    std::string name;
    int fd = -1;
    if (g.me == 0)
      name = anonymous ? create_anonymous(bytes, base, fd, why) : create_named(g, bytes, base, why);
    std::uint64_t len = name.size();
    broadcast(grp, std::span<std::uint64_t>(&len, 1), 0, msg);
    name.resize(len);
    broadcast(grp, std::span<char>(name.data(), name.size()), 0, msg);
    if (g.me != 0 && !name.empty()) base = attach(name, bytes, why);
    if (g.me != 0 && name.empty()) why = "member 0 could not create it";
    // Every member learns whether all mapped it, before the name or descriptor goes away.
    ok = base != nullptr ? 1 : 0;
    allreduce(grp, std::span<int>(&ok, 1), reduce_op::min, red);
    if (g.me == 0 && !name.empty() && !anonymous) shm_unlink(name.c_str());
    if (fd >= 0) close(fd);
    if (ok) break;
    if (base) munmap(base, bytes);
    base = nullptr;
  }
  if (!ok) {
    if (why.empty()) why = "another member could not map it";
    return nullptr;
  }
  std::unique_ptr<shm_region> r(new shm_region(base, bytes, g.size(), buffer_bytes));
  // Single copy: every member publishes where its pid lies, then probes the others'; the
  // threshold is the least asked for, or 0 when any probe failed.
  std::uint64_t sc = single_copy;
  allreduce(grp, std::span<std::uint64_t>(&sc, 1), reduce_op::min, red);
  if (sc > 0) {
    shm_control& mine = r->control(g.me);
    mine.pid = getpid();
    mine.pid_addr = reinterpret_cast<std::uint64_t>(&mine.pid);
    options sync;
    sync.algo = algorithm::dissemination;
    barrier(grp, sync);
    int readable = can_read_members(*r, g.me) ? 1 : 0;
    allreduce(grp, std::span<int>(&readable, 1), reduce_op::min, red);
    if (!readable) sc = 0;
  }
  r->single_copy_ = static_cast<std::size_t>(sc);
  return r;
}

void shm_region::read_from(int member, std::byte* local, std::uint64_t remote,
                           std::size_t bytes) const {
  const shm_control& c = control(member);
  if (const int e = copy_process(static_cast<pid_t>(c.pid), local, remote, bytes); e != 0)
    throw error("gaea::coll: a shared-memory collective could not read " + std::to_string(bytes) +
                " bytes of member " + std::to_string(member) + " (pid " + std::to_string(c.pid) +
                "): process_vm_readv: " + std::strerror(e));
}

void shm_region::write_to(int member, std::uint64_t remote, const std::byte* local,
                          std::size_t bytes) const {
  const shm_control& c = control(member);
  // process_vm_writev only reads the local iovec.
  if (const int e = copy_process(static_cast<pid_t>(c.pid), const_cast<std::byte*>(local), remote,
                                 bytes, true);
      e != 0)
    throw error("gaea::coll: a shared-memory collective could not write " + std::to_string(bytes) +
                " bytes to member " + std::to_string(member) + " (pid " + std::to_string(c.pid) +
                "): process_vm_writev: " + std::strerror(e));
}

shm_region::~shm_region() {
  munmap(base_, bytes_);
}

void shm_region::abandon(int me, std::uint64_t call) const noexcept {
  const std::uint64_t all = shm_step_value(call, shm_abandoned_step, 1);
  shm_control& c = control(me);
  if (c.consumed.load(std::memory_order_relaxed) < all)
    c.consumed.store(all, std::memory_order_release);
  if (c.posted.load(std::memory_order_relaxed) < all)
    c.posted.store(all, std::memory_order_release);
}

shm_control& shm_region::control(int member) const noexcept {
  return *reinterpret_cast<shm_control*>(base_ + static_cast<std::size_t>(member) * control_bytes);
}

std::byte* shm_region::buffer(int member, int which) const noexcept {
  const auto n = static_cast<std::size_t>(members_);
  return base_ + n * control_bytes +
         (2 * static_cast<std::size_t>(member) + static_cast<std::size_t>(which)) * buffer_bytes_;
}

}  // namespace gaea::coll::detail
