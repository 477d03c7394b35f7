#pragma once
/// \file
/// HDF5 I/O of global arrays through parallel HDF5 (MPI-IO): collective write and read of a
/// whole array or a patch, with the distribution stored as attributes, and atomic files.
///
/// File format: one N-D dataset per array (or patch), row-major, of the array's element type
/// (complex<double> and complex<float> as the compound {r; i;} of two doubles or two floats, as
/// h5py writes them). The dataset's extents are the patch's (the whole array's when no patch is
/// given). Attributes on it:
///   gaea_format (int64, 1), element_type ("double", "float", "int64", "int32",
///   "complex<double>", "complex<float>"), array_dims (int64[n]: the array it came from), patch_lo
///   (int64[n]: where the dataset starts in that array), layout ("block", "irregular" or
///   "block_cyclic"), tile_grid (int64[n]: tiles per dimension), boundaries_<d>
///   (int64[tile_grid[d]+1]: tile starts along dimension d, then its extent), tile and process_grid
///   (int64[2], block_cyclic only), ghosts (int64[n]) and writer_ranks (int64).
/// The distribution is informational: any array of the right shape and type reads the dataset,
/// whatever its distribution and whatever the number of ranks.
///
/// Atomicity: every write goes to a temporary file `<file>.tmp.<pid>.<random>`, a
/// gaea::output_file of rank 0 (gaea/base/output_file.hpp: created in the target's directory,
/// removed on failure and on SIGTERM/SIGINT/SIGHUP), whose name is broadcast. Only after the
/// file is closed by every rank and all ranks have agreed that every step succeeded does rank 0
/// fsync and rename it to `<file>`. A crash or an error never leaves a partial file under the
/// final name; a failed write removes its temporary file (a kill -9 may leave it behind, under
/// the temporary name only). The target must be a regular file or a new name in an existing,
/// writable directory: a directory or a device (/dev/full) is refused, never replaced.
///
/// Full disk: before each dataset's data is transferred, rank 0 reserves the file's space, so
/// that a full filesystem is an error on every rank before the transfer rather than a hang in
/// HDF5's collective close; a failed file is truncated before its close for the same reason.
///
/// Existing files: write_mode::create (the default) produces a file holding only what this
/// write (or this h5_writer) puts in it, and the rename replaces any previous file of that name
/// atomically. write_mode::append keeps what the file holds: rank 0 copies it to the temporary
/// name first (a copy, so the original stays intact until the rename), and the new dataset is
/// added; writing a dataset that already exists is an error. Several arrays are best written
/// into one file with one h5_writer (one temporary file, one rename, no copies).
///
/// Errors: gaea::error on every rank alike (the ranks agree on the verdict before anyone
/// throws, so that no rank waits in a collective the others have left): a missing file, a file
/// that is not HDF5, a missing dataset, a dataset of the wrong shape or element type, an
/// existing dataset on append, an invalid patch, and any HDF5 or file-system failure.
///
/// Application attributes: h5_writer::attribute() attaches scalar attributes (int64, double or
/// string) to the file's root group or to a dataset; read_attribute() reads them back (and
/// those of files written by other tools). inspect() gives the shape and element type of any
/// dataset, so that an array can be created to read a file that Gaea did not write.
///
/// All calls here except describe(), inspect() and read_attribute() are collective: every rank,
/// same order, from the thread that created the runtime. Writes start with sync() of the array
/// (every rank's puts and accumulates are in); reads end with a barrier (the data is everywhere
/// before anyone reads). Ghost cells are neither written nor read: call update_ghosts() after a
/// read if needed. Each rank writes and reads the interiors of its own tiles with one collective
/// MPI-IO transfer (a hyperslab union in the file, a packed buffer of its elements in memory).

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "gaea/base/error.hpp"
#include "gaea/base/temporaries.hpp"
#include "gaea/ga/global_array.hpp"

namespace gaea {
class output_file;
}

namespace gaea::ga {

/// What a write does with an existing file of the final name (see the file comment).
enum class write_mode : std::uint8_t {
  create,  ///< the new file holds only this write's datasets; it replaces an existing file
  append,  ///< the existing file (if any) is copied and the dataset added; error if it exists
};

/// What a dataset written by Gaea says about itself (its attributes).
struct dataset_info {
  std::string element_type;  ///< "double", "float", "int64", "int32", "complex<double>" or
                             ///< "complex<float>"
  index dims;                ///< extents of the dataset
  index array_dims;          ///< extents of the array it was written from
  index patch_lo;            ///< where the dataset starts in that array
  std::string layout_kind;   ///< "block", "irregular" or "block_cyclic"
  /// A spec that reproduces the writer's tiles and ghosts (a block layout comes back as
  /// irregular with the writer's boundaries). Valid for a run with at least as many ranks as
  /// the writer's tiles (block-cyclic: its process grid).
  layout_spec layout;
  /// Number of ranks of the run that wrote it.
  std::int64_t writer_ranks = 0;
};

/// A scalar attribute an application attaches to a file or dataset.
using attribute_value = std::variant<std::int64_t, double, std::string>;

/// Element type and extents of a dataset (any dataset, not only Gaea's).
struct dataset_shape {
  std::string element_type;  ///< as in dataset_info; another type is described in words
  index dims;                ///< extents of the dataset
};

/// Writes several arrays (or patches) into one file, atomically: nothing appears under `file`
/// until commit(). Collective: construct, write, commit and destroy on every rank alike.
class h5_writer {
 public:
  /// Collective. Opens the temporary file (create: empty; append: a copy of `file` if it
  /// exists). Throws gaea::error (every rank) if that fails.
  explicit h5_writer(std::string file, write_mode mode = write_mode::create);
  /// Collective: without a successful commit(), closes and removes the temporary file.
  ~h5_writer();
  h5_writer(const h5_writer&) = delete;
  h5_writer& operator=(const h5_writer&) = delete;

