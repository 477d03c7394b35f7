#pragma once
/// \file
/// This process's place in the job as the launcher (mpirun, srun) announces it in the
/// environment, for what happens before the runtime exists: parsing the command line and
/// checking the environment.

namespace gaea::launcher {

/// This process's rank from the launcher's environment (Open MPI, PMI, PMIx), 0 without one.
/// Not collective; thread-safe.
int rank();

/// The number of ranks from the launcher's environment, 1 without one. Not collective.
int size();

/// On an error found before the runtime exists, with more than one rank: waits a moment; call it
/// after printing the message and before exiting. mpirun ends the whole job as soon as one process
/// exits non-zero, which can kill a rank that has not printed the same message yet (seen with 4
/// ranks on 2 cores); every rank finding the same error prints it within that moment. Does nothing
/// with one rank.
void grace_before_exit();

}  // namespace gaea::launcher
