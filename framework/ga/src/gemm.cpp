// Distributed C = alpha op(A) op(B) + beta C. Each rank works on its own tiles of C, cut into
// blocks of at most block_mn x block_mn; for each block it walks k in steps of block_k, fetching
// the row panel of op(A) and the column panel of op(B) with non-blocking gets. The panels of the
// next step are in flight while the current ones are multiplied (two buffers per operand), and
// parts of A or B this rank holds in one tile are used in place. The multiply is Eigen's GEMM
// on Eigen::Map views (transposes and conjugates are expression flags, not copies).
#include <Eigen/Core>

#include <algorithm>
#include <array>
#include <complex>
#include <string>
#include <vector>

#include "detail/slabs.hpp"
#include "gaea/ga/algorithms.hpp"
#include "gaea/ga/patch_ops.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga {

namespace {

constexpr index_t block_mn = 512;  // rows/columns of a block of C
constexpr index_t block_k = 256;   // depth of one panel step

struct range {
  index_t lo, hi;
  index_t size() const { return hi - lo + 1; }
};

// One step of the pipeline: block [rows x cols] of tile t of C, depth range k.
struct step {
  tile t;
  range rows, cols, k;
};

// The two dimensions of a patch that are its matrix's rows and columns; the others have extent 1.
struct plane {
  int row = 0, col = 1;
};

// The plane of patch `p` of an N-D array (Global Arrays' rule, in C order): its two dimensions of
// extent > 1; a vector along dimension d is a row (plane d-1, d) unless d is the first
// dimension (plane d, d+1: a column); a single element is the last two dimensions. `column`
// forces an interior vector to be a column (plane d, d+1), which GA tries when the shapes of
// the product do not fit otherwise. More than two dimensions of extent > 1 is an error.
plane plane_of(const std::string& w, const std::string& name, const patch& p, bool column) {
  const int n = p.ndim();
  if (n == 2) return {};
  std::vector<int> wide;
  for (int d = 0; d < n; ++d)
    if (p.extent(d) > 1) wide.push_back(d);
  if (wide.size() > 2)
    throw error(w + ": patch " + p.str() + " of '" + name + "' has " + std::to_string(wide.size()) +
                " dimensions of extent > 1; a matrix patch has at most 2");
  if (wide.size() == 2) return {wide[0], wide[1]};
  if (wide.empty()) return {n - 2, n - 1};
  const int d = wide[0];
  if (d == 0 || (column && d < n - 1)) return {d, d + 1};
  return {d - 1, d};
}

// Whether an interior vector patch (`column` changes its plane).
bool interior_vector(const patch& p) {
  int wide = 0, at = -1;
  for (int d = 0; d < p.ndim(); ++d)
    if (p.extent(d) > 1) {
      ++wide;
      at = d;
    }
  return p.ndim() > 2 && wide == 1 && at > 0 && at < p.ndim() - 1;
}

// The patch of the stored operand that holds op(X[region])[r, c] (r, c relative to the region;
// `pl` the region's plane).
patch stored_patch(mat_op op, const patch& region, plane pl, range r, range c) {
  patch q = region;
  const range& along_row = op == mat_op::none ? r : c;
  const range& along_col = op == mat_op::none ? c : r;
  q.lo[pl.row] = region.lo[pl.row] + along_row.lo;
  q.hi[pl.row] = region.lo[pl.row] + along_row.hi;
  q.lo[pl.col] = region.lo[pl.col] + along_col.lo;
  q.hi[pl.col] = region.lo[pl.col] + along_col.hi;
  return q;
}

const char* op_name(mat_op op) {
  return op == mat_op::none ? "" : op == mat_op::trans ? "^T" : "^H";
}

// Calls f with op(m) as an Eigen expression (no copy).
template <class M, class F>
void with_op(mat_op op, const M& m, F&& f) {
  switch (op) {
    case mat_op::none:
      f(m);
      break;
    case mat_op::trans:
      f(m.transpose());
      break;
    case mat_op::conj_trans:
      f(m.adjoint());
      break;
  }
}

// c[pc] = alpha op(a[pa]) op(b[pb]) + beta c[pc]; `what` names the call in errors. `any_rank`:
// the arrays may have more than 2 dimensions (2-D patches of them).
template <class T>
void gemm_patches(const char* what, bool any_rank, mat_op op_a, mat_op op_b, T alpha,
                  const global_array<T>& a, const patch& pa, const global_array<T>& b,
                  const patch& pb, T beta, global_array<T>& c, const patch& pc) {
  const std::string w = std::string("ga::") + what;
  for (const global_array<T>* x : {&a, &b, static_cast<const global_array<T>*>(&c)})
    if (any_rank ? x->ndim() < 2 : x->ndim() != 2)
      throw error(w + ": '" + x->name() + "' has " + std::to_string(x->ndim()) + " dimensions; " +
                  (any_rank ? "at least 2" : "2") + " are needed");
  a.layout().validate(pa, w);
  b.layout().validate(pb, w);
  c.layout().validate(pc, w);
  if (&c.core() == &a.core() || &c.core() == &b.core())
    throw error(w + ": the result '" + c.name() + "' must not be an input ('" + a.name() + "', '" +
                b.name() + "')");
  plane la = plane_of(w, a.name(), pa, false), lb = plane_of(w, b.name(), pb, false),
        lc = plane_of(w, c.name(), pc, false);
  const auto dim = [](const patch& x, plane pl, mat_op op, int d) {
    return x.extent((op == mat_op::none) == (d == 0) ? pl.row : pl.col);
  };
  const auto fits = [&] {
    return dim(pb, lb, op_b, 0) == dim(pa, la, op_a, 1) &&
           pc.extent(lc.row) == dim(pa, la, op_a, 0) && pc.extent(lc.col) == dim(pb, lb, op_b, 1);
  };
  // GA reads an interior vector patch as a column when the shapes do not fit as a row.
  if (!fits()) {
    plane* planes[] = {&la, &lb, &lc};
    const patch* patches[] = {&pa, &pb, &pc};
    const std::string* names[] = {&a.name(), &b.name(), &c.name()};
    for (int x = 0; x < 3; ++x)
      if (interior_vector(*patches[x])) {
        const plane before = *planes[x];
        *planes[x] = plane_of(w, *names[x], *patches[x], true);
        if (fits()) break;
        *planes[x] = before;
      }
  }
  const index_t m = dim(pa, la, op_a, 0), k = dim(pa, la, op_a, 1), n = dim(pb, lb, op_b, 1);
  if (!fits())
    throw error(w + ": shapes do not fit C = op(A) op(B): 'A'" + std::string(op_name(op_a)) +
                " ('" + a.name() + "'" + pa.str() + ") is " + format_index(index{m, k}) + ", 'B'" +
                op_name(op_b) + " ('" + b.name() + "'" + pb.str() + ") is " +
                format_index(index{dim(pb, lb, op_b, 0), n}) + ", C ('" + c.name() + "'" +
                pc.str() + ") is " + format_index(index{pc.extent(lc.row), pc.extent(lc.col)}) +
                "; C must be " + format_index(index{m, n}) + " and the inner extents equal");
  detail::begin_collective(a, b, c);

  using mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using stride = Eigen::OuterStride<>;
  using cmap = Eigen::Map<const mat, Eigen::Unaligned, stride>;
  const distribution& cd = c.layout();
  auto* cbase = static_cast<T*>(c.core().local_data());
  using any_stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  // A block of this rank's tile t of C: rows r and columns col of C's plane (other dimensions at
  // pc.lo). Calls f with an Eigen map; contiguous rows (every 2-D array) keep BLAS's fast path.
  auto with_tile_block = [&](const tile& t, range r, range col, auto&& f) {
    index at = pc.lo;
    at[lc.row] = r.lo;
    at[lc.col] = col.lo;
    const index s = cd.storage_strides(t);
    T* p = cbase + cd.storage_offset(t, at);
    if (s[lc.col] == 1)
      f(Eigen::Map<mat, Eigen::Unaligned, stride>(p, r.size(), col.size(), stride(s[lc.row])));
    else
      f(Eigen::Map<mat, Eigen::Unaligned, any_stride>(p, r.size(), col.size(),
                                                      any_stride(s[lc.row], s[lc.col])));
  };

  // beta: scale (or clear) this rank's tiles of C first; they are only written by this rank.
  std::vector<step> steps;
  for (const tile& t : c.core().local_tiles()) {
    const patch piece = t.box.intersect(pc);
    if (piece.empty()) continue;
    const range tr{piece.lo[lc.row], piece.hi[lc.row]}, tc{piece.lo[lc.col], piece.hi[lc.col]};
    with_tile_block(t, tr, tc, [&](auto whole) {
      if (beta == T(0))
        whole.setZero();
      else if (beta != T(1))
        whole *= beta;
    });
    for (index_t i = tr.lo; i <= tr.hi; i += block_mn)
      for (index_t j = tc.lo; j <= tc.hi; j += block_mn)
        for (index_t p = 0; p < k; p += block_k)
          steps.push_back({t,
                           {i, std::min(tr.hi, i + block_mn - 1)},
                           {j, std::min(tc.hi, j + block_mn - 1)},
                           {p, std::min(k - 1, p + block_k - 1)}});
  }

  // Operand panels of a step: in place when local, else fetched into buffers[slot].
  struct panel {
    detail::view<const T> v;
    index_t rows = 0, cols = 0, ld = 0;  // ld: the stride between rows
  };
  struct stage {
    std::array<panel, 2> ops;
    std::vector<request> pending;
  };
  std::array<stage, 2> stages;
  std::array<std::array<std::vector<T>, 2>, 2> buffers;  // [operand][slot]
  const std::array<const global_array<T>*, 2> inputs{&a, &b};
  auto issue = [&](std::size_t i) {
    stage& st = stages[i % 2];
    st.pending.clear();
    const step& s = steps[i];
    // Rows and columns of C relative to pc are those of op(A) and op(B).
    const range rows{s.rows.lo - pc.lo[lc.row], s.rows.hi - pc.lo[lc.row]};
    const range cols{s.cols.lo - pc.lo[lc.col], s.cols.hi - pc.lo[lc.col]};
    const std::array<patch, 2> want{stored_patch(op_a, pa, la, rows, s.k),
                                    stored_patch(op_b, pb, lb, s.k, cols)};
    const std::array<plane, 2> planes{la, lb};
    for (std::size_t x = 0; x < 2; ++x) {
      const patch& q = want[x];
      const plane pl = planes[x];
      panel& pn = st.ops[x];
      pn.rows = q.extent(pl.row);
      pn.cols = q.extent(pl.col);
      detail::view<T> local = detail::local_view(*inputs[x], q);
      if (local.p && local.s[pl.col] == 1) {  // used in place when its rows are contiguous
        pn.v = {local.p, local.s};
        pn.ld = local.s[pl.row];
        continue;
      }
      std::vector<T>& buf = buffers[x][i % 2];
      buf.resize(static_cast<std::size_t>(q.elements()));
      st.pending.push_back(
          inputs[x]->core().get(q, detail::user_buffer{buf.data(), buf.size(), {}}));
      pn.v = {buf.data(), detail::contiguous_strides(q)};
      pn.ld = pn.v.s[pl.row];
    }
  };
  if (!steps.empty()) issue(0);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (i + 1 < steps.size()) issue(i + 1);
    stage& st = stages[i % 2];
    wait_all(st.pending);
    const step& s = steps[i];
    const panel& qa = st.ops[0];
    const panel& qb = st.ops[1];
    const cmap ma(qa.v.p, qa.rows, qa.cols, stride(qa.ld));
    const cmap mb(qb.v.p, qb.rows, qb.cols, stride(qb.ld));
    with_tile_block(s.t, s.rows, s.cols, [&](auto cb) {
      with_op(op_a, ma, [&](const auto& ea) {
        with_op(op_b, mb, [&](const auto& eb) { cb.noalias() += alpha * ea * eb; });
      });
    });
  }
  c.core().barrier();  // C is complete, and nobody changes A or B while others read them
}

}  // namespace

