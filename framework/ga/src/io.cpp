// Parallel HDF5 I/O of global arrays. Every rank moves the interiors of its own tiles with one
// collective MPI-IO transfer: in the file, the union of its tile pieces (hyperslabs); in memory,
// a packed buffer whose rows are sorted the way HDF5 walks that union (row-major over the
// dataset), so that one call covers any number of tiles. Files are written under a temporary
// name (a gaea::output_file of rank 0) and renamed by rank 0 once every rank agrees that all
// went well (io.hpp).
//
// A full disk must not hang nor crash: HDF5 flushes its metadata collectively when the file is
// closed, and a rank whose metadata write fails leaves that flush early while the others wait in
// it (MPI_Bcast, MPI_Barrier); a failed H5Fcreate leaves HDF5 a file that crashes it at
// MPI_Finalize. So (0) rank 0 reserves room for HDF5's first metadata before the create; (1)
// before each collective data transfer, rank 0 reserves the
// file's space up to its end of allocation (fallocate, keeping the size), making a full disk an
// agreed error before anything is written and the later metadata writes land in reserved
// blocks; (2) a failed file is truncated to nothing by rank 0 before the collective close, so
// that its few metadata pages find space again.
#include "gaea/ga/io.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "detail/h5_util.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

using detail::h5_handle;

std::atomic<int> fault_rank{-1};

// One row (run along the last dimension) of a tile piece: its first element in global indices
// and its byte offset in this rank's storage.
struct row_ref {
  index first;
  std::size_t offset, bytes;
};

// Rows of this rank's part of patch `p` (interiors only), sorted as HDF5 visits the union of
// their hyperslabs (row-major), and that union selected in `file_space` (relative to p.lo).
// Returns the number of elements selected.
index_t select_local(const detail::array_core& a, const patch& p, hid_t file_space,
                     std::vector<row_ref>& rows) {
  const distribution& d = a.dist();
  const auto n = static_cast<std::size_t>(d.ndim());
  H5Sselect_none(file_space);
  index_t count = 0;
  for (const tile& t : a.local_tiles()) {
    const patch q = t.box.intersect(p);
    if (q.empty()) continue;
    std::vector<hsize_t> start(n), extent(n);
    for (std::size_t k = 0; k < n; ++k) {
      start[k] = static_cast<hsize_t>(q.lo[k] - p.lo[k]);
      extent[k] = static_cast<hsize_t>(q.extent(static_cast<int>(k)));
    }
    H5Sselect_hyperslab(file_space, H5S_SELECT_OR, start.data(), nullptr, extent.data(), nullptr);
    count += q.elements();
    // Rows of q: odometer over all dimensions but the last.
    const std::size_t row_bytes = static_cast<std::size_t>(q.extent(d.ndim() - 1)) * a.elem_size();
    index e = q.lo;
    while (true) {
      rows.push_back(
          {e, static_cast<std::size_t>(d.storage_offset(t, e)) * a.elem_size(), row_bytes});
      std::size_t k = n - 1;
      while (k-- > 0) {
        if (++e[k] <= q.hi[k]) break;
        e[k] = q.lo[k];
      }
      if (k == static_cast<std::size_t>(-1)) break;
    }
  }
  std::sort(rows.begin(), rows.end(), [](const row_ref& x, const row_ref& y) {
    return std::lexicographical_compare(x.first.begin(), x.first.end(), y.first.begin(),
                                        y.first.end());
  });
  return count;
}

// Memory space of `count` packed elements (a selection of none when there are none: every
// rank must join the collective transfer).
hid_t memory_space(index_t count) {
  const hsize_t n = static_cast<hsize_t>(std::max<index_t>(count, 1));
  const hid_t s = H5Screate_simple(1, &n, nullptr);
  if (count == 0) H5Sselect_none(s);
  return s;
}

hid_t mpio_access(runtime& rt) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, rt.comm().mpi_comm(), MPI_INFO_NULL);
  return fapl;
}

hid_t collective_transfer() {
  const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  return dxpl;
}

std::vector<std::int64_t> ints(const index& x) {
  return {x.begin(), x.end()};
}

std::string extents_of(const patch& p) {
  index e(static_cast<std::size_t>(p.ndim()));
  for (int d = 0; d < p.ndim(); ++d)
    e[static_cast<std::size_t>(d)] = p.extent(d);
  return format_index(e);
}

patch whole(const distribution& d) {
  index hi = d.dims();
  for (auto& x : hi)
    --x;
  return patch{index(d.dims().size(), 0), hi};
}

