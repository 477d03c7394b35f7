// Obstacle masks for gaea-lbm, read from Netpbm images (PBM/PGM) or HDF5 datasets.

#include "mask.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>

#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/runtime/detail/hdf5.hpp"

namespace lbm {

namespace {

// Next header integer, skipping white space and '#' comments.
index_t header_int(std::istream& in, const std::string& what, const char* field) {
  for (;;) {
    const int c = in.peek();
    if (c == '#') {
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    } else if (c != EOF && std::isspace(c)) {
      in.get();
    } else {
      break;
    }
  }
  index_t v = -1;
  if (!(in >> v) || v < 1)
    throw gaea::error("mask '" + what + "': bad or missing " + field + " in the Netpbm header");
  return v;
}

// Bytes from the read position to the end of `in`, or -1 when the stream cannot tell.
index_t remaining_bytes(std::istream& in) {
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1) || !in.seekg(0, std::ios::end)) {
    in.clear();
    return -1;
  }
  const std::istream::pos_type end = in.tellg();
  in.seekg(here);
  return end == std::istream::pos_type(-1) ? -1 : static_cast<index_t>(end - here);
}

// A mask is read whole on every rank before any array exists (as `bytes_per_cell` bytes per
// cell while reading): one larger than this machine's free memory is refused by its size.
void check_mask_memory(const std::string& path, index_t nx, index_t ny, index_t bytes_per_cell) {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  const double need = static_cast<double>(nx) * static_cast<double>(ny) * bytes_per_cell;
  const double have = static_cast<double>(pages) * static_cast<double>(page);
  if (need > have)
    throw gaea::error(
        "mask '" + path + "': " + std::to_string(nx) + " x " + std::to_string(ny) + " cells need " +
        std::to_string(static_cast<std::int64_t>(need / 1048576)) + " MiB to read, more than the " +
        std::to_string(static_cast<std::int64_t>(have / 1048576)) + " MiB of memory available");
}

}  // namespace

mask read_netpbm(std::istream& in, const std::string& what) {
  char p = 0, kind = 0;
  if (!in.get(p) || !in.get(kind) || p != 'P' ||
      (kind != '1' && kind != '2' && kind != '4' && kind != '5'))
    throw gaea::error("mask '" + what + "': not a PBM/PGM image (magic must be P1, P2, P4 or P5)");
  mask m;
  m.nx = header_int(in, what, "width");
  m.ny = header_int(in, what, "height");
  if (m.nx > (1 << 20) || m.ny > (1 << 20))
    throw gaea::error("mask '" + what + "': " + std::to_string(m.nx) + " x " +
                      std::to_string(m.ny) + " is larger than 2^20 per side");
  const bool bitmap = kind == '1' || kind == '4';
  const index_t maxval = bitmap ? 1 : header_int(in, what, "maxval");
  if (maxval > 65535)
    throw gaea::error("mask '" + what + "': maxval " + std::to_string(maxval) + " > 65535");
  const bool binary = kind == '4' || kind == '5';
  if (binary) in.get();  // the single white-space character before the raster
  // The header alone must not decide an allocation: the raster it announces must be there.
  // Each pixel takes at least a byte in P1 and P5 (two at maxval > 255), two in P2 (a digit
  // and a separator, bar the last); a P4 row is packed into whole bytes.
  const index_t per_row = kind == '4'   ? (m.nx + 7) / 8
                          : kind == '5' ? m.nx * (maxval > 255 ? 2 : 1)
                          : kind == '2' ? 2 * m.nx
                                        : m.nx;
  const index_t need = per_row * m.ny - (kind == '2' ? 1 : 0);
  if (const index_t left = remaining_bytes(in); left >= 0 && left < need)
    throw gaea::error("mask '" + what + "': the header announces " + std::to_string(m.nx) + " x " +
                      std::to_string(m.ny) + " pixels, at least " + std::to_string(need) +
                      " bytes of raster, but only " + std::to_string(left) + " follow");
  check_mask_memory(what, m.nx, m.ny, 1);
  m.solid.assign(static_cast<std::size_t>(m.nx * m.ny), 0);
  auto truncated = [&](index_t row) {
    return gaea::error("mask '" + what + "': raster ends in row " + std::to_string(row) + " of " +
                       std::to_string(m.ny));
  };
  for (index_t row = 0; row < m.ny; ++row) {
    std::uint8_t* out = m.solid.data() + (m.ny - 1 - row) * m.nx;  // first row is the top
    if (kind == '4') {
      std::vector<char> bytes(static_cast<std::size_t>((m.nx + 7) / 8));
      if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) throw truncated(row);
      for (index_t x = 0; x < m.nx; ++x)
        out[x] =
            (static_cast<unsigned char>(bytes[static_cast<std::size_t>(x / 8)]) >> (7 - x % 8)) &
            1U;
      continue;
    }
    for (index_t x = 0; x < m.nx; ++x) {
      index_t v = 0;
      if (kind == '1') {
        char c = 0;
        do {
          if (!in.get(c)) throw truncated(row);
        } while (std::isspace(static_cast<unsigned char>(c)));
        if (c != '0' && c != '1')
          throw gaea::error("mask '" + what + "': PBM pixel '" + std::string(1, c) +
                            "' is not 0 or 1");
        v = c - '0';
      } else if (kind == '2') {
        if (!(in >> v) || v < 0 || v > maxval) throw truncated(row);
      } else {
        unsigned char b[2] = {0, 0};
        const std::streamsize nb = maxval > 255 ? 2 : 1;
        if (!in.read(reinterpret_cast<char*>(b), nb)) throw truncated(row);
        v = nb == 2 ? b[0] * 256 + b[1] : b[0];
      }
      out[x] = bitmap ? static_cast<std::uint8_t>(v) : static_cast<std::uint8_t>(2 * v < maxval);
    }
  }
  return m;
}

