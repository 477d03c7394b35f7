// lu::tiled_matrix: the block-cyclic global array behind gaea-lu and its tile arithmetic.

#include "tiled_matrix.hpp"

#include "gaea/runtime/runtime.hpp"

namespace lu {

tiled_matrix::tiled_matrix(std::string name, index_t n, index_t nb, int p, int q)
    : n_(n),
      nb_(nb),
      nt_((n + nb - 1) / nb),
      p_(p),
      q_(q),
      me_(gaea::runtime::current().rank()),
      myr_(me_ / q),
      myc_(me_ % q),
      a_(std::move(name), {n, n}, gaea::ga::layout_spec::block_cyclic({nb, nb}, {p, q})) {
  // Tiles this rank owns per tile row: columns myc_, myc_ + q, ... below nt_.
  local_cols_ = myc_ < nt_ ? (nt_ - myc_ + q - 1) / q : 0;
  const index_t local_rows = myr_ < nt_ ? (nt_ - myr_ + p - 1) / p : 0;
  local_.resize(static_cast<std::size_t>(local_rows * local_cols_));
  for (const auto& v : a_.local_tiles()) {
    local_tile t;
    t.ti = v.box.lo[0] / nb;
    t.tj = v.box.lo[1] / nb;
    t.rows = v.box.extent(0);
    t.cols = v.box.extent(1);
    t.data = v.origin;
    t.ld = v.strides[0];
    local_.at(static_cast<std::size_t>((t.ti / p) * local_cols_ + t.tj / q)) = t;
  }
  if (!local_.empty()) {
    local_data_ = a_.access().data();
    local_ld_ = local_.front().ld;
    local_rows_ = static_cast<index_t>(a_.access().size()) / local_ld_;
    // The layout this rank's updates rely on: tile (ti, tj) at local (row, col) of one matrix.
    for (const auto& t : local_)
      if (t.ld != local_ld_ ||
          t.data != local_data_ + local_row(t.ti) * local_ld_ + local_col(t.tj))
        throw gaea::error("tiled_matrix '" + a_.name() +
                          "': the block-cyclic storage is not one local matrix");
  }
}

}  // namespace lu