// The distribution as attributes of `set` (identical on every rank: collective in HDF5).
void write_layout(hid_t set, const detail::array_core& a, const patch& p, int ranks) {
  const distribution& d = a.dist();
  detail::write_attr(set, "gaea_format", std::vector<std::int64_t>{1});
  detail::write_attr(set, "element_type", std::string(detail::to_string(a.type())));
  detail::write_attr(set, "array_dims", ints(d.dims()));
  detail::write_attr(set, "patch_lo", ints(p.lo));
  detail::write_attr(set, "layout", std::string(kind_name(d.spec().type)));
  detail::write_attr(set, "tile_grid", std::vector<std::int64_t>(d.grid().begin(), d.grid().end()));
  for (int k = 0; k < d.ndim(); ++k) {
    const std::string name = "boundaries_" + std::to_string(k);
    detail::write_attr(set, name.c_str(), d.boundaries(k));
  }
  if (d.spec().type == layout_spec::kind::block_cyclic) {
    detail::write_attr(set, "tile", ints(d.spec().tile));
    detail::write_attr(set, "process_grid",
                       std::vector<std::int64_t>(d.process_grid().begin(), d.process_grid().end()));
  }
  detail::write_attr(set, "ghosts", ints(d.ghosts()));
  detail::write_attr(set, "writer_ranks", std::vector<std::int64_t>{ranks});
}

// What HDF5 writes when it creates a file (superblock, root group) fits in this; a failed
// H5Fcreate under MPI-IO leaves HDF5 a file that crashes it at MPI_Finalize, so it must not fail.
constexpr std::uint64_t create_reserve = 16384;

