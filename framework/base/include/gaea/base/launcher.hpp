#pragma once
/// \file
/// This process's place in the job as the launcher (mpirun, srun) announces it in the
/// environment, for what happens before the runtime exists: parsing the command line and
/// checking the environment.

#include <string_view>

namespace gaea::launcher {

/// This process's rank from the launcher's environment (Open MPI, PMI, PMIx), 0 without one.
/// Not collective; thread-safe.
int rank();

/// The number of ranks from the launcher's environment, 1 without one. Not collective.
int size();

/// Prints an error found before the runtime exists (a bad command line or GAEA_* setting) once
/// for the job: "<program>: error: <what>", or "<program>: rank R: error: <what>" with more than
/// one rank, then `hint` (whole lines, may be empty), in one write. Rank 0 (or a lone process)
/// prints at once; another rank first waits a moment, because a launcher ends the whole job as
/// soon as one process exits non-zero: when rank 0 found the same error the job is gone before
/// the others print, and a rank whose error is its own still prints it. Call it just before
/// exiting with the error's status. Not collective.
void print_error(std::string_view program, std::string_view what, std::string_view hint = {});

}  // namespace gaea::launcher
