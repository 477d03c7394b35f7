#pragma once
// A group's shared memory on its node (algorithm::shared_memory): per member a control block and
// two data buffers, mapped by every member. Made on the group's first call that needs it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "detail/service.hpp"

namespace gaea::coll::detail {

struct group_state;

/// How many of a member's latest call signatures its control block keeps (by call number modulo
/// this). Calls that write no buffer (a barrier, a broadcast's readers, an empty part) do not wait
/// for the others, so a member can be several calls ahead of a member still checking an older one.
inline constexpr std::size_t shm_signature_slots = 4;

/// A signature slot, rewritten by its member while others may read it: `call` is invalidated
/// before and set after the words change (a sequence lock), so a reader takes only a whole one.
struct shm_signature_slot {
  std::atomic<std::uint64_t> call{~std::uint64_t{0}};
  std::atomic<std::uint64_t> word[3] = {};
};

/// One member's control block. Only its member writes it; the others poll `posted` and
/// `consumed` (each on its own cache lines, apart from the other members').
struct shm_control {
  /// Highest step value (shm_step_value) whose data this member has written.
  alignas(128) std::atomic<std::uint64_t> posted{0};
  /// Highest step value whose reads this member has finished.
  alignas(128) std::atomic<std::uint64_t> consumed{0};
  /// The signatures of the member's latest calls (shm_sign, shm_signature_of).
  alignas(128) shm_signature_slot sig[shm_signature_slots];
  /// Single copy (shm_region::single_copy_bytes): by call parity, the addresses of the member's
  /// buffers the others copy from or into for that call (a reduction's input, then its output),
  /// written before its step is posted.
  std::uint64_t addr[2][2] = {};
  /// The address `which` (0: the buffer read or written, 1: a reduction's output) for call `call`.
  std::uint64_t& published(std::uint64_t call, int which = 0) noexcept {
    return addr[call & 1][which];
  }
  /// The member's process id, and where this field lies in its address space (a probe reads it
  /// with process_vm_readv when the region is made).
  std::int64_t pid = 0;
  std::uint64_t pid_addr = 0;
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

/// Member `c`'s signature of call `call`, written before the call posts anything.
void shm_sign(shm_control& c, std::uint64_t call, const call_signature& sig) noexcept;

/// Member `c`'s signature of call `call`; none when its slot holds another call (the member has
/// not signed it yet, or has moved on several calls) or is being rewritten.
std::optional<call_signature> shm_signature_of(const shm_control& c, std::uint64_t call) noexcept;

/// The value a member posts for step `step` (0 = the call's entry) and `phase` (0 = its data,
/// 1 = a reduction's result) of call `call`: increasing over a group's calls and steps.
constexpr std::uint64_t shm_step_value(std::uint64_t call, std::uint64_t step,
                                       unsigned phase) noexcept {
  return call << 32 | step << 1 | phase;
}

/// Each member's share of a buffer that holds one area per member (scatter, alltoall), 64-byte
/// aligned.
constexpr std::size_t shm_area_bytes(std::size_t buffer, int members) noexcept {
  return buffer / static_cast<std::size_t>(members) / 64 * 64;
}

/// The step a member posts, with phase 1, for a call it abandoned (failed in): every step of it
/// done.
inline constexpr std::uint64_t shm_abandoned_step = 0x7FFFFFFF;

/// process_vm_readv (`write`: process_vm_writev) of all `bytes` between `local` here and `remote`
/// in process `pid`, in as many calls as it takes. Returns the errno of a failure, else 0.
int copy_process(std::int64_t pid, std::byte* local, std::uint64_t remote, std::size_t bytes,
                 bool write = false);

/// Why this process may not read another process's memory of the same user (yama's
/// ptrace_scope, a seccomp filter), or empty. Decided once per process.
const std::string& process_copy_refusal();

class shm_region {
 public:
  /// Collective over the group (every member calls it in the same call): member 0 creates an
  /// unlinked-after-use POSIX shared memory object readable by this user only, every member maps
  /// it. Returns null on every member when any member could not (`why` then says why).
  /// `single_copy`: GAEA_COLL_SHM_SINGLE_COPY; the region's single_copy_bytes() is the least
  /// over the members, or 0 when any member cannot read another's memory.
  static std::unique_ptr<shm_region> make(const std::shared_ptr<group_state>& g,
                                          std::size_t buffer_bytes, std::size_t single_copy,
                                          std::string& why);
  ~shm_region();
  shm_region(const shm_region&) = delete;
  shm_region& operator=(const shm_region&) = delete;

  shm_control& control(int member) const noexcept;
  /// Member `member`'s data buffer `which` (0 or 1), buffer_bytes() long, 64-byte aligned.
  std::byte* buffer(int member, int which) const noexcept;
  std::size_t buffer_bytes() const noexcept { return buffer_bytes_; }
  /// Calls moving at least this many bytes per part copy straight between the members' own
  /// buffers (read_from); 0: never. The same on every member.
  std::size_t single_copy_bytes() const noexcept { return single_copy_; }
  /// Copies `bytes` at `remote` in member `member`'s address space into `local` (a single-copy
  /// read). Throws gaea::error naming the member and the system's reason.
  void read_from(int member, std::byte* local, std::uint64_t remote, std::size_t bytes) const;
  /// Copies `bytes` of `local` to `remote` in member `member`'s address space (a single-copy
  /// write). Throws gaea::error naming the member and the system's reason.
  void write_to(int member, std::uint64_t remote, const std::byte* local, std::size_t bytes) const;
  /// Member `me` abandons call `call` (see shm_abandoned_step); the others' waits for it end.
  void abandon(int me, std::uint64_t call) const noexcept;
  int members() const noexcept { return members_; }

 private:
  shm_region(void* base, std::size_t bytes, int members, std::size_t buffer_bytes) noexcept
      : base_(static_cast<std::byte*>(base)),
        bytes_(bytes),
        members_(members),
        buffer_bytes_(buffer_bytes) {}
  std::byte* base_;
  std::size_t bytes_;
  int members_;
  std::size_t buffer_bytes_;
  std::size_t single_copy_ = 0;
};

}  // namespace gaea::coll::detail
