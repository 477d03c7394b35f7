#pragma once
/// \file
/// The one way Gaea opens a file it reads: a regular file, of a size its format can sensibly
/// have, checked before a byte is read or a buffer allocated.
///
/// A FIFO blocks its reader forever, a device such as /dev/zero or /dev/urandom never ends, a
/// directory is not data: each is refused before it is opened, with a gaea::error naming the
/// path and what it is. A size cap refuses a file larger than its format can sensibly be (a
/// 4 GB molecule) by its size, not by running out of memory while reading it.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gaea {

/// The cap of a text input: molecules, basis sets, JSON descriptions and calibrations, run
/// profiles. 64 MiB, far above any real one (the largest basis library is 1.4 MB).
inline constexpr std::uint64_t max_text_input_bytes = std::uint64_t{64} << 20;

/// What is wrong with `path` as an input of at most `max_bytes`, or "" when it is a regular
/// file of at most that size (symbolic links followed): "no such file", "is a FIFO; only a
/// regular file can be read", "is 4294967296 bytes, more than the 67108864 it may have",
/// "cannot be examined: <reason>". Not collective; thread-safe.
std::string input_file_problem(const std::filesystem::path& path,
                               std::uint64_t max_bytes = UINT64_MAX);

/// Throws gaea::error "<what> '<path>': <problem>" when input_file_problem() finds one;
/// otherwise returns the file's size. Not collective; thread-safe.
std::uint64_t check_input_file(const std::filesystem::path& path, std::string_view what,
                               std::uint64_t max_bytes = UINT64_MAX);

/// check_input_file(), then the whole file's bytes. The file is opened without blocking and
/// checked again on the descriptor, so a FIFO put in its place after the check is refused too,
/// and reading stops past `max_bytes` (a file that grows while read). Errors as
/// check_input_file(), and "cannot read it: <reason>". Not collective; thread-safe.
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes = max_text_input_bytes);

}  // namespace gaea
