// UCX_TLS without UCX's group-accessible sysv transport (detail/private_transports.hpp).
#include "detail/private_transports.hpp"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "gaea/base/error.hpp"

namespace gaea::comm::detail {

namespace {
std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ",") + i;
  return out;
}

// UCX 1.13's shared-memory aliases, each without sysv and without the kernel-module transports
// this machine lacks (UCX warns about every unavailable transport a list names).
std::vector<std::string> expand(const std::string& tl, const kernel_modules& km) {
  std::vector<std::string> out;
  if (tl == "mm" || tl == "sm" || tl == "shm") {
    out.emplace_back("posix");
    if (km.xpmem) out.emplace_back("xpmem");
    if (tl != "mm" && km.knem) out.emplace_back("knem");
    if (tl != "mm") out.emplace_back("cma");
  } else {
    out.push_back(tl);
  }
  return out;
}
}  // namespace

kernel_modules kernel_modules::of_this_machine() {
  return {::access("/dev/knem", F_OK) == 0, ::access("/dev/xpmem", F_OK) == 0};
}

std::string private_transports(std::string_view ucx_tls, const kernel_modules& km) {
  const std::string who = "UCX_TLS='" + std::string(ucx_tls) + "': ";
  if (ucx_tls.empty()) return "^sysv";
  if (ucx_tls.front() == '^') {
    std::vector<std::string> excluded = split(ucx_tls.substr(1));
    if (std::find(excluded.begin(), excluded.end(), "sysv") == excluded.end())
      excluded.emplace_back("sysv");
    return "^" + join(excluded);
  }
  const std::vector<std::string> asked = split(ucx_tls);
  if (std::find(asked.begin(), asked.end(), "sysv") != asked.end())
    throw error(who +
                "Gaea does not use UCX's sysv transport: UCX creates its segments readable and "
                "writable by the job owner's whole group (mode 0660), so another user could read "
                "or change the job's arrays. Use posix (the same shared memory, mode 0600), e.g. "
                "UCX_TLS=sm or UCX_TLS=posix,self,tcp");
  if (std::find(asked.begin(), asked.end(), "all") != asked.end()) return "^sysv";
  std::vector<std::string> out;
  for (const auto& tl : asked)
    for (auto& t : expand(tl, km))
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  return join(out);
}

bool may_use(std::string_view tls, std::string_view transport) {
  const bool named = tls.find(transport) != std::string_view::npos;
  return !tls.empty() && tls.front() == '^' ? !named : named;
}

}  // namespace gaea::comm::detail
