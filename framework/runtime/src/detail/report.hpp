#pragma once
// Internal to the runtime: what runtime.cpp needs from report.cpp.

#include <string>
#include <vector>

namespace gaea::detail {

// Checks, at runtime start-up and on every rank (before anything collective, so that every rank
// fails alike), that GAEA_REPORT (when it names a .json file) and GAEA_TRACE (when set) name
// files that can be written at finalize: a regular file or a new name, in an existing writable
// directory. Throws gaea::error naming the variable, the path and the reason. The directory must
// be visible to every rank (rank 0 writes the files).
void check_report_paths(const std::string& report, const std::string& trace);

// The program's command line: argv[0..argc) when both are given, else this process's
// /proc/self/cmdline (empty when it cannot be read).
std::vector<std::string> command_line(const int* argc, char* const* const* argv);

}  // namespace gaea::detail
