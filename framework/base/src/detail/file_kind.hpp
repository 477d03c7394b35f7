#pragma once
// Internal (not API): the name of a file's type in messages, for input and output checks.

#include <sys/stat.h>

#include <string>

namespace gaea::detail {

/// "a directory", "a character device", "a FIFO", ... for a mode that is not a regular file.
inline std::string file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace gaea::detail
