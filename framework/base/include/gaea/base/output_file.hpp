#pragma once
/// \file
/// gaea::output_file, the one way Gaea writes a file: never half-written, never replacing good
/// data with bad.
///
/// The data goes to a temporary `<target>.tmp.<pid>.<random>` in the target's directory (so the
/// rename cannot cross filesystems), created exclusively. commit() flushes it to the disk
/// (fsync), checks that every step succeeded and only then renames it over the target; without
/// a commit the destructor removes it. A full disk (ENOSPC), a short write, a failed fsync or
/// close are gaea::error, never a truncated file under the target's name.
///
/// The target is checked before anything is written: it must be a regular file or not exist
/// (a directory, a device such as /dev/full, a FIFO or a socket are refused, so that a rename
/// never turns a device into a regular file), and its directory must exist and be writable.
///
/// Temporaries still alive are listed in the process-wide registry of temporaries.hpp, whose
/// SIGTERM/SIGINT/SIGHUP handler unlinks them before the signal ends the process;
/// remove_temporaries() does the same for a failure path that ends the process without
/// unwinding (e.g. before MPI_Abort).
///
/// Writers that cannot write through a descriptor (HDF5) write to temporary() by name, close
/// their own handle, and then commit(): the fsync reopens the file by name.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "gaea/base/temporaries.hpp"

namespace gaea {

/// A temporary file beside `target`, renamed over it only by commit().
/// Not thread-safe per object; distinct objects may be used from distinct threads. Not
/// collective (a plain local file operation; parallel writers create it on one rank).
class output_file {
 public:
  /// Checks the target (check_output_path()) and creates the temporary (empty, mode 0666 minus
  /// the umask), registered for removal on signals. `what` names the file in messages, e.g.
  /// "GAEA_REPORT" or "gaea-scf --output". Throws gaea::error when the target or its directory
  /// is not acceptable or the temporary cannot be created.
  explicit output_file(std::filesystem::path target, std::string what = "output file");
  /// Removes the temporary unless committed. Never throws.
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  /// Appends `bytes` to the temporary (the whole span: a short write or ENOSPC throws
  /// gaea::error naming the target, the temporary and the reason). Not after close_for_name().
  void write(std::span<const std::byte> bytes);
  /// write() of text.
  void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }

  /// Reserves disk blocks for the first `bytes` of the temporary without changing its size
  /// (fallocate with FALLOC_FL_KEEP_SIZE), so that a full disk shows here, as a gaea::error
  /// naming the target and the size, rather than in the middle of a library's writes (HDF5
  /// handles a failed create or close badly). Does nothing where the filesystem cannot reserve.
  void reserve(std::uint64_t bytes);

  /// Closes this object's descriptor so that another library can write the temporary by name
  /// (HDF5). The temporary stays registered and is still removed unless committed.
  void close_for_name() noexcept;

  /// Flushes the temporary to the disk (fsync), closes it, checks both, and renames it over the
  /// target. Throws gaea::error if any step fails; the temporary is then removed and the target
  /// is what it was before. Call it only once the data is complete and the run that produced it
  /// succeeded.
  void commit();

  /// Removes the temporary now (what the destructor does). Never throws.
  void discard() noexcept;

  /// The path the file is renamed to on commit.
  const std::filesystem::path& target() const noexcept { return target_; }
  /// The temporary path written until commit.
  const std::filesystem::path& temporary() const noexcept { return tmp_; }
  /// Whether commit() has renamed the file into place.
  bool committed() const noexcept { return committed_; }

 private:
  std::filesystem::path target_, tmp_;
  std::string what_;
  int fd_ = -1;
  temporary_registration listed_;  // in the signal handler's registry until commit or discard
  bool committed_ = false;
};

/// Checks that `target` can be written through an output_file, without creating anything:
/// `target` is not empty, is a regular file or does not exist, and its directory exists, is a
/// directory and is writable. Throws gaea::error starting with `what` and naming the path and
/// the reason otherwise. Use it at start-up for files written at the end of a run.
void check_output_path(const std::filesystem::path& target, std::string_view what);

}  // namespace gaea
