// The programs' shared command line (cli.hpp): --version, parse with usage errors, --json output.

#include "cli.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "gaea/base/error.hpp"
#include "gaea/base/launcher.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/base/version.hpp"

namespace apps {

void conventions(CLI::App& app, const std::string& program) {
  app.name(program);
  app.set_version_flag("--version", program + " (Gaea " + gaea::version_string + ")",
                       "print the version and exit");
}

namespace {
int usage_error(const CLI::App& app, const std::string& what) {
  gaea::launcher::print_error(app.get_name(), what,
                              "Run '" + app.get_name() + " --help' for the options.\n");
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
    if (gaea::launcher::rank() == 0) {
      std::ostringstream out, err;
      app.exit(e, out, err);
      std::fputs(out.str().c_str(), stdout);
      std::fputs(err.str().c_str(), stderr);
      std::fflush(stdout);
    }
    return 0;
  } catch (const gaea::error& e) {
    return usage_error(app, e.what());
  }
}

CLI::Option* add_json_option(CLI::App& app, std::string& target) {
  return app.add_option("--json", target,
                        "write the results as JSON to this file ('-': one line on standard "
                        "output)");
}

void check_json_target(const std::string& target, const std::string& program) {
  if (!target.empty() && target != "-") gaea::check_output_path(target, program + " --json");
}

void write_json(const std::string& target, const std::string& text, const std::string& program) {
  if (target.empty()) return;
  if (target == "-") {
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
    return;
  }
  gaea::output_file f(target, program + " --json");
  f.write(text + "\n");
  f.commit();
}

}  // namespace apps
