#include "h5_io.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstdio>

#include "gaea/runtime/runtime.hpp"

namespace gaea::lu {

namespace {

/// Closes an HDF5 handle at scope exit.
class h5_handle {
 public:
  h5_handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~h5_handle() {
    if (id_ >= 0) close_(id_);
  }
  h5_handle(const h5_handle&) = delete;
  h5_handle& operator=(const h5_handle&) = delete;
  hid_t get() const noexcept { return id_; }
  bool ok() const noexcept { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void require_h5(bool ok, const std::string& path, const std::string& what) {
  if (!ok) throw Error("lu HDF5 '" + path + "': " + what);
}

hid_t mpio_access() {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  return fapl;
}

/// Reads (`write` false) or writes this rank's tiles of `m` from/to dataset `d`.
void transfer_tiles(hid_t d, const tiled_matrix& m, bool write, const std::string& path) {
  const h5_handle fspace(H5Dget_space(d), H5Sclose);
  for (const auto& lt : m.local_tiles()) {
    const hsize_t start[2] = {static_cast<hsize_t>(m.start(lt.ti)),
                              static_cast<hsize_t>(m.start(lt.tj))};
    const hsize_t count[2] = {static_cast<hsize_t>(lt.rows), static_cast<hsize_t>(lt.cols)};
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    const h5_handle mspace(H5Screate_simple(2, count, nullptr), H5Sclose);
    const herr_t rc =
        write ? H5Dwrite(d, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, lt.data)
              : H5Dread(d, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, lt.data);
    require_h5(rc >= 0, path,
               std::string(write ? "writing" : "reading") + " tile (" + std::to_string(lt.ti) +
                   ", " + std::to_string(lt.tj) + ")");
  }
}

}  // namespace

index_t h5_matrix_extent(const std::string& path, const std::string& dataset) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const h5_handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  require_h5(f.ok(), path, "cannot open the file");
  const h5_handle d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  require_h5(d.ok(), path, "no dataset '" + dataset + "'");
  const h5_handle s(H5Dget_space(d.get()), H5Sclose);
  hsize_t dims[2] = {0, 0};
  require_h5(H5Sget_simple_extent_ndims(s.get()) == 2, path,
             "dataset '" + dataset + "' is not 2-D");
  H5Sget_simple_extent_dims(s.get(), dims, nullptr);
  require_h5(dims[0] == dims[1] && dims[0] > 0, path,
             "dataset '" + dataset + "' is " + std::to_string(dims[0]) + "x" +
                 std::to_string(dims[1]) + ", not square");
  return static_cast<index_t>(dims[0]);
}

void h5_read_matrix(const std::string& path, const std::string& dataset, tiled_matrix& m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const h5_handle fapl(mpio_access(), H5Pclose);
  const h5_handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  require_h5(f.ok(), path, "cannot open the file");
  const h5_handle d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  require_h5(d.ok(), path, "no dataset '" + dataset + "'");
  transfer_tiles(d.get(), m, false, path);
}

void h5_write_factors(const std::string& path, const tiled_matrix& m,
                      std::span<const index_t> pivots) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string tmp = path + ".tmp";
  {
    const h5_handle fapl(mpio_access(), H5Pclose);
    const h5_handle f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    require_h5(f.ok(), tmp, "cannot create the file");
    const hsize_t dims[2] = {static_cast<hsize_t>(m.n()), static_cast<hsize_t>(m.n())};
    const h5_handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const h5_handle d(H5Dcreate2(f.get(), "LU", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                                 H5P_DEFAULT, H5P_DEFAULT),
                      H5Dclose);
    require_h5(d.ok(), tmp, "cannot create dataset 'LU'");
    transfer_tiles(d.get(), m, true, tmp);
    // Attributes are written collectively (every rank, same values).
    const h5_handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    for (const auto& [name, value] : {std::pair{"n", m.n()}, std::pair{"block", m.nb()}}) {
      const h5_handle at(
          H5Acreate2(d.get(), name, H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
          H5Aclose);
      require_h5(at.ok() && H5Awrite(at.get(), H5T_NATIVE_INT64, &value) >= 0, tmp,
                 std::string("attribute ") + name);
    }
    if (!pivots.empty()) {
      const hsize_t pn = pivots.size();
      const h5_handle ps(H5Screate_simple(1, &pn, nullptr), H5Sclose);
      const h5_handle pd(H5Dcreate2(f.get(), "pivots", H5T_STD_I64LE, ps.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose);
      require_h5(pd.ok(), tmp, "cannot create dataset 'pivots'");
      // Replicated on every rank: rank 0 writes it; the others select nothing.
      const bool writer = runtime::current().rank() == 0;
      const h5_handle fs(H5Dget_space(pd.get()), H5Sclose);
      const h5_handle ms(H5Screate_simple(1, &pn, nullptr), H5Sclose);
      if (!writer) {
        H5Sselect_none(fs.get());
        H5Sselect_none(ms.get());
      }
      require_h5(
          H5Dwrite(pd.get(), H5T_NATIVE_INT64, ms.get(), fs.get(), H5P_DEFAULT, pivots.data()) >= 0,
          tmp, "writing 'pivots'");
    }
  }
  runtime& rt = runtime::current();
  rt.barrier();
  if (rt.rank() == 0 && std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("lu HDF5 '" + path + "': cannot rename " + tmp);
  rt.barrier();
}

}  // namespace gaea::lu
