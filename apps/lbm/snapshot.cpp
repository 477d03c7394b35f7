// Snapshots with the parallel HDF5 C API. Kept in one file so that it can be replaced by the
// collective ga::write / ga::read of the global-array I/O work once that lands.
#include "snapshot.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gaea/base/error.hpp"
#include "gaea/runtime/runtime.hpp"
#include "lattice.hpp"

namespace gaea::lbm {

namespace {

// Closes an HDF5 handle when it goes out of scope.
struct h5 {
  hid_t id;
  herr_t (*close)(hid_t);
  h5(hid_t i, herr_t (*c)(hid_t), const std::string& what) : id(i), close(c) {
    if (id < 0) throw Error("lbm snapshot: " + what + " failed");
  }
  ~h5() { close(id); }
  h5(const h5&) = delete;
  h5& operator=(const h5&) = delete;
  operator hid_t() const { return id; }  // NOLINT: a handle
};

void check(herr_t e, const std::string& what) {
  if (e < 0) throw Error("lbm snapshot: " + what + " failed");
}

hid_t parallel_fapl() {
  const hid_t p = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL);
  return p;
}

template <class T>
void attr(hid_t loc, const char* name, hid_t type, const T& v) {
  h5 s(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
  h5 a(H5Acreate2(loc, name, type, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
       std::string("attribute ") + name);
  check(H5Awrite(a, type, &v), std::string("attribute ") + name);
}

void attr_string(hid_t loc, const char* name, const std::string& v) {
  h5 t(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  H5Tset_size(t, v.size() + 1);
  h5 s(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
  h5 a(H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
       std::string("attribute ") + name);
  check(H5Awrite(a, t, v.c_str()), std::string("attribute ") + name);
}

template <class T>
T read_attr(hid_t loc, const char* name, hid_t type, const std::string& file) {
  if (H5Aexists(loc, name) <= 0)
    throw Error("lbm snapshot '" + file + "': attribute '" + name + "' missing");
  h5 a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
  T v{};
  check(H5Aread(a, type, &v), std::string("attribute ") + name);
  return v;
}

// One dataset of extents `dims`; this rank writes (or reads) the box at `start` of extents
// `count` from memory of extents `mdims` at offset `moff` (count all zero: nothing).
struct slab {
  std::vector<hsize_t> dims, start, count, mdims, moff;
};

void transfer(hid_t file, const char* name, hid_t type, const slab& s, void* mem, bool write) {
  const int n = static_cast<int>(s.dims.size());
  h5 fs(H5Screate_simple(n, s.dims.data(), nullptr), H5Sclose, "file space");
  hid_t dset_id = write ? H5Dcreate2(file, name, type, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                        : H5Dopen2(file, name, H5P_DEFAULT);
  h5 d(dset_id, H5Dclose, std::string(write ? "creating" : "opening") + " dataset " + name);
  h5 ms(H5Screate_simple(n, s.mdims.data(), nullptr), H5Sclose, "memory space");
  bool none = false;
  for (hsize_t c : s.count)
    none = none || c == 0;
  if (none) {
    H5Sselect_none(fs);
    H5Sselect_none(ms);
  } else {
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, s.start.data(), nullptr, s.count.data(), nullptr),
          "file hyperslab");
    check(H5Sselect_hyperslab(ms, H5S_SELECT_SET, s.moff.data(), nullptr, s.count.data(), nullptr),
          "memory hyperslab");
  }
  h5 x(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "transfer list");
  H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
  if (write)
    check(H5Dwrite(d, type, ms, fs, x, mem), std::string("writing ") + name);
  else
    check(H5Dread(d, type, ms, fs, x, mem), std::string("reading ") + name);
}

std::string snapshot_name(std::int64_t step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "lbm_%09lld.h5", static_cast<long long>(step));
  return buf;
}

}  // namespace

std::string write_snapshot(solver& s, const std::string& dir, const snapshot_extra& extra) {
  runtime& rt = runtime::current();
  const config& g = s.problem();
  if (rt.rank() == 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }
  rt.barrier();  // nobody enters MPI-IO while a peer still needs Gaea progress
  const std::string path = (std::filesystem::path(dir) / snapshot_name(s.steps_done())).string();
  const std::string tmp = path + ".tmp";
  auto& f = s.populations();
  f.sync();
  const auto tiles = f.local_tiles();
  const bool mine = !tiles.empty();
  const auto h = static_cast<hsize_t>(mine ? tiles[0].box.extent(1) : 0);
  const auto wd = static_cast<hsize_t>(mine ? tiles[0].box.extent(2) : 0);
  const auto y0 = static_cast<hsize_t>(mine ? tiles[0].box.lo[1] : 0);
  const auto x0 = static_cast<hsize_t>(mine ? tiles[0].box.lo[2] : 0);
  const auto ny = static_cast<hsize_t>(g.ny), nx = static_cast<hsize_t>(g.nx);
  // Density, velocity and the solid flag of the local cells, contiguous.
  std::vector<double> rho(h * wd), vel(h * wd * 3);
  std::vector<std::uint8_t> solid(h * wd);
  if (mine) {
    const auto& t = tiles[0];
    for (hsize_t r = 0; r < h; ++r)
      for (hsize_t c = 0; c < wd; ++c) {
        const auto k = r * wd + c;
        const auto y = static_cast<index_t>(y0 + r), x = static_cast<index_t>(x0 + c);
        solid[k] = g.flag(x, y) == cell_flag::solid ? 1 : 0;
        double fc[q];
        for (int i = 0; i < q; ++i)
          fc[i] = t.origin[i * t.strides[0] + static_cast<index_t>(r) * t.strides[1] +
                           static_cast<index_t>(c)];
        double ux = 0, uy = 0;
        moments(fc, g.fx, g.fy, rho[k], ux, uy);
        if (solid[k]) rho[k] = 1.0, ux = uy = 0.0;
        vel[3 * k] = ux, vel[3 * k + 1] = uy, vel[3 * k + 2] = 0.0;
      }
  }
  {
    h5 fapl(parallel_fapl(), H5Pclose, "file access list");
    h5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose, "creating " + tmp);
    attr(file, "step", H5T_NATIVE_INT64, s.steps_done());
    attr(file, "nx", H5T_NATIVE_INT64, g.nx);
    attr(file, "ny", H5T_NATIVE_INT64, g.ny);
    attr(file, "tau", H5T_NATIVE_DOUBLE, g.tau);
    attr(file, "fx", H5T_NATIVE_DOUBLE, g.fx);
    attr(file, "fy", H5T_NATIVE_DOUBLE, g.fy);
    attr(file, "monitor_step", H5T_NATIVE_INT64, extra.monitor_step);
    attr_string(file, "case", g.name);
    const auto ph = static_cast<hsize_t>(mine ? tiles[0].strides[0] / tiles[0].strides[1] : 0);
    const auto pw = static_cast<hsize_t>(mine ? tiles[0].strides[1] : 0);
    double* base = mine ? tiles[0].origin - tiles[0].strides[1] - 1 : nullptr;
    transfer(file, "populations", H5T_NATIVE_DOUBLE,
             {{q, ny, nx}, {0, y0, x0}, {q, h, wd}, {q, mine ? ph : 1, mine ? pw : 1}, {0, 1, 1}},
             base, true);
    transfer(
        file, "density", H5T_NATIVE_DOUBLE,
        {{ny, nx}, {y0, x0}, {h, wd}, {std::max<hsize_t>(h, 1), std::max<hsize_t>(wd, 1)}, {0, 0}},
        rho.data(), true);
    transfer(file, "velocity", H5T_NATIVE_DOUBLE,
             {{ny, nx, 3},
              {y0, x0, 0},
              {h, wd, 3},
              {std::max<hsize_t>(h, 1), std::max<hsize_t>(wd, 1), 3},
              {0, 0, 0}},
             vel.data(), true);
    transfer(
        file, "solid", H5T_NATIVE_UINT8,
        {{ny, nx}, {y0, x0}, {h, wd}, {std::max<hsize_t>(h, 1), std::max<hsize_t>(wd, 1)}, {0, 0}},
        solid.data(), true);
    // A dataset of zero elements has no storage to write to: create it only.
    const auto m = static_cast<hsize_t>(extra.monitor.size());
    if (m == 0) {
      h5 sp(H5Screate_simple(1, &m, nullptr), H5Sclose, "monitor space");
      h5 d(
          H5Dcreate2(file, "monitor", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
          H5Dclose, "creating dataset monitor");
    } else {
      std::vector<double> mon = extra.monitor;
      const hsize_t mine_m = rt.rank() == 0 ? m : 0;
      transfer(file, "monitor", H5T_NATIVE_DOUBLE, {{m}, {0}, {mine_m}, {m}, {0}}, mon.data(),
               true);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has closed the file
  if (rt.rank() == 0) {
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) std::fprintf(stderr, "lbm: renaming %s: %s\n", tmp.c_str(), ec.message().c_str());
  }
  rt.barrier();
  return path;
}

void write_xdmf(const std::string& dir, const config& cfg,
                const std::vector<std::pair<std::int64_t, std::string>>& snaps) {
  std::ostringstream x;
  const std::string d2 = std::to_string(cfg.ny) + " " + std::to_string(cfg.nx);
  x << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n <Domain>\n"
    << "  <Grid Name=\"lbm\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const auto& [step, path] : snaps) {
    const std::string file = std::filesystem::path(path).filename().string();
    auto item = [&](const std::string& dims, const char* type, int prec, const char* ds) {
      return "     <DataItem Dimensions=\"" + dims + "\" NumberType=\"" + type + "\" Precision=\"" +
             std::to_string(prec) + "\" Format=\"HDF\">" + file + ":/" + ds + "</DataItem>\n";
    };
    x << "   <Grid Name=\"step " << step << "\" GridType=\"Uniform\">\n"
      << "    <Time Value=\"" << step << "\"/>\n"
      << "    <Topology TopologyType=\"2DCoRectMesh\" Dimensions=\"" << d2 << "\"/>\n"
      << "    <Geometry GeometryType=\"ORIGIN_DXDY\">\n"
      << "     <DataItem Dimensions=\"2\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">0 "
         "0</DataItem>\n"
      << "     <DataItem Dimensions=\"2\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">1 "
         "1</DataItem>\n"
      << "    </Geometry>\n"
      << "    <Attribute Name=\"density\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << item(d2, "Float", 8, "density") << "    </Attribute>\n"
      << "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
      << item(d2 + " 3", "Float", 8, "velocity") << "    </Attribute>\n"
      << "    <Attribute Name=\"solid\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << item(d2, "UChar", 1, "solid") << "    </Attribute>\n"
      << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  const auto path = std::filesystem::path(dir) / "lbm.xmf";
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << x.str();
    if (!out) throw Error("lbm: cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

snapshot_extra read_snapshot(solver& s, const std::string& file) {
  runtime& rt = runtime::current();
  const config& g = s.problem();
  if (!std::filesystem::exists(file)) throw Error("lbm: restart file '" + file + "' not found");
  rt.barrier();
  auto& f = s.populations();
  f.sync();
  snapshot_extra extra;
  std::int64_t step = 0;
  {
    h5 fapl(parallel_fapl(), H5Pclose, "file access list");
    h5 h(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose, "opening " + file);
    const auto fnx = read_attr<std::int64_t>(h, "nx", H5T_NATIVE_INT64, file);
    const auto fny = read_attr<std::int64_t>(h, "ny", H5T_NATIVE_INT64, file);
    if (fnx != g.nx || fny != g.ny)
      throw Error("lbm: restart file '" + file + "' holds a " + std::to_string(fnx) + " x " +
                  std::to_string(fny) + " grid, the run is " + std::to_string(g.nx) + " x " +
                  std::to_string(g.ny));
    step = read_attr<std::int64_t>(h, "step", H5T_NATIVE_INT64, file);
    extra.monitor_step = read_attr<std::int64_t>(h, "monitor_step", H5T_NATIVE_INT64, file);
    const auto tiles = f.local_tiles();
    const bool mine = !tiles.empty();
    const auto hh = static_cast<hsize_t>(mine ? tiles[0].box.extent(1) : 0);
    const auto wd = static_cast<hsize_t>(mine ? tiles[0].box.extent(2) : 0);
    const auto y0 = static_cast<hsize_t>(mine ? tiles[0].box.lo[1] : 0);
    const auto x0 = static_cast<hsize_t>(mine ? tiles[0].box.lo[2] : 0);
    const auto ph = static_cast<hsize_t>(mine ? tiles[0].strides[0] / tiles[0].strides[1] : 1);
    const auto pw = static_cast<hsize_t>(mine ? tiles[0].strides[1] : 1);
    double* base = mine ? tiles[0].origin - tiles[0].strides[1] - 1 : nullptr;
    transfer(h, "populations", H5T_NATIVE_DOUBLE,
             {{q, static_cast<hsize_t>(g.ny), static_cast<hsize_t>(g.nx)},
              {0, y0, x0},
              {q, hh, wd},
              {q, ph, pw},
              {0, 1, 1}},
             base, false);
    {
      h5 d(H5Dopen2(h, "monitor", H5P_DEFAULT), H5Dclose, "opening dataset monitor");
      h5 sp(H5Dget_space(d), H5Sclose, "monitor space");
      const auto m = static_cast<std::size_t>(H5Sget_simple_extent_npoints(sp));
      extra.monitor.assign(m, 0.0);
      const hsize_t mm = m;
      if (m > 0)
        transfer(h, "monitor", H5T_NATIVE_DOUBLE, {{mm}, {0}, {mm}, {mm}, {0}},
                 extra.monitor.data(), false);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rt.barrier();
  f.sync();
  s.set_steps_done(step);
  return extra;
}

}  // namespace gaea::lbm
