#pragma once
/// \file
/// Internal (not API): the one RAII helper for HDF5 C handles and error printing, shared by the
/// modules and apps that call HDF5 (runtime's GAEA_TRACE file, ga's I/O, gaea-scf, gaea-lbm).
/// Header-only; including it needs HDF5's headers, which only these users link (runtime is the
/// lowest module that does).

#include <hdf5.h>

namespace gaea::detail {

/// Owns an HDF5 id and closes it with `close` (H5Fclose, H5Dclose, ...) when it goes out of
/// scope; an invalid (negative) id is never closed, so the result of a failed create or open can
/// be wrapped as it is. Not copyable nor movable: one owner in one scope. Not thread-safe.
class h5_handle {
 public:
  using closer = herr_t (*)(hid_t);
  h5_handle(hid_t id, closer close) noexcept : id_(id), close_(close) {}
  ~h5_handle() { reset(); }
  h5_handle(const h5_handle&) = delete;
  h5_handle& operator=(const h5_handle&) = delete;
  hid_t get() const noexcept { return id_; }
  bool ok() const noexcept { return id_ >= 0; }
  /// Closes now; false if the close failed (a file's close writes its metadata and can fail
  /// late, e.g. on a full disk). The handle is invalid afterwards either way.
  bool reset() noexcept {
    const bool good = id_ < 0 || close_(id_) >= 0;
    id_ = -1;
    return good;
  }

 private:
  hid_t id_;
  closer close_;
};

/// Silences HDF5's automatic error printing for a scope (the caller reports its own errors) and
/// restores the previous printer at its end. Process-wide state: not thread-safe.
class h5_quiet {
 public:
  h5_quiet() noexcept {
    H5Eget_auto2(H5E_DEFAULT, &fn_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~h5_quiet() { H5Eset_auto2(H5E_DEFAULT, fn_, data_); }
  h5_quiet(const h5_quiet&) = delete;
  h5_quiet& operator=(const h5_quiet&) = delete;

 private:
  H5E_auto2_t fn_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace gaea::detail