// Rank 0: reserves the file up to the end of dataset `set`'s contiguous storage (allocated at
// creation under MPI-IO) or the file's size if larger, one page more (output_file::reserve).
std::string reserve_allocated(hid_t h5, hid_t set, output_file& tmp) {
  hsize_t size = 0;
  if (H5Fget_filesize(h5, &size) < 0) size = 0;
  const haddr_t offset = H5Dget_offset(set);
  if (offset != HADDR_UNDEF) size = std::max<hsize_t>(size, offset + H5Dget_storage_size(set));
  try {
    tmp.reserve(size + 4096);
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

namespace detail {
void inject_write_fault(int rank) {
  fault_rank = rank;
}
}  // namespace detail

h5_writer::h5_writer(std::string file, write_mode mode) : file_(std::move(file)) {
  runtime& rt = runtime::current();
  rt.require_owner_thread("ga::h5_writer");
  coll::agree_on(coll::world(), coll::call_record("ga::write", file_, "opened")
                                    .add("mode", mode == write_mode::append ? "append" : "create"));
  const std::string who = "ga::write '" + file_ + "': ";
  std::string problem, copied = "0";
  if (rt.rank() == 0) {
    try {
      // Checks the target (a regular file or a new name, in a writable directory) and creates
      // the temporary, registered for removal on signals.
      tmp_file_ = std::make_unique<output_file>(file_, "ga::write");
      tmp_ = tmp_file_->temporary().string();
      tmp_file_->close_for_name();
    } catch (const error& e) {
      problem = e.what();
    }
    std::error_code ec;
    if (problem.empty() && mode == write_mode::append && std::filesystem::exists(file_, ec)) {
      detail::h5_quiet quiet;
      if (H5Fis_hdf5(file_.c_str()) <= 0)
        problem = who + "cannot append: the existing file is not an HDF5 file";
      else if (!std::filesystem::copy_file(file_, tmp_,
                                           std::filesystem::copy_options::overwrite_existing, ec))
        problem = who + "cannot copy it to '" + tmp_ + "' to append: " + ec.message();
      else
        copied = "1";
    }
    if (problem.empty()) {
      std::error_code size_ec;
      const auto held = copied == "1" ? std::filesystem::file_size(tmp_, size_ec) : 0;
      try {
        tmp_file_->reserve(held + create_reserve);
      } catch (const error& e) {
        problem = e.what();
      }
    }
    if (!problem.empty()) tmp_file_.reset();  // removes the temporary
  }
  coll::agree(coll::world(), problem);
  tmp_ = coll::broadcast(coll::world(), tmp_, 0);
  if (rt.rank() != 0) opened_ = temporary_registration(tmp_);
  const bool exists = coll::broadcast(coll::world(), copied, 0) == "1";
  // A create that fails on some ranks only cannot be undone (closing is collective): make sure
  // first that every rank sees the temporary (a directory local to rank 0's node would not).
  std::error_code seen_ec;
  if (!std::filesystem::exists(tmp_, seen_ec))
    problem = who + "rank " + std::to_string(rt.rank()) + " does not see the temporary '" + tmp_ +
              "' that rank 0 created: the directory must be shared by every rank";
  try {
    coll::agree(coll::world(), problem);
  } catch (...) {
    tmp_file_.reset();
    throw;
  }
  detail::h5_quiet quiet;
  h5_handle fapl(mpio_access(rt), H5Pclose);
  h5_ = exists ? H5Fopen(tmp_.c_str(), H5F_ACC_RDWR, fapl.get())
               : H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  try {
    coll::agree(coll::world(),
                h5_ < 0 ? who + "cannot create the temporary file '" + tmp_ + "'" : "");
  } catch (...) {
    discard();
    throw;
  }
}

h5_writer::~h5_writer() {
  if (!committed_) discard();
}

void h5_writer::discard() noexcept {
  // Collective (closing an MPI-IO file is). Every rank gets here together after an agreed error
  // of this writer (failed_), or when it is dropped unused; not when one rank unwinds alone or the
  // job has failed: then the other ranks never come, and the close is left to the job's end.
  try {
    detail::h5_quiet quiet;
    runtime& rt = runtime::current();
    if (rt.failed() || (!failed_ && !rt.may_synchronize())) {
      tmp_file_.reset();  // rank 0: removes the temporary
      return;
    }
    if (h5_ >= 0) {
      // The content is abandoned: give its space back so that the collective close's metadata
      // writes cannot fail on a full disk (see the top of this file). Rank 0 does it before it
      // joins the close, and no rank writes metadata before rank 0 has joined.
      if (rt.rank() == 0 && !tmp_.empty()) (void)::truncate(tmp_.c_str(), 0);
      H5Fclose(h5_);
    }
    h5_ = -1;
    rt.barrier();
  } catch (...) {
    // a destructor must not throw; the temporary is still removed below
  }
  opened_.release();
  tmp_file_.reset();  // rank 0: removes the temporary
}

void h5_writer::write_core(detail::array_core& a, const std::string& dataset,
                           const std::optional<patch>& given) {
  runtime& rt = a.rt();
  rt.require_owner_thread("ga::write");
  const std::string who =
      "ga::write of '" + a.name() + "' to '" + file_ + "', dataset '" + dataset + "': ";
  if (failed_ || committed_ || h5_ < 0)
    throw error(who + (committed_ ? "the writer is already committed" : "an earlier write failed"));
  if (!a.on_world())
    throw error(who + "the array lives on group '" + a.group().name() +
                "'; files are written from arrays of the world group only");
  const patch p = given ? *given : whole(a.dist());
  coll::agree_on(coll::world(), coll::call_record("ga::write", file_, "writing")
                                    .add("array", "'" + a.name() + "'")
                                    .add("dataset", "'" + dataset + "'")
                                    .add("patch", p.str()));
  a.dist().validate(p, "write");  // the same verdict on every rank
  a.sync();                       // every rank's puts and accumulates are in
  failed_ = true;                 // until this write has succeeded everywhere
  detail::h5_quiet quiet;
  std::string problem;
  if (dataset.empty() || detail::h5_path_exists(h5_, dataset))
    problem = who + (dataset.empty() ? "empty dataset name" : "the dataset exists already");
  coll::agree(coll::world(), problem);

  const auto n = static_cast<std::size_t>(p.ndim());
  std::vector<hsize_t> ext(n);
  for (std::size_t k = 0; k < n; ++k)
    ext[k] = static_cast<hsize_t>(p.extent(static_cast<int>(k)));
  h5_handle type(detail::h5_type(a.type()), H5Tclose);
  h5_handle fspace(H5Screate_simple(static_cast<int>(n), ext.data(), nullptr), H5Sclose);
  h5_handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  h5_handle set(H5Dcreate2(h5_, dataset.c_str(), type.get(), fspace.get(), lcpl.get(), H5P_DEFAULT,
                           H5P_DEFAULT),
                H5Dclose);
  if (!set.ok()) problem = who + "cannot create the dataset";
  coll::agree(coll::world(), problem);
  try {
    write_layout(set.get(), a, p, rt.size());
  } catch (const error& e) {
    problem = who + e.what();
  }
  coll::agree(coll::world(), problem);

  // A full disk is an agreed error here, before the transfer (see the top of this file).
  if (rt.rank() == 0) problem = reserve_allocated(h5_, set.get(), *tmp_file_);
  coll::agree(coll::world(), problem);

  std::vector<row_ref> rows;
  const index_t count = select_local(a, p, fspace.get(), rows);
  const std::size_t es = a.elem_size();
  std::vector<std::byte> packed(static_cast<std::size_t>(count) * es);
  const auto* base = static_cast<const std::byte*>(a.local_data());
  std::size_t at = 0;
  for (const row_ref& r : rows) {
    std::memcpy(packed.data() + at, base + r.offset, r.bytes);
    at += r.bytes;
  }
  h5_handle mspace(memory_space(count), H5Sclose);
  h5_handle dxpl(collective_transfer(), H5Pclose);
  if (H5Dwrite(set.get(), type.get(), mspace.get(), fspace.get(), dxpl.get(), packed.data()) < 0)
    problem = who + "H5Dwrite failed on rank " + std::to_string(rt.rank());
  if (problem.empty() && fault_rank.load() == rt.rank()) {
    fault_rank = -1;
    problem = who + "injected fault on rank " + std::to_string(rt.rank()) + " (test hook)";
  }
  if (!set.reset() && problem.empty()) problem = who + "closing the dataset failed";
  coll::agree(coll::world(), problem);
  failed_ = false;
}

void h5_writer::commit() {
  runtime& rt = runtime::current();
  rt.require_owner_thread("ga::h5_writer::commit");
  const std::string who = "ga::write '" + file_ + "': ";
  if (failed_ || committed_ || h5_ < 0)
    throw error(who + (committed_ ? "already committed" : "cannot commit after a failed write"));
  std::string problem;
  {
    detail::h5_quiet quiet;
    if (H5Fclose(h5_) < 0) problem = who + "closing '" + tmp_ + "' failed";
    h5_ = -1;
  }
  coll::agree(coll::world(), problem);  // also the barrier: every rank has closed the file
  opened_.release();
  if (rt.rank() == 0) {
    try {
      tmp_file_->commit();  // fsync, then rename: the data is on disk before the name points to it
    } catch (const error& e) {
      problem = e.what();
    }
  }
  try {
    coll::agree(coll::world(), problem);
  } catch (...) {
    discard();
    throw;
  }
  committed_ = true;
  tmp_file_.reset();
}

namespace detail {

void read_core(array_core& a, const std::string& file, const std::string& dataset,
               const std::optional<patch>& given) {
  runtime& rt = a.rt();
  rt.require_owner_thread("ga::read");
  const std::string who =
      "ga::read of '" + file + "', dataset '" + dataset + "' into '" + a.name() + "': ";
  if (!a.on_world())
    throw error(who + "the array lives on group '" + a.group().name() +
                "'; files are read into arrays of the world group only");
  const patch p = given ? *given : whole(a.dist());
  coll::agree_on(coll::world(), coll::call_record("ga::read", file, "reading")
                                    .add("array", "'" + a.name() + "'")
                                    .add("dataset", "'" + dataset + "'")
                                    .add("patch", p.str()));
  a.dist().validate(p, "read");
  // Rank 0 checks everything a user can get wrong, then all ranks agree on its verdict.
  std::string problem;
  if (rt.rank() == 0) {
    h5_quiet quiet;
    // A FIFO or a device would block or never end HDF5's reads.
    if (std::string bad = input_file_problem(file); !bad.empty()) {
      problem = who + bad;
    } else if (H5Fis_hdf5(file.c_str()) <= 0) {
      problem = who + "not an HDF5 file";
    } else {
      h5_handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
      if (!f.ok()) {
        problem = who + "cannot open the file";
      } else if (dataset.empty() || !h5_path_exists(f.get(), dataset)) {
        problem = who + "no such dataset in the file";
      } else {
        h5_handle set(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
        h5_handle type(set.ok() ? H5Dget_type(set.get()) : -1, H5Tclose);
        h5_handle space(set.ok() ? H5Dget_space(set.get()) : -1, H5Sclose);
        if (!set.ok() || !type.ok() || !space.ok()) {
          problem = who + "'" + dataset + "' is not a dataset";
        } else {
          const std::string held = element_name(type.get());
          const int rank = H5Sget_simple_extent_ndims(space.get());
          std::vector<hsize_t> ext(static_cast<std::size_t>(std::max(rank, 0)));
          H5Sget_simple_extent_dims(space.get(), ext.data(), nullptr);
          index dims;
          for (hsize_t x : ext)
            dims.push_back(static_cast<index_t>(x));
          index want(static_cast<std::size_t>(p.ndim()));
          for (int k = 0; k < p.ndim(); ++k)
            want[static_cast<std::size_t>(k)] = p.extent(k);
          if (held != to_string(a.type()))
            problem = who + "wrong element type: the dataset holds " + held + ", the array " +
                      std::string(to_string(a.type()));
          else if (!(dims == want))
            problem = who + "wrong shape: the dataset is " + format_index(dims) + ", the " +
                      (given ? "patch " + p.str() + " is " : std::string("array is ")) +
                      extents_of(p);
        }
      }
    }
  }
  coll::agree(coll::world(), problem);
  a.sync();  // nobody still writes to or reads from this array

  h5_quiet quiet;
  h5_handle fapl(mpio_access(rt), H5Pclose);
  h5_handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  h5_handle set(f.ok() ? H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT) : -1, H5Dclose);
  if (!set.ok()) problem = who + "cannot open it on rank " + std::to_string(rt.rank());
  coll::agree(coll::world(), problem);
  h5_handle fspace(H5Dget_space(set.get()), H5Sclose);
  std::vector<row_ref> rows;
  const index_t count = select_local(a, p, fspace.get(), rows);
  const std::size_t es = a.elem_size();
  std::vector<std::byte> packed(static_cast<std::size_t>(count) * es);
  h5_handle type(h5_type(a.type()), H5Tclose);
  h5_handle mspace(memory_space(count), H5Sclose);
  h5_handle dxpl(collective_transfer(), H5Pclose);
  if (H5Dread(set.get(), type.get(), mspace.get(), fspace.get(), dxpl.get(), packed.data()) < 0)
    problem = who + "H5Dread failed on rank " + std::to_string(rt.rank());
  set.reset();
  f.reset();
  coll::agree(coll::world(), problem);
  auto* base = static_cast<std::byte*>(a.local_data());
  std::size_t at = 0;
  for (const row_ref& r : rows) {
    std::memcpy(base + r.offset, packed.data() + at, r.bytes);
    at += r.bytes;
  }
  rt.barrier();  // every rank's part is in place before anyone reads it
}

}  // namespace detail

dataset_info describe(const std::string& file, const std::string& dataset) {
  const std::string who = "ga::describe '" + file + "', dataset '" + dataset + "'";
  detail::h5_quiet quiet;
  if (const std::string bad = input_file_problem(file); !bad.empty()) throw error(who + ": " + bad);
  if (H5Fis_hdf5(file.c_str()) <= 0) throw error(who + ": not an HDF5 file");
  h5_handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) throw error(who + ": cannot open the file");
  if (!detail::h5_path_exists(f.get(), dataset)) throw error(who + ": no such dataset");
  h5_handle set(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.ok()) throw error(who + ": not a dataset");
  dataset_info info;
  h5_handle type(H5Dget_type(set.get()), H5Tclose);
  info.element_type = detail::element_name(type.get());
  h5_handle space(H5Dget_space(set.get()), H5Sclose);
  std::vector<hsize_t> ext(
      static_cast<std::size_t>(std::max(H5Sget_simple_extent_ndims(space.get()), 0)));
  H5Sget_simple_extent_dims(space.get(), ext.data(), nullptr);
  for (hsize_t x : ext)
    info.dims.push_back(static_cast<index_t>(x));
  info.array_dims = detail::read_attr_ints(set.get(), "array_dims", who);
  info.patch_lo = detail::read_attr_ints(set.get(), "patch_lo", who);
  info.layout_kind = detail::read_attr_string(set.get(), "layout", who);
  info.writer_ranks = detail::read_attr_ints(set.get(), "writer_ranks", who).at(0);
  const index ghosts = detail::read_attr_ints(set.get(), "ghosts", who);
  if (info.layout_kind == "block_cyclic") {
    const auto grid = detail::read_attr_ints(set.get(), "process_grid", who);
    info.layout =
        layout_spec::block_cyclic(detail::read_attr_ints(set.get(), "tile", who),
                                  {static_cast<int>(grid.at(0)), static_cast<int>(grid.at(1))});
  } else {
    std::vector<std::vector<index_t>> starts;
    for (std::size_t k = 0; k < info.array_dims.size(); ++k) {
      const std::string name = "boundaries_" + std::to_string(k);
      auto b = detail::read_attr_ints(set.get(), name.c_str(), who);
      if (!b.empty()) b.pop_back();  // the last boundary is the extent
      starts.push_back(std::move(b));
    }
    info.layout = layout_spec::irregular(std::move(starts));
  }
  if (std::any_of(ghosts.begin(), ghosts.end(), [](index_t g) { return g > 0; }))
    info.layout = info.layout.with_ghosts(ghosts);
  return info;
}

}  // namespace gaea::ga