mask read_mask(const std::string& path) {
  const auto ends = [&](const std::string& s) {
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".h5") || ends(".hdf5")) {
    // Raw serial HDF5 on purpose, not ga::read: the mask is needed whole on every rank before
    // any array exists (it decides the geometry), and the file may come from any tool, with
    // "solid" of any integer type (uint8 from h5py or older snapshots, int32 from ours), which
    // HDF5's conversion handles and ga::read (exact element types only) does not.
    gaea::check_input_file(path, "mask");  // a FIFO would block H5Fopen
    using gaea::detail::h5_handle;
    h5_handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) throw gaea::error("mask '" + path + "': cannot open as HDF5");
    h5_handle set(H5Dopen2(file.get(), "solid", H5P_DEFAULT), H5Dclose);
    if (!set.ok()) throw gaea::error("mask '" + path + "': no dataset 'solid'");
    const hid_t d = set.get();
    h5_handle space(H5Dget_space(d), H5Sclose);
    h5_handle data_type(H5Dget_type(d), H5Tclose);
    const hid_t s = space.get();
    const hid_t type = data_type.get();
    // Only integers: HDF5 would silently truncate 0.7 to 0 when converting a float dataset.
    const bool integer = type >= 0 && H5Tget_class(type) == H5T_INTEGER;
    hsize_t dims[2] = {0, 0};
    const bool ok = integer && H5Sget_simple_extent_ndims(s) == 2 &&
                    H5Sget_simple_extent_dims(s, dims, nullptr) == 2 && dims[0] > 0 &&
                    dims[1] > 0 && dims[0] <= (1U << 20) && dims[1] <= (1U << 20);
    mask m;
    std::vector<std::int64_t> raw;
    std::string too_big;
    if (ok) {
      m.ny = static_cast<index_t>(dims[0]);
      m.nx = static_cast<index_t>(dims[1]);
      try {
        check_mask_memory(path, m.nx, m.ny, sizeof(std::int64_t) + 1);
        raw.resize(static_cast<std::size_t>(m.nx * m.ny));
      } catch (const gaea::error& e) {
        too_big = e.what();
      }
    }
    // Read as int64 (every integer type converts exactly, except uint64 beyond 2^63, which
    // HDF5 clamps and the check below refuses), so that -7 is seen as -7, not clipped to 0.
    const bool read = ok && too_big.empty() &&
                      H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) >= 0;
    if (!too_big.empty()) throw gaea::error(too_big);
    if (!read)
      throw gaea::error(
          "mask '" + path +
          "': dataset 'solid' is not a readable 2-D integer array of at most 2^20 per "
          "side");
    m.solid.resize(raw.size());
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] != 0 && raw[k] != 1)
        throw gaea::error("mask '" + path + "': dataset 'solid' holds " + std::to_string(raw[k]) +
                          " at (x " + std::to_string(static_cast<index_t>(k) % m.nx) + ", y " +
                          std::to_string(static_cast<index_t>(k) / m.nx) +
                          "); only 0 (fluid) and 1 (solid) are valid");
      m.solid[k] = static_cast<std::uint8_t>(raw[k]);
    }
    return m;
  }
  // Bounded by its size: read_netpbm checks the header against the bytes that follow it.
  gaea::check_input_file(path, "mask");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw gaea::error("mask '" + path + "': cannot open");
  return read_netpbm(in, path);
}

}  // namespace lbm
