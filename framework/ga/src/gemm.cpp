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

// The patch of the stored operand that holds op(X[region])[r, c] (r, c relative to the region).
patch stored_patch(mat_op op, const patch& region, range r, range c) {
  const index_t i0 = region.lo[0], j0 = region.lo[1];
  if (op == mat_op::none) return patch{{i0 + r.lo, j0 + c.lo}, {i0 + r.hi, j0 + c.hi}};
  return patch{{i0 + c.lo, j0 + r.lo}, {i0 + c.hi, j0 + r.hi}};
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

// c[pc] = alpha op(a[pa]) op(b[pb]) + beta c[pc]; `what` names the call in errors.
template <class T>
void gemm_patches(const char* what, mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a,
                  const patch& pa, const global_array<T>& b, const patch& pb, T beta,
                  global_array<T>& c, const patch& pc) {
  const std::string w = std::string("ga::") + what;
  for (const global_array<T>* x : {&a, &b, static_cast<const global_array<T>*>(&c)})
    if (x->ndim() != 2)
      throw error(w + ": '" + x->name() + "' has " + std::to_string(x->ndim()) +
                  " dimensions; 2 are needed");
  a.layout().validate(pa, w);
  b.layout().validate(pb, w);
  c.layout().validate(pc, w);
  if (&c.core() == &a.core() || &c.core() == &b.core())
    throw error(w + ": the result '" + c.name() + "' must not be an input ('" + a.name() + "', '" +
                b.name() + "')");
  const auto dim = [](const patch& x, mat_op op, int d) {
    return x.extent(op == mat_op::none ? d : 1 - d);
  };
  const index_t m = dim(pa, op_a, 0), k = dim(pa, op_a, 1), n = dim(pb, op_b, 1);
  if (dim(pb, op_b, 0) != k || pc.extent(0) != m || pc.extent(1) != n)
    throw error(w + ": shapes do not fit C = op(A) op(B): 'A'" + std::string(op_name(op_a)) +
                " ('" + a.name() + "'" + pa.str() + ") is " + format_index(index{m, k}) + ", 'B'" +
                op_name(op_b) + " ('" + b.name() + "'" + pb.str() + ") is " +
                format_index(index{dim(pb, op_b, 0), n}) + ", C ('" + c.name() + "'" + pc.str() +
                ") is " + format_index(index{pc.extent(0), pc.extent(1)}) + "; C must be " +
                format_index(index{m, n}) + " and the inner extents equal");
  detail::begin_collective(a, b, c);

  using mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using stride = Eigen::OuterStride<>;
  using cmap = Eigen::Map<const mat, Eigen::Unaligned, stride>;
  const distribution& cd = c.layout();
  auto* cbase = static_cast<T*>(c.core().local_data());
  auto tile_block = [&](const tile& t, range r, range col) {
    const index s = cd.storage_strides(t);
    return Eigen::Map<mat, Eigen::Unaligned, stride>(
        cbase + cd.storage_offset(t, index{r.lo, col.lo}), r.size(), col.size(), stride(s[0]));
  };

  // beta: scale (or clear) this rank's tiles of C first; they are only written by this rank.
  std::vector<step> steps;
  for (const tile& t : c.core().local_tiles()) {
    const patch piece = t.box.intersect(pc);
    if (piece.empty()) continue;
    const range tr{piece.lo[0], piece.hi[0]}, tc{piece.lo[1], piece.hi[1]};
    auto whole = tile_block(t, tr, tc);
    if (beta == T(0))
      whole.setZero();
    else if (beta != T(1))
      whole *= beta;
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
    index_t rows = 0, cols = 0;
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
    const range rows{s.rows.lo - pc.lo[0], s.rows.hi - pc.lo[0]};
    const range cols{s.cols.lo - pc.lo[1], s.cols.hi - pc.lo[1]};
    const std::array<patch, 2> want{stored_patch(op_a, pa, rows, s.k),
                                    stored_patch(op_b, pb, s.k, cols)};
    for (std::size_t x = 0; x < 2; ++x) {
      const patch& q = want[x];
      panel& pn = st.ops[x];
      pn.rows = q.extent(0);
      pn.cols = q.extent(1);
      detail::view<T> local = detail::local_view(*inputs[x], q);
      if (local.p) {
        pn.v = {local.p, local.s};
        continue;
      }
      std::vector<T>& buf = buffers[x][i % 2];
      buf.resize(static_cast<std::size_t>(q.elements()));
      st.pending.push_back(
          inputs[x]->core().get(q, detail::user_buffer{buf.data(), buf.size(), {}}));
      pn.v = {buf.data(), detail::contiguous_strides(q)};
    }
  };
  if (!steps.empty()) issue(0);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (i + 1 < steps.size()) issue(i + 1);
    stage& st = stages[i % 2];
    wait_all(st.pending);
    const step& s = steps[i];
    auto cb = tile_block(s.t, s.rows, s.cols);
    const panel& qa = st.ops[0];
    const panel& qb = st.ops[1];
    const cmap ma(qa.v.p, qa.rows, qa.cols, stride(qa.v.s[0]));
    const cmap mb(qb.v.p, qb.rows, qb.cols, stride(qb.v.s[0]));
    with_op(op_a, ma, [&](const auto& ea) {
      with_op(op_b, mb, [&](const auto& eb) { cb.noalias() += alpha * ea * eb; });
    });
  }
  c.core().barrier();  // C is complete, and nobody changes A or B while others read them
}

}  // namespace

template <gemm_element T>
void gemm(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const global_array<T>& b,
          T beta, global_array<T>& c) {
  gemm_patches("gemm", op_a, op_b, alpha, a, whole_patch(a), b, whole_patch(b), beta, c,
               whole_patch(c));
}

template <gemm_element T>
void matmul_patch(mat_op op_a, mat_op op_b, T alpha, const global_array<T>& a, const patch& pa,
                  const global_array<T>& b, const patch& pb, T beta, global_array<T>& c,
                  const patch& pc) {
  gemm_patches("matmul_patch", op_a, op_b, alpha, a, pa, b, pb, beta, c, pc);
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
