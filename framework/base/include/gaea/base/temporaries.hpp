#pragma once
/// \file
/// The process-wide registry of live temporaries: files and directories that a writer has made
/// beside its target and that must not outlive the process when it is ended by a signal.
///
/// A fixed table (64 entries; a temporary beyond them is still removed by its owner, only not on
/// signals). install_temporary_cleanup() makes SIGTERM, SIGINT and SIGHUP run a handler that
/// removes every registered temporary (a file: unlink, with the `<file>.locktest.<rank>` side
/// files Open MPI's MPI-IO creates while opening one; a directory: its contents, a few levels
/// deep, then the directory), then restores the disposition it found (a handler installed by
/// MPI, the energy module or a test framework, or the default) and re-raises the signal, so the
/// process still ends "killed by signal". An ignored signal stays ignored. Everything the handler
/// does is async-signal-safe (no allocation, no locks). The runtime installs the handler at
/// start-up; each registration installs it again if someone replaced it since.

#include <filesystem>

namespace gaea {

/// What a registered temporary is.
enum class temporary_kind { file, directory };

/// One registered temporary: listed for removal on signals from construction until release()
/// or destruction. Unregistering never removes anything (removing is the owner's job).
/// Move-only. Not thread-safe per object; distinct objects may be used from distinct threads.
class temporary_registration {
 public:
  temporary_registration() noexcept = default;
  /// Registers `path` (made absolute now, so that a later chdir does not matter) and makes
  /// sure the signal handler is installed. Register before
  /// creating the temporary, so that no signal falls between creation and registration. A path
  /// of PATH_MAX bytes or more, or a full table, leaves the object unregistered (registered()
  /// is false); never throws.
  explicit temporary_registration(const std::filesystem::path& path,
                                  temporary_kind kind = temporary_kind::file) noexcept;
  ~temporary_registration() { release(); }
  /// Takes over `other`'s registration (`other` then holds none).
  temporary_registration(temporary_registration&& other) noexcept : slot_(other.slot_) {
    other.slot_ = -1;
  }
  /// Releases this registration and takes over `other`'s.
  temporary_registration& operator=(temporary_registration&& other) noexcept;
  temporary_registration(const temporary_registration&) = delete;
  temporary_registration& operator=(const temporary_registration&) = delete;

  /// Takes the temporary off the list (it was renamed into place, or removed by its owner).
  void release() noexcept;
  /// Whether a temporary is still on the list.
  bool registered() const noexcept { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

/// Installs the SIGTERM/SIGINT/SIGHUP handler that removes the registered temporaries (see the
/// file comment); a handler installed by someone else since the last call is chained (it runs
/// after ours through the re-raise), not lost. Thread-safe; cheap enough to call often.
void install_temporary_cleanup() noexcept;

/// Removes every registered temporary now (they are then not renamed: a later commit() fails).
/// Async-signal-safe and noexcept: for a failure path that ends the process without running
/// destructors (before MPI_Abort, in a signal handler).
void remove_temporaries() noexcept;

}  // namespace gaea
