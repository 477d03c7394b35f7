// msr-safe's allow-list: reading and parsing /dev/cpu/msr_allowlist, and what it permits.

#include "detail/msr_allowlist.hpp"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "detail/cpu_info.hpp"
#include "gaea/energy/sysfs.hpp"

namespace gaea::energy::detail {
namespace {

// One hexadecimal number ("0x" prefix optional) at the front of `s`; advances past it.
std::optional<std::uint64_t> take_hex(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  std::uint64_t v = 0;
  std::size_t n = 0;
  for (; n < s.size() && n <= 16; ++n) {
    const char c = s[n];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      break;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  if (n == 0 || n > 16) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

}  // namespace

std::filesystem::path msr_allowlist_path(const std::filesystem::path& root) {
  return under(root, "/dev/cpu/msr_allowlist");
}

std::string msr_hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

std::optional<msr_allowlist> parse_msr_allowlist(std::string_view text, std::string& why) {
  msr_allowlist list;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string_view whole = line;
    const auto addr = take_hex(line);
    const auto mask = addr ? take_hex(line) : std::nullopt;
    if (!mask || line.find_first_not_of(" \t\r") != std::string_view::npos) {
      why = "line " + std::to_string(line_no) + " '" + std::string(whole) +
            "' is not '0x<address> 0x<write mask>'";
      return std::nullopt;
    }
    list[*addr] = *mask;
  }
  return list;
}

std::optional<msr_allowlist> read_msr_allowlist(const std::filesystem::path& root,
                                                std::string& why) {
  const auto path = msr_allowlist_path(root);
  std::ifstream in(path);
  if (!in) {
    why = path.string() + ": " + error_text(errno ? errno : ENOENT);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto list = parse_msr_allowlist(text.str(), why);
  if (!list) why = path.string() + ": " + why;
  return list;
}

std::string msr_allowlist_refusal(const msr_allowlist& list, std::uint64_t reg,
                                  std::uint64_t bits) {
  const std::string allow =
      "allow " + msr_hex(reg) + (bits ? " with write mask " + msr_hex(bits) : std::string());
  const auto it = list.find(reg);
  if (it == list.end()) return msr_hex(reg) + " not in the allow-list (" + allow + ")";
  if ((it->second & bits) != bits)
    return msr_hex(reg) + " write mask " + msr_hex(it->second) + " lacks bits " +
           msr_hex(bits & ~it->second) + " (" + allow + ")";
  return {};
}

}  // namespace gaea::energy::detail