  /// Collective: writes array `a` (or its patch `p`) as `dataset` (a path; intermediate groups
  /// are created). Throws gaea::error (every rank) for an invalid patch, an existing dataset or
  /// an HDF5 failure; the writer can then only be destroyed.
  template <element T>
  void write(const global_array<T>& a, const std::string& dataset,
             const std::optional<patch>& p = std::nullopt) {
    write_core(a.core(), dataset, p);
  }
  /// Collective: attaches the scalar attribute `name` = `value` to `object`: "/" (the root
  /// group, the default) or a dataset or group already in the file (written through this
  /// writer, or present in an appended file). Stored as a scalar 64-bit little-endian integer,
  /// IEEE double, or fixed-length null-terminated string. Every rank must pass the same value.
  /// Throws gaea::error (every rank) for an empty name, a missing object, an attribute that
  /// exists already (Gaea's own dataset attributes included) or an HDF5 failure; the writer can
  /// then only be destroyed.
  void attribute(const std::string& name, const attribute_value& value,
                 const std::string& object = "/");
  /// Collective: closes the file and, once every rank has succeeded, renames it to `file`.
  void commit();
  /// The final file name given at construction.
  const std::string& file() const noexcept { return file_; }
  /// The temporary file's name (the same on every rank).
  const std::string& temporary() const noexcept { return tmp_; }

 private:
  void write_core(detail::array_core& a, const std::string& dataset, const std::optional<patch>& p);
  void discard() noexcept;
  std::string file_, tmp_;
  std::unique_ptr<output_file> tmp_file_;  // rank 0 only: the temporary's owner
  // Other ranks, while they hold the temporary open: their signal handler removes it too (their
  // collective open could otherwise recreate it after rank 0's handler removed it).
  temporary_registration opened_;
  std::int64_t h5_ = -1;  // hid_t of the open temporary file
  bool failed_ = false, committed_ = false;
};

/// Collective: writes all of `a` to `dataset` of `file` (one h5_writer, one rename).
template <element T>
void write(const global_array<T>& a, const std::string& file, const std::string& dataset,
           write_mode mode = write_mode::create) {
  h5_writer w(file, mode);
  w.write(a, dataset);
  w.commit();
}
/// Collective: writes patch `p` of `a` to `dataset` of `file`; the dataset has the patch's
/// extents, and its attribute patch_lo says where it came from.
template <element T>
void write(const global_array<T>& a, const std::string& file, const std::string& dataset,
           const patch& p, write_mode mode = write_mode::create) {
  h5_writer w(file, mode);
  w.write(a, dataset, p);
  w.commit();
}

namespace detail {
void read_core(array_core& a, const std::string& file, const std::string& dataset,
               const std::optional<patch>& p);
/// Testing only: the next write on `rank` (-1: none) fails after its data is written, as a
/// crash in mid-write would, so that tests can check that nothing appears under the final name.
void inject_write_fault(int rank);
}  // namespace detail

/// Collective: reads `dataset` of `file` into `a`, whose shape and element type must be the
/// dataset's. The file may have been written by any number of ranks and any distribution.
template <element T>
void read(global_array<T>& a, const std::string& file, const std::string& dataset) {
  detail::read_core(a.core(), file, dataset, std::nullopt);
}
/// Collective: reads `dataset` into patch `p` of `a`; the dataset's extents must be the patch's.
template <element T>
void read(global_array<T>& a, const std::string& file, const std::string& dataset, const patch& p) {
  detail::read_core(a.core(), file, dataset, p);
}

/// Scalar attribute `name` of `object` ("/": the root group) in `file`. Any integer type comes
/// back as int64, any float as double, fixed- or variable-length strings as string; a
/// one-element array counts as a scalar. Not collective: any rank, any time. Throws
/// gaea::error for a missing file, object or attribute, or an attribute of another kind.
attribute_value read_attribute(const std::string& file, const std::string& name,
                               const std::string& object = "/");
/// read_attribute() as `T` (std::int64_t, double or std::string); throws gaea::error naming
/// the attribute when it holds another kind (a double is not narrowed to an integer).
template <class T>
requires std::same_as<T, std::int64_t> || std::same_as<T, double> || std::same_as<T, std::string> T
read_attribute_as(const std::string& file, const std::string& name,
                  const std::string& object = "/") {
  attribute_value v = read_attribute(file, name, object);
  if (auto* x = std::get_if<T>(&v)) return std::move(*x);
  if constexpr (std::same_as<T, double>)
    if (auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw error("ga::read_attribute '" + file + "', " + object + " attribute '" + name +
              "': not of the requested kind");
}

/// Element type and extents of `dataset` in `file`, whoever wrote it. Not collective. Throws
/// gaea::error for a missing file or dataset, or a file that is not HDF5.
dataset_shape inspect(const std::string& file, const std::string& dataset);

/// The attributes of a dataset written by Gaea. Not collective: any rank, any time. Throws
/// gaea::error for a missing file or dataset, or a dataset without Gaea's attributes.
dataset_info describe(const std::string& file, const std::string& dataset);

}  // namespace gaea::ga
