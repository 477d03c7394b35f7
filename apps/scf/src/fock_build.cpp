// scf::fock_builder: the distributed direct two-electron Fock build over Schwarz-screened tasks
// handed out by a task pool, with its timings.

#include "fock_build.hpp"
#include "gaea/model/apps.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <libint2.hpp>

#include "gaea/runtime/runtime.hpp"

namespace scf {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
using gaea::ga::index_t;
using gaea::ga::patch;
}  // namespace

fock_times& fock_times::operator+=(const fock_times& o) {
  integrals += o.integrals;
  counter += o.counter;
  get += o.get;
  acc += o.acc;
  wall += o.wall;
  max_task = std::max(max_task, o.max_task);
  tasks += o.tasks;
  gets += o.gets;
  cache_hits += o.cache_hits;
  accs += o.accs;
  quartets += o.quartets;
  return *this;
}

struct fock_builder::impl {
  const basis_set& basis;
  const matrix& q;
  fock_options opt;
  std::vector<std::int64_t> block_shell;  // first shell of each block, plus the end
  std::vector<std::int64_t> block_bf;     // first basis function of each block, plus the end
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;  // block pairs (I >= J)
  std::vector<double> pair_bound;  // block Schwarz bound of each block pair
  std::vector<std::pair<std::int64_t, std::int64_t>> tasks;  // (bra pair, ket pair), ket <= bra
  std::int64_t screened = 0;
  std::vector<std::int64_t> active;  // tasks of the current build, after density screening
  double threshold = 0;              // screening threshold of the current build
  /// Primitive-pair data of every shell pair s1 >= s2 (index s1 (s1 + 1) / 2 + s2), computed
  /// once and shared read-only by the workers, so an engine call does not rebuild it.
  std::vector<libint2::ShellPair> shell_pairs;
  gaea::counters::task_pool pool;

  /// Per worker thread: its libint2 engine, the density blocks it already holds this build, and
  /// its figures.
  struct worker {
    libint2::Engine engine;
    std::unordered_map<std::int64_t, std::vector<double>> dcache;
    fock_times t;
  };
  std::vector<worker> workers;

  impl(const basis_set& b, const matrix& qq, fock_options o)
      : basis(b), q(qq), opt(o), pool("scf-fock", o.pool) {
    make_blocks();
    make_tasks();
    ensure_libint();
    const double ln_prec = std::log(std::numeric_limits<double>::epsilon());  // engine default
    const std::size_t nsh = b.shells.size();
    shell_pairs.reserve(nsh * (nsh + 1) / 2);
    for (std::size_t s1 = 0; s1 < nsh; ++s1)
      for (std::size_t s2 = 0; s2 <= s1; ++s2)
        shell_pairs.emplace_back(b.shells[s1], b.shells[s2], ln_prec);
    workers.resize(static_cast<std::size_t>(pool.threads()));
    for (worker& w : workers)
      w.engine = libint2::Engine(libint2::Operator::coulomb, b.max_nprim(), b.max_l(), 0);
  }

  std::int64_t nblocks() const { return static_cast<std::int64_t>(block_bf.size()) - 1; }
  std::int64_t bf0(std::int64_t blk) const { return block_bf[static_cast<std::size_t>(blk)]; }
  std::int64_t nbf_of(std::int64_t blk) const { return bf0(blk + 1) - bf0(blk); }

  void make_blocks() {
    const auto nsh = static_cast<std::int64_t>(basis.shells.size());
    std::int64_t target = opt.block_bf;
    if (target <= 0)  // the automatic blocking, as the model predicts it
      target = gaea::model::scf_block_bf(
          basis.nbf, std::int64_t{gaea::runtime::current().size()} * std::max(1, pool.threads()));
    block_shell = {0};
    block_bf = {0};
    std::int64_t n = 0;
    for (std::int64_t s = 0; s < nsh; ++s) {
      n += static_cast<std::int64_t>(basis.shells[static_cast<std::size_t>(s)].size());
      if (n >= target || s + 1 == nsh) {
        block_shell.push_back(s + 1);
        block_bf.push_back(block_bf.back() + n);
        n = 0;
      }
    }
  }

