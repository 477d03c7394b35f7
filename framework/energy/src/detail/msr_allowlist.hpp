#pragma once
/// \file
/// msr-safe's allow-list (/dev/cpu/msr_allowlist under the sysfs root): one register a line,
/// "0x<address> 0x<write mask>". A listed register may be read; only the bits set in its mask may
/// be written (mask 0: read-only). The file is often readable by its admin group only; then the
/// probe write is the only test.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gaea::energy::detail {

/// Register address -> write mask.
using msr_allowlist = std::map<std::uint64_t, std::uint64_t>;

/// <root>/dev/cpu/msr_allowlist
std::filesystem::path msr_allowlist_path(const std::filesystem::path& root);

/// Parses the list: blank lines and text after '#' are skipped; every other line must hold two
/// hexadecimal numbers. nullopt, with `why` naming the line, when one does not.
std::optional<msr_allowlist> parse_msr_allowlist(std::string_view text, std::string& why);

/// Reads and parses the list under `root`. nullopt, with `why` ("<path>: <error>" or the parse
/// error), when it is missing, unreadable or malformed.
std::optional<msr_allowlist> read_msr_allowlist(const std::filesystem::path& root,
                                                std::string& why);

/// Empty when `list` lets a user read `reg` and write every bit of `bits` (0: read only); else
/// why not, with what a site must allow, e.g. "0x19A not in the allow-list (allow 0x19A with
/// write mask 0x1F)".
std::string msr_allowlist_refusal(const msr_allowlist& list, std::uint64_t reg, std::uint64_t bits);

/// "0x19A": the address as allow-lists and the docs write it.
std::string msr_hex(std::uint64_t v);

}  // namespace gaea::energy::detail
