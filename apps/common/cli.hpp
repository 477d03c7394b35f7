#pragma once
/// \file
/// The command-line convention of every Gaea program, in one place: the apps (gaea-scf, gaea-lu,
/// gaea-lbm, gaea-info, gaea-demo, gaea-checkpoint, gaea-coll, gaea-model, gaea-power) and the
/// benchmarks of bench/ (gaea-coll-bench, gaea-coll-energy-bench, gaea-a2a-sort-bench,
/// counter_latency, get_bench, ga_strided, ga_algorithms_bench, idle_cost, idle_wait, reaction,
/// shift, stream, lu_gemm_peak; not the C references of bench/reference/):
///  - CLI11 parses; unknown options and extra arguments are errors;
///  - `--help` prints the usage and `--version` prints "<program> (Gaea <version>)", both on
///    stdout of the first rank only (rank 0 of the launcher, or the lone process), exit 0;
///  - a bad command line prints "<program>: error: <what>" (with "rank R: " before "error:" under
///    a launcher) and a hint on stderr once for the job (gaea::launcher::print_error: rank 0 at
///    once, another rank only if the job still runs a moment later, so a rank whose command line
///    differs from the others' still says so) and exits 2, with or without mpirun;
///  - the command line is parsed before the runtime exists, so --help, --version and a bad
///    command line never start MPI or UCX and never wait for another rank;
///  - one spelling per meaning: `--json FILE` writes the results as JSON ("-": one line on
///    standard output; add_json_option, write_json), `--output` names the program's output file
///    or directory, and no option repeats a GAEA_* variable (the environment sets those);
///    `--out`, `--file`, `-o`, `--progress` and a `--json` without a value are never used
///    (tests/support/cli_convention.sh checks every program's --help).

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace apps {

/// Exit status of a bad command line, for every program.
inline constexpr int bad_command_line = 2;

/// Names `app` `program` and adds `--version` (Gaea's version, from gaea/base/version.hpp).
/// Call once, before adding options. Not collective.
void conventions(CLI::App& app, const std::string& program);

/// Parses argv by the convention above. Returns nullopt when the program should run, otherwise
/// the exit status to return from main (0 after --help/--version, 2 after a bad command line),
/// the output already printed. A gaea::error thrown by a callback of `app` (a cross-option
/// check) is a bad command line too. Not collective; call it before constructing the runtime.
std::optional<int> parse(CLI::App& app, int argc, char** argv);

/// Adds the convention's `--json FILE` to `app`, storing the argument in `target` ("" when not
/// given). Not collective.
CLI::Option* add_json_option(CLI::App& app, std::string& target);

/// Writes one JSON document `text` to `target` as the convention says: "-" prints it as one
/// line on standard output, a file is written through gaea::output_file (a temporary beside it,
/// renamed once written). `program` names the option in messages ("<program> --json"). Throws
/// gaea::error naming the file when it cannot be written. Not collective: call on one rank.
void write_json(const std::string& target, const std::string& text, const std::string& program);

/// Checks a `--json` target before the run (a file's directory must exist and be writable),
/// so that a run never ends with results it cannot write. Throws gaea::error naming the file.
void check_json_target(const std::string& target, const std::string& program);

}  // namespace apps
