#pragma once
// Internal (not API): the UCX transport list that keeps a job's shared memory its user's only.
// UCX 1.13's sysv transport creates its segments (array memory and receive FIFOs) with mode
// 0660, so a user of the job owner's group could attach them; posix creates them 0600 and peers
// open them through /proc/<pid>/fd, which the kernel allows only to the same user.
#include <string>
#include <string_view>

namespace gaea::comm::detail {

/// The shared-memory transports that need a kernel module, present or not.
struct kernel_modules {
  bool knem = false, xpmem = false;
  static kernel_modules of_this_machine();  ///< /dev/knem, /dev/xpmem
};

/// The value of UCX_TLS to give UCX for the user's `ucx_tls` (empty when unset): the same
/// transports without sysv (an exclusion list `^...` extended; `all` becomes `^sysv`; the aliases
/// `sm`, `shm` and `mm` expanded to their other members that `km` says exist). Throws
/// gaea::error when the list names sysv itself.
std::string private_transports(std::string_view ucx_tls, const kernel_modules& km);

/// Whether UCX may use `transport` under `tls`, a list private_transports() returned (an
/// inclusion list names it; an exclusion list `^...` does not).
bool may_use(std::string_view tls, std::string_view transport);

}  // namespace gaea::comm::detail
