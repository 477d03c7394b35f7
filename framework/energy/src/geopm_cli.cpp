// Runs GEOPM's geopmread / geopmwrite and reads their answers (posix_spawn: no fork of a large
// MPI process, and no shell).

#include "detail/geopm_cli.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "detail/cpu_info.hpp"
#include "detail/settings.hpp"

extern char** environ;

namespace gaea::energy::detail {
namespace {

namespace fs = std::filesystem;

fs::path on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const fs::path p = fs::path(d.empty() ? "." : d) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// Runs argv (no shell), stdout and stderr into `out`. The exit status, or -1 (errno) when the
// program could not be started.
int run(const std::vector<std::string>& args, std::string& out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    errno = rc;
    return -1;
  }
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string first_line(const std::string& s) {
  const std::size_t end = s.find('\n');
  return s.substr(0, end);
}

// "<tool> <args...>: <its message or status>"
std::string failure(const std::vector<std::string>& args, int status, const std::string& out) {
  std::string cmd;
  for (const std::string& a : args)
    cmd += (cmd.empty() ? "" : " ") + a;
  if (status < 0) return cmd + ": cannot run (" + error_text(errno) + ")";
  const std::string msg = first_line(out);
  return cmd + ": exit " + std::to_string(status) + (msg.empty() ? "" : " (" + msg + ")");
}

}  // namespace

geopm_tools find_geopm_tools() {
  geopm_tools t;
  const std::string dir = detail::geopm_bin_dir.read();
  for (const char* name : {"geopmread", "geopmwrite"}) {
    fs::path p = dir.empty() ? on_path(name) : fs::path(dir) / name;
    if (p.empty() || ::access(p.c_str(), X_OK) != 0) {
      if (t.why.empty())
        t.why = dir.empty() ? std::string(name) + " not found on PATH"
                            : p.string() + " not executable (GAEA_GEOPM_BIN_DIR)";
      p.clear();
    }
    (std::string_view(name) == "geopmread" ? t.read : t.write) = p;
  }
  return t;
}

std::optional<double> geopm_read(const geopm_tools& t, std::string_view signal,
                                 std::string_view domain, int index, std::string& why) {
  const std::vector<std::string> args{t.read.string(), std::string(signal), std::string(domain),
                                      std::to_string(index)};
  std::string out;
  const int status = run(args, out);
  if (status != 0) {
    why = failure(args, status, out);
    return std::nullopt;
  }
  char* end = nullptr;
  const std::string line = first_line(out);
  const double v = std::strtod(line.c_str(), &end);
  if (end == line.c_str()) {
    why = failure(args, status, out) + ": not a number";
    return std::nullopt;
  }
  return v;
}

bool geopm_write(const geopm_tools& t, std::string_view control, std::string_view domain, int index,
                 double value, std::string& why) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  const std::vector<std::string> args{t.write.string(), std::string(control), std::string(domain),
                                      std::to_string(index), text};
  std::string out;
  const int status = run(args, out);
  if (status != 0) why = failure(args, status, out);
  return status == 0;
}

}  // namespace gaea::energy::detail
