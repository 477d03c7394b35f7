// Snapshots through the global-array layer's collective HDF5 I/O (gaea/ga/io.hpp): the
// populations are written straight from the solver's array; density, velocity and the solid
// flag go through scratch arrays with the populations' (y, x) tiles, filled locally.
#include "snapshot.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/ga/io.hpp"
#include "gaea/runtime/runtime.hpp"
#include "lattice.hpp"
#include "restart_check.hpp"

namespace lbm {

namespace {

std::string snapshot_name(std::int64_t step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "lbm_%09lld.h5", static_cast<long long>(step));
  return buf;
}

// Tile starts of dimension `d` of a distribution (its boundaries without the final extent).
std::vector<index_t> starts_of(const gaea::ga::distribution& dist, int d) {
  std::vector<index_t> b = dist.boundaries(d);
  b.pop_back();
  return b;
}

// A 1-D array holding `v` (replicated on every rank): each rank fills its own block.
gaea::global_array<double> replicated_to_array(const std::vector<double>& v,
                                               const std::string& name) {
  gaea::global_array<double> a(name, {static_cast<index_t>(v.size())});
  for (const auto& t : a.local_tiles())
    for (index_t i = t.box.lo[0]; i <= t.box.hi[0]; ++i)
      t.origin[(i - t.box.lo[0]) * t.strides[0]] = v[static_cast<std::size_t>(i)];
  return a;
}

}  // namespace

void check_snapshot_dir(const std::string& dir, const std::string& what) {
  namespace fs = std::filesystem;
  const std::string who = what + " '" + dir + "': ";
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw gaea::error(who +
                        "is not a directory (snapshots and the series lbm.xmf go into a "
                        "directory: give a directory name)");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw gaea::error(who + "the directory is not writable: " + std::strerror(errno));
    return;
  }
  // Made at the first snapshot, with its missing parents: the nearest existing one decides.
  fs::path up = fs::path(dir).parent_path();
  while (!up.empty() && !fs::exists(up, ec))
    up = up.parent_path();
  if (up.empty()) up = ".";
  if (!fs::is_directory(up, ec))
    throw gaea::error(who + "cannot be created: '" + up.string() + "' is not a directory");
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    throw gaea::error(who + "cannot be created in '" + up.string() + "': " + std::strerror(errno));
}

std::string write_snapshot(solver& s, const std::string& dir, const snapshot_extra& extra) {
  gaea::runtime& rt = gaea::runtime::current();
  const config& g = s.problem();
  if (rt.rank() == 0) {
    std::error_code ec;  // a failure shows as the writer's "cannot create the temporary file"
    std::filesystem::create_directories(dir, ec);
  }
  rt.barrier();
  const std::string path = (std::filesystem::path(dir) / snapshot_name(s.steps_done())).string();
  auto& f = s.populations();
  f.sync();
  // Derived fields on the populations' (y, x) tiles, so that every rank fills its own cells.
  const std::vector<index_t> ys = starts_of(f.layout(), 1), xs = starts_of(f.layout(), 2);
  gaea::global_array<double> rho("lbm_density", {g.ny, g.nx},
                                 gaea::ga::layout_spec::irregular({ys, xs}));
  gaea::global_array<double> vel("lbm_velocity", {g.ny, g.nx, 3},
                                 gaea::ga::layout_spec::irregular({ys, xs, {0}}));
  gaea::global_array<std::int32_t> solid("lbm_solid", {g.ny, g.nx},
                                         gaea::ga::layout_spec::irregular({ys, xs}));
  const auto tiles = f.local_tiles();
  if (!tiles.empty()) {
    const auto& t = tiles[0];
    const auto tr = rho.local_tiles().at(0);  // copies: local_tiles() returns by value
    const auto tv = vel.local_tiles().at(0);
    const auto ts = solid.local_tiles().at(0);
    for (index_t r = 0; r < t.box.extent(1); ++r)
      for (index_t c = 0; c < t.box.extent(2); ++c) {
        const index_t y = t.box.lo[1] + r, x = t.box.lo[2] + c;
        double fc[q];
        for (int i = 0; i < q; ++i)
          fc[i] = t.origin[i * t.strides[0] + r * t.strides[1] + c];
        const bool is_solid = g.flag(x, y) == cell_flag::solid;
        double rh = 0, ux = 0, uy = 0;
        moments(fc, g.fx, g.fy, rh, ux, uy);
        if (is_solid) rh = 1.0, ux = uy = 0.0;
        tr.origin[r * tr.strides[0] + c] = rh;
        double* v = tv.origin + r * tv.strides[0] + c * tv.strides[1];
        v[0] = ux, v[1] = uy, v[2] = 0.0;
        ts.origin[r * ts.strides[0] + c] = is_solid ? 1 : 0;
      }
  }
  gaea::ga::h5_writer out(path);
  out.write(f, "populations");
  out.write(rho, "density");
  out.write(vel, "velocity");
  out.write(solid, "solid");
  // An array cannot be empty: without a monitor profile there is no dataset, only its length.
  if (!extra.monitor.empty())
    out.write(replicated_to_array(extra.monitor, "lbm_monitor"), "monitor");
  out.attribute("step", s.steps_done());
  out.attribute("nx", g.nx);
  out.attribute("ny", g.ny);
  out.attribute("tau", g.tau);
  out.attribute("fx", g.fx);
  out.attribute("fy", g.fy);
  out.attribute("case", g.name);
  out.attribute("monitor_step", extra.monitor_step);
  out.attribute("monitor_length", static_cast<std::int64_t>(extra.monitor.size()));
  out.commit();
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
      << item(d2, "Int", 4, "solid") << "    </Attribute>\n"
      << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  const auto path = std::filesystem::path(dir) / "lbm.xmf";
  gaea::output_file out(path, "lbm: time series");
  out.write(x.str());
  out.commit();
}

snapshot_extra read_snapshot(solver& s, const std::string& file) {
  const config& g = s.problem();
  // Every rank reads and checks the attributes on its own (a missing file too), and they agree
  // (restart_check.hpp).
  const restart_header h = load_restart_header(file, g);
  const std::int64_t step = h.step;
  snapshot_extra extra;
  extra.monitor_step = h.monitor_step;
  const std::int64_t len = h.monitor_length;
  gaea::ga::read(s.populations(), file, "populations");
  if (len > 0) {
    gaea::global_array<double> mon("lbm_monitor", {len});
    gaea::ga::read(mon, file, "monitor");
    extra.monitor.assign(static_cast<std::size_t>(len), 0.0);
    mon.get(gaea::ga::patch{{0}, {len - 1}}, extra.monitor);
  }
  check_restart_state(s, file, extra.monitor);
  s.set_steps_done(step);
  return extra;
}

}  // namespace lbm