  double block_pair_bound(std::int64_t bi, std::int64_t bj) const {
    double m = 0;
    for (auto s1 = block_shell[static_cast<std::size_t>(bi)];
         s1 < block_shell[static_cast<std::size_t>(bi) + 1]; ++s1)
      for (auto s2 = block_shell[static_cast<std::size_t>(bj)];
           s2 < block_shell[static_cast<std::size_t>(bj) + 1]; ++s2)
        m = std::max(m, q(s1, s2));
    return m;
  }

  void make_tasks() {
    const std::int64_t nb = nblocks();
    std::vector<double>& bound = pair_bound;
    for (std::int64_t i = 0; i < nb; ++i)
      for (std::int64_t j = 0; j <= i; ++j) {
        pairs.emplace_back(i, j);
        bound.push_back(block_pair_bound(i, j));
      }
    std::vector<double> cost;
    for (std::size_t p = 0; p < pairs.size(); ++p)
      for (std::size_t r = 0; r <= p; ++r) {
        if (bound[p] * bound[r] < opt.schwarz_threshold) {
          ++screened;
          continue;
        }
        tasks.emplace_back(p, r);
        const auto [i, j] = pairs[p];
        const auto [k, l] = pairs[r];
        cost.push_back(static_cast<double>(nbf_of(i) * nbf_of(j) * nbf_of(k) * nbf_of(l)) *
                       (i == j ? 0.5 : 1.0) * (k == l ? 0.5 : 1.0) * (p == r ? 0.5 : 1.0));
      }
    // Largest tasks first (the same order on every rank), so the tail of the run is short.
    std::vector<std::size_t> order(tasks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
    std::vector<std::pair<std::int64_t, std::int64_t>> sorted;
    for (std::size_t k : order)
      sorted.push_back(tasks[k]);
    tasks = std::move(sorted);
  }

  patch block_patch(std::int64_t a, std::int64_t b) const {
    return patch{{bf0(a), bf0(b)}, {bf0(a + 1) - 1, bf0(b + 1) - 1}};
  }

  /// Density block (a, b) as an na x nb matrix, from the worker's cache (lower blocks only).
  matrix dblock(worker& w, std::int64_t a, std::int64_t b) const {
    const std::int64_t hi = std::max(a, b), lo = std::min(a, b);
    const auto& v = w.dcache.at(hi * nblocks() + lo);
    const Eigen::Map<const matrix> m(v.data(), nbf_of(hi), nbf_of(lo));
    return a >= b ? matrix(m) : matrix(m.transpose());
  }

  void run_task(std::int64_t t, worker& w, gaea::global_array<double>& d, const matrix& dsh,
                gaea::global_array<double>& g) {
    const auto [p, r] = tasks[static_cast<std::size_t>(t)];
    const auto [bi, bj] = pairs[static_cast<std::size_t>(p)];
    const auto [bk, bl] = pairs[static_cast<std::size_t>(r)];
    const std::int64_t nb = nblocks();

    // 1. Density blocks this task needs that the worker does not hold yet: non-blocking gets.
    auto t0 = clock_type::now();
    const std::array<std::pair<std::int64_t, std::int64_t>, 6> need = {
        {{bi, bj}, {bk, bl}, {bi, bk}, {bi, bl}, {bj, bk}, {bj, bl}}};
    std::vector<gaea::ga::request> pending;
    for (auto [a, b] : need) {
      const std::int64_t hi = std::max(a, b), lo = std::min(a, b);
      auto [it, fresh] = w.dcache.try_emplace(hi * nb + lo);
      if (!fresh) {
        ++w.t.cache_hits;
        continue;
      }
      it->second.resize(static_cast<std::size_t>(nbf_of(hi) * nbf_of(lo)));
      pending.push_back(
          d.get(block_patch(hi, lo), std::span<double>(it->second), gaea::ga::nonblocking));
      ++w.t.gets;
    }
    for (auto& req : pending)
      req.wait();
    const matrix dij = dblock(w, bi, bj), dkl = dblock(w, bk, bl), dik = dblock(w, bi, bk),
                 dil = dblock(w, bi, bl), djk = dblock(w, bj, bk), djl = dblock(w, bj, bl);
    w.t.get += since(t0);

    // 2. Unique shell quartets of the task (8-fold symmetry) and their contributions.
    t0 = clock_type::now();
    const auto ni = nbf_of(bi), nj = nbf_of(bj), nk = nbf_of(bk), nl = nbf_of(bl);
    matrix gij = matrix::Zero(ni, nj), gkl = matrix::Zero(nk, nl), gik = matrix::Zero(ni, nk),
           gil = matrix::Zero(ni, nl), gjk = matrix::Zero(nj, nk), gjl = matrix::Zero(nj, nl);
    const auto& buf = w.engine.results();
    const auto sh = [&](std::int64_t blk) { return block_shell[static_cast<std::size_t>(blk)]; };
    const double thr = threshold;
    for (auto s1 = sh(bi); s1 < sh(bi + 1); ++s1) {
      const auto& a1 = basis.shells[static_cast<std::size_t>(s1)];
      const auto o1 = basis.first_bf[static_cast<std::size_t>(s1)] - bf0(bi);
      const auto n1 = static_cast<std::int64_t>(a1.size());
      const auto s2_end = bi == bj ? s1 + 1 : sh(bj + 1);
      for (auto s2 = sh(bj); s2 < s2_end; ++s2) {
        const auto& a2 = basis.shells[static_cast<std::size_t>(s2)];
        const auto o2 = basis.first_bf[static_cast<std::size_t>(s2)] - bf0(bj);
        const auto n2 = static_cast<std::int64_t>(a2.size());
        const double q12 = q(s1, s2);
        const double d12max = dsh(s1, s2);
        const std::int64_t pair12 = s1 * (s1 + 1) / 2 + s2;
        for (auto s3 = sh(bk); s3 < sh(bk + 1); ++s3) {
          const auto& a3 = basis.shells[static_cast<std::size_t>(s3)];
          const auto o3 = basis.first_bf[static_cast<std::size_t>(s3)] - bf0(bk);
          const auto n3 = static_cast<std::int64_t>(a3.size());
          const double d123max = std::max({d12max, dsh(s1, s3), dsh(s2, s3)});
          const auto s4_end = bk == bl ? s3 + 1 : sh(bl + 1);
          for (auto s4 = sh(bl); s4 < s4_end; ++s4) {
            const std::int64_t pair34 = s3 * (s3 + 1) / 2 + s4;
            if (p == r && pair34 > pair12) continue;  // same block pair: each pair pair once
            // Density-weighted Schwarz screening: every contribution of the quartet is an
            // integral times a density element of one of its six shell pairs.
            const double dm = std::max({d123max, dsh(s3, s4), dsh(s1, s4), dsh(s2, s4)});
            if (q12 * q(s3, s4) * dm < thr) continue;
            const auto& a4 = basis.shells[static_cast<std::size_t>(s4)];
            w.engine.compute2<libint2::Operator::coulomb, libint2::BraKet::xx_xx, 0>(
                a1, a2, a3, a4, &shell_pairs[static_cast<std::size_t>(pair12)],
                &shell_pairs[static_cast<std::size_t>(pair34)]);
            ++w.t.quartets;
            const double* v = buf[0];
            if (v == nullptr) continue;
            const auto o4 = basis.first_bf[static_cast<std::size_t>(s4)] - bf0(bl);
            const auto n4 = static_cast<std::int64_t>(a4.size());
            const double deg =
                (s1 == s2 ? 1.0 : 2.0) * (s3 == s4 ? 1.0 : 2.0) * (pair12 == pair34 ? 1.0 : 2.0);
            for (std::int64_t f1 = 0, idx = 0; f1 < n1; ++f1) {
              const auto i = o1 + f1;
              for (std::int64_t f2 = 0; f2 < n2; ++f2) {
                const auto j = o2 + f2;
                const double d12 = dij(i, j);
                double g12 = 0;
                for (std::int64_t f3 = 0; f3 < n3; ++f3) {
                  const auto k = o3 + f3;
                  const double d13 = dik(i, k), d23 = djk(j, k);
                  double g13 = 0, g23 = 0;
                  for (std::int64_t f4 = 0; f4 < n4; ++f4, ++idx) {
                    const auto l = o4 + f4;
                    const double x = v[idx] * deg;
                    g12 += dkl(k, l) * x;
                    gkl(k, l) += d12 * x;
                    g13 -= 0.25 * djl(j, l) * x;
                    gjl(j, l) -= 0.25 * d13 * x;
                    gil(i, l) -= 0.25 * d23 * x;
                    g23 -= 0.25 * dil(i, l) * x;
                  }
                  gik(i, k) += g13;
                  gjk(j, k) += g23;
                }
                gij(i, j) += g12;
              }
            }
          }
        }
      }
    }
    const double task_s = since(t0);
    w.t.integrals += task_s;
    w.t.max_task = std::max(w.t.max_task, task_s);

    // 3. Accumulate the six blocks into G, each folded into the lower block triangle (the
    //    symmetrisation (G + G^T) / 2 does not mind which side a contribution sits on), blocks
    //    that land on the same patch merged first.
    t0 = clock_type::now();
    struct piece {
      std::int64_t a, b;
      matrix m;
    };
    std::vector<piece> out;
    auto add = [&](std::int64_t a, std::int64_t b, const matrix& m) {
      piece pc = a >= b ? piece{a, b, m} : piece{b, a, m.transpose()};
      for (piece& o : out)
        if (o.a == pc.a && o.b == pc.b) {
          o.m += pc.m;
          return;
        }
      out.push_back(std::move(pc));
    };
    add(bi, bj, gij);
    add(bk, bl, gkl);
    add(bi, bk, gik);
    add(bi, bl, gil);
    add(bj, bk, gjk);
    add(bj, bl, gjl);
    std::vector<gaea::ga::request> accs;
    for (const piece& pc : out) {
      accs.push_back(
          g.acc(block_patch(pc.a, pc.b),
                std::span<const double>(pc.m.data(), static_cast<std::size_t>(pc.m.size())),
                gaea::ga::nonblocking));
      ++w.t.accs;
    }
    for (auto& req : accs)
      req.wait();
    w.t.acc += since(t0);
    ++w.t.tasks;
  }
};

fock_builder::fock_builder(const basis_set& b, const matrix& q, fock_options opt)
    : impl_(std::make_unique<impl>(b, q, opt)) {}
fock_builder::~fock_builder() = default;

fock_times fock_builder::build(gaea::global_array<double>& d, const matrix& dmax,
                               gaea::global_array<double>& g, double threshold) {
  impl& m = *impl_;
  m.threshold = std::max(threshold, m.opt.schwarz_threshold);
  const auto t0 = clock_type::now();
  g.zero();
  // Tasks whose block Schwarz bound times the largest |density| over their six block pairs is
  // below the threshold contribute nothing above it: an incremental build on a small ΔD keeps
  // few. Every rank has the same `dmax`, hence the same list.
  const std::int64_t nb = m.nblocks();
  matrix bmax = matrix::Zero(nb, nb);
  for (std::int64_t i = 0; i < nb; ++i)
    for (std::int64_t j = 0; j < nb; ++j)
      for (auto s1 = m.block_shell[static_cast<std::size_t>(i)];
           s1 < m.block_shell[static_cast<std::size_t>(i) + 1]; ++s1)
        for (auto s2 = m.block_shell[static_cast<std::size_t>(j)];
             s2 < m.block_shell[static_cast<std::size_t>(j) + 1]; ++s2)
          bmax(i, j) = std::max(bmax(i, j), dmax(s1, s2));
  m.active.clear();
  for (std::size_t t = 0; t < m.tasks.size(); ++t) {
    const auto [p, r] = m.tasks[t];
    const auto [bi, bj] = m.pairs[static_cast<std::size_t>(p)];
    const auto [bk, bl] = m.pairs[static_cast<std::size_t>(r)];
    const double dm = std::max(
        {bmax(bi, bj), bmax(bk, bl), bmax(bi, bk), bmax(bi, bl), bmax(bj, bk), bmax(bj, bl)});
    if (m.pair_bound[static_cast<std::size_t>(p)] * m.pair_bound[static_cast<std::size_t>(r)] *
            dm >=
        m.threshold)
      m.active.push_back(static_cast<std::int64_t>(t));
  }
  // libint2 drops primitive quartets whose estimate is below the engine's precision: the
  // threshold over max |density| for a full build with max |D| > 1, never looser than the
  // threshold itself (a precision loosened by a small max |ΔD| made the incremental energies
  // scatter by 3e-10 Eh, above the 1e-10 convergence test).
  const double dmax_all = dmax.size() > 0 ? dmax.maxCoeff() : 0.0;
  const double thr = m.threshold;
  const double precision =
      std::max(std::numeric_limits<double>::epsilon(), dmax_all > 1 ? thr / dmax_all : thr);
  for (auto& w : m.workers) {
    w.dcache.clear();
    w.t = {};
    w.engine.set_precision(precision);
  }
  const gaea::counters::task_stats st =
      m.pool.run(static_cast<std::int64_t>(m.active.size()), [&](std::int64_t t, int wi) {
        m.run_task(m.active[static_cast<std::size_t>(t)], m.workers[static_cast<std::size_t>(wi)],
                   d, dmax, g);
      });
  const auto ts = clock_type::now();
  g.sync();
  fock_times out;
  for (const auto& w : m.workers)
    out += w.t;
  out.acc += since(ts);
  out.counter = st.wait_s;
  out.wall = since(t0);
  return out;
}

matrix shell_max_abs(const matrix& x, const basis_set& b) {
  const auto ns = static_cast<Eigen::Index>(b.shells.size());
  matrix out(ns, ns);
  for (Eigen::Index s1 = 0; s1 < ns; ++s1)
    for (Eigen::Index s2 = 0; s2 < ns; ++s2)
      out(s1, s2) =
          x.block(b.first_bf[static_cast<std::size_t>(s1)],
                  b.first_bf[static_cast<std::size_t>(s2)],
                  static_cast<Eigen::Index>(b.shells[static_cast<std::size_t>(s1)].size()),
                  static_cast<Eigen::Index>(b.shells[static_cast<std::size_t>(s2)].size()))
              .cwiseAbs()
              .maxCoeff();
  return out;
}

std::int64_t fock_builder::blocks() const noexcept {
  return impl_->nblocks();
}
std::int64_t fock_builder::tasks() const noexcept {
  return static_cast<std::int64_t>(impl_->tasks.size());
}
std::int64_t fock_builder::screened_tasks() const noexcept {
  return impl_->screened;
}
int fock_builder::threads() const {
  return impl_->pool.threads();
}
std::string fock_builder::counter_description() const {
  auto& c = impl_->pool.counter();
  return std::string(to_string(c.mode())) + "/" + std::string(to_string(c.variant())) +
         " on rank " + std::to_string(c.owner());
}

}  // namespace scf