template <gemm_element T>
void gemm(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const global_array<T>& b,
          T beta, global_array<T>& c) {
  gemm_patches("gemm", false, op_a, op_b, alpha, a, whole_patch(a), b, whole_patch(b), beta, c,
               whole_patch(c));
}

template <gemm_element T>
void matmul_patch(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const patch& pa,
                  const global_array<T>& b, const patch& pb, T beta, global_array<T>& c,
                  const patch& pc) {
  gemm_patches("matmul_patch", true, op_a, op_b, alpha, a, pa, b, pb, beta, c, pc);
}

// gemm_element: the floating-point members of the element list.
#define GAEA_GA_INSTANTIATE(T)                                                                \
  template void gemm<T>(mat_op, mat_op, T, const global_array<T>&, const global_array<T>&, T, \
                        global_array<T>&);                                                    \
  template void matmul_patch<T>(mat_op, mat_op, T, const global_array<T>&, const patch&,      \
                                const global_array<T>&, const patch&, T, global_array<T>&,    \
                                const patch&);
GAEA_GA_INSTANTIATE(double)
GAEA_GA_INSTANTIATE(float)
GAEA_GA_INSTANTIATE(std::complex<double>)
GAEA_GA_INSTANTIATE(std::complex<float>)
#undef GAEA_GA_INSTANTIATE

}  // namespace gaea::ga
