#include "cli.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "gaea/base/error.hpp"
#include "gaea/base/version.hpp"

namespace gaea::app {

void conventions(CLI::App& app, const std::string& program) {
  app.name(program);
  app.set_version_flag("--version", program + " (Gaea " + version_string + ")",
                       "print the version and exit");
}

int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

namespace {
// Number of ranks from the launcher's environment, 1 without one.
int launcher_size() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 1;
}

int usage_error(const CLI::App& app, const std::string& what) {
  // One write per message, so that ranks' lines do not interleave.
  const std::string text = app.get_name() + ": error: " + what + "\nRun '" + app.get_name() +
                           " --help' for the options.\n";
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  // mpirun ends the whole job as soon as one process exits non-zero, which could kill a rank
  // that has not printed its message yet (seen with 4 ranks on 2 cores). With more than one
  // rank, wait a moment so that every rank, parsing the same command line, prints it.
  if (launcher_size() > 1) std::this_thread::sleep_for(std::chrono::seconds(1));
  return bad_command_line;
}
}  // namespace

std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) return usage_error(app, e.what());
    // --help or --version: the output of one rank is enough.
    if (launcher_rank() == 0) {
      std::ostringstream out, err;
      app.exit(e, out, err);
      std::fputs(out.str().c_str(), stdout);
      std::fputs(err.str().c_str(), stderr);
      std::fflush(stdout);
    }
    return 0;
  } catch (const Error& e) {
    return usage_error(app, e.what());
  }
}

}  // namespace gaea::app
