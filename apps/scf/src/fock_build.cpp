// scf::fock_builder: the distributed direct two-electron Fock build over Schwarz-screened tasks
// handed out by a task pool, with its timings.

#include "fock_build.hpp"
#include "gaea/model/apps.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <libint2.hpp>

#include "gaea/coll/collectives.hpp"
#include "gaea/runtime/runtime.hpp"

namespace scf {

namespace {
using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
using gaea::ga::index_t;
using gaea::ga::patch;

/// MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read.
double mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g MB", bytes / 1e6);
  return buf;
}

/// Adds the contributions of one shell quartet's integrals `v` (times `deg`) to `g` for the
/// density `d` (both nbf x nbf, row-major, leading dimension `n`): the Coulomb part on the pairs
/// (12) and (34), the exchange part (a quarter, for the closed-shell G = J - K/2 with the
/// (G + G^T) / 2 symmetrisation) on (13), (14), (23), (24). o1..o4: first functions, n1..n4:
/// sizes.
void contract(const double* __restrict__ v, double deg, std::int64_t o1, std::int64_t n1,
              std::int64_t o2, std::int64_t n2, std::int64_t o3, std::int64_t n3, std::int64_t o4,
              std::int64_t n4, const double* __restrict__ d, double* __restrict__ g,
              std::int64_t n) {
  // v, D and G are distinct arrays (restrict: G's stores need not reload D or v).
  for (std::int64_t f1 = 0, idx = 0; f1 < n1; ++f1) {
    const std::int64_t i = o1 + f1;
    for (std::int64_t f2 = 0; f2 < n2; ++f2) {
      const std::int64_t j = o2 + f2;
      const double d12 = d[i * n + j];
      double g12 = 0;
      for (std::int64_t f3 = 0; f3 < n3; ++f3) {
        const std::int64_t k = o3 + f3;
        const double d13 = d[i * n + k], d23 = d[j * n + k];
        // Rows of one array: gk, gj and gi may be the same row (coinciding shells).
        const double* dk = d + k * n + o4;
        const double* dj = d + j * n + o4;
        const double* di = d + i * n + o4;
        double* gk = g + k * n + o4;
        double* gj = g + j * n + o4;
        double* gi = g + i * n + o4;
        double g13 = 0, g23 = 0;
        for (std::int64_t f4 = 0; f4 < n4; ++f4, ++idx) {
          const double x = v[idx] * deg;
          g12 += dk[f4] * x;
          gk[f4] += d12 * x;
          g13 -= 0.25 * dj[f4] * x;
          gj[f4] -= 0.25 * d13 * x;
          gi[f4] -= 0.25 * d23 * x;
          g23 -= 0.25 * di[f4] * x;
        }
        g[i * n + k] += g13;
        g[j * n + k] += g23;
      }
      g[i * n + j] += g12;
    }
  }
}
}  // namespace

std::string_view to_string(integral_mode m) noexcept {
  switch (m) {
    case integral_mode::automatic:
      return "auto";
    case integral_mode::direct:
      return "direct";
    case integral_mode::incore:
      return "incore";
  }
  return "?";
}

std::optional<integral_mode> parse_integral_mode(std::string_view s) noexcept {
  for (integral_mode m : {integral_mode::automatic, integral_mode::direct, integral_mode::incore})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

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
  /// In-core integrals of one task: the shell-pair indices (pair12, pair34) of each quartet
  /// kept, and its integrals times the quartet's degeneracy factor, quartet after quartet.
  struct stored_task {
    std::int64_t task = 0;
    std::vector<std::uint32_t> pairs;
    std::vector<double> values;
  };
  struct worker {
    libint2::Engine engine;
    std::unordered_map<std::int64_t, std::vector<double>> dcache;
    fock_times t;
    std::vector<stored_task> stored;      // in-core: the tasks this worker computed and kept
    std::vector<std::int64_t> recompute;  // in-core: tasks it computed over the budget
    matrix gloc;                          // in-core: this worker's whole G of the build
  };
  std::vector<worker> workers;

  // In-core mode.
  bool incore = false;
  bool filled = false;  // the first build has stored the integrals
  std::string integrals_why;
  double budget_bytes = 0;
  std::int64_t store_limit_bytes = 0;  // what one rank may store
  std::atomic<std::int64_t> stored_bytes{0};
  double store_scale = 1;  // max(1, max |D|) of the first build: what a stored quartet must pass
  incore_stats stats;
  std::vector<std::uint32_t> pair_s1, pair_s2;  // the shells of each shell pair index
  std::vector<double> pair_q;                   // Schwarz bound of each shell pair index
  double dmax_build = 0;                        // max |density| of the current build
  std::vector<std::int64_t> shell_nbf;          // functions of each shell
  std::vector<char> task_on;                    // this build's task-level density screening
  matrix dfull;                                 // in-core: the whole density of this build

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
    for (std::size_t s1 = 0; s1 < nsh; ++s1)
      shell_nbf.push_back(static_cast<std::int64_t>(b.shells[s1].size()));
    for (std::size_t s1 = 0; s1 < nsh; ++s1)
      for (std::size_t s2 = 0; s2 <= s1; ++s2) {
        pair_q.push_back(q(static_cast<Eigen::Index>(s1), static_cast<Eigen::Index>(s2)));
        pair_s1.push_back(static_cast<std::uint32_t>(s1));
        pair_s2.push_back(static_cast<std::uint32_t>(s2));
      }
    workers.resize(static_cast<std::size_t>(pool.threads()));
    for (worker& w : workers)
      w.engine = libint2::Engine(libint2::Operator::coulomb, b.max_nprim(), b.max_l(), 0);
    choose_integrals();
  }

  /// Bytes the in-core store needs over all ranks: the integrals of the unique shell quartets
  /// whose Schwarz bound passes the threshold, plus 8 bytes of indices per quartet. From the
  /// sorted shell-pair bounds (no quartet loop), so it is cheap for any molecule.
  double incore_bytes_estimate() const {
    const auto nsh = static_cast<Eigen::Index>(basis.shells.size());
    std::vector<std::pair<double, double>> v;  // (bound, functions) of every shell pair
    for (Eigen::Index s1 = 0; s1 < nsh; ++s1)
      for (Eigen::Index s2 = 0; s2 <= s1; ++s2)
        v.emplace_back(q(s1, s2),
                       static_cast<double>(basis.shells[static_cast<std::size_t>(s1)].size() *
                                           basis.shells[static_cast<std::size_t>(s2)].size()));
    std::sort(v.begin(), v.end());
    std::vector<double> suffix_n(v.size() + 1, 0.0), suffix_count(v.size() + 1, 0.0);
    for (std::size_t k = v.size(); k-- > 0;) {
      suffix_n[k] = suffix_n[k + 1] + v[k].second;
      suffix_count[k] = suffix_count[k + 1] + 1;
    }
    const double thr = opt.schwarz_threshold;
    double ints = 0, quartets = 0;
    for (const auto& [b, nf] : v) {
      if (b <= 0) continue;
      // Ordered pairs (this, other) with b * other >= thr; the diagonal counted once more, so
      // half the sum is the unique quartets.
      const auto lo = static_cast<std::size_t>(
          std::lower_bound(v.begin(), v.end(), std::make_pair(thr / b, 0.0)) - v.begin());
      ints += nf * suffix_n[lo];
      quartets += suffix_count[lo];
      if (b * b >= thr) {
        ints += nf * nf;
        quartets += 1;
      }
    }
    return (ints / 2) * sizeof(double) + (quartets / 2) * 2 * sizeof(std::uint32_t);
  }

  /// Collective: in-core or direct, from the options, the estimate and the budget (the
  /// smallest over ranks, so every rank decides alike).
  void choose_integrals() {
    auto& rt = gaea::runtime::current();
    if (opt.integrals == integral_mode::direct) {
      integrals_why = "direct (--integrals direct): recomputed in every build";
      return;
    }
    const double need = incore_bytes_estimate() / rt.size();
    const double avail = mem_available_bytes();
    std::array<double, 1> budget{opt.integral_memory_mb > 0
                                     ? opt.integral_memory_mb * 1e6
                                     : 0.5 * avail / std::max(1, rt.node_size())};
    gaea::coll::allreduce(gaea::coll::world(), std::span<double>(budget),
                          gaea::coll::reduce_op::min);
    budget_bytes = budget[0];
    store_limit_bytes = static_cast<std::int64_t>(
        opt.incore_store_limit_mb > 0 ? std::min(budget_bytes, opt.incore_store_limit_mb * 1e6)
                                      : budget_bytes);
    const std::string source = opt.integral_memory_mb > 0
                                   ? "--integral-memory"
                                   : "half of MemAvailable " + megabytes(avail) + " over " +
                                         std::to_string(rt.node_size()) + " rank(s) on the node";
    const std::string asked = "--integrals " + std::string(to_string(opt.integrals));
    if (need <= budget_bytes) {
      incore = true;
      integrals_why = "in-core (" + asked + "): ~" + megabytes(need) +
                      " of integrals per rank, within the budget of " + megabytes(budget_bytes) +
                      " per rank (" + source + "); computed in the first build, then reused";
    } else {
      integrals_why = "direct (" + asked + "): in-core would need ~" + megabytes(need) +
                      " per rank, over the budget of " + megabytes(budget_bytes) + " per rank (" +
                      source + ")" +
                      (opt.integrals == integral_mode::incore ? "; falling back to direct" : "");
    }
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

  /// In-core: computes task `t`'s shell quartets with the worker's engine; keeps (when `store`)
  /// those whose Schwarz bound times store_scale passes the threshold, and contracts those that
  /// pass this build's density-weighted screening (when the task is on) into the worker's G.
  void compute_task(std::int64_t t, worker& w, bool store, const matrix& dsh) {
    const bool on = task_on[static_cast<std::size_t>(t)] != 0;
    if (!store && !on) return;
    const auto [p, r] = tasks[static_cast<std::size_t>(t)];
    const auto [bi, bj] = pairs[static_cast<std::size_t>(p)];
    const auto [bk, bl] = pairs[static_cast<std::size_t>(r)];
    const auto t0 = clock_type::now();
    stored_task st;
    st.task = t;
    const auto& buf = w.engine.results();
    const auto sh = [&](std::int64_t blk) { return block_shell[static_cast<std::size_t>(blk)]; };
    const double thr = threshold, keep_thr = opt.schwarz_threshold / store_scale;
    const std::int64_t n = basis.nbf;
    const double* d = dfull.data();
    double* g = w.gloc.data();
    for (auto s1 = sh(bi); s1 < sh(bi + 1); ++s1) {
      const auto& a1 = basis.shells[static_cast<std::size_t>(s1)];
      const auto s2_end = bi == bj ? s1 + 1 : sh(bj + 1);
      for (auto s2 = sh(bj); s2 < s2_end; ++s2) {
        const auto& a2 = basis.shells[static_cast<std::size_t>(s2)];
        const double q12 = q(s1, s2);
        const std::int64_t pair12 = s1 * (s1 + 1) / 2 + s2;
        for (auto s3 = sh(bk); s3 < sh(bk + 1); ++s3) {
          const auto& a3 = basis.shells[static_cast<std::size_t>(s3)];
          const auto s4_end = bk == bl ? s3 + 1 : sh(bl + 1);
          for (auto s4 = sh(bl); s4 < s4_end; ++s4) {
            const std::int64_t pair34 = s3 * (s3 + 1) / 2 + s4;
            if (p == r && pair34 > pair12) continue;
            const double bound = q12 * q(s3, s4);
            const bool keep = store && bound >= keep_thr;
            const bool use = on && bound * std::max({dsh(s1, s2), dsh(s3, s4), dsh(s1, s3),
                                                     dsh(s1, s4), dsh(s2, s3), dsh(s2, s4)}) >=
                                       thr;
            if (!keep && !use) continue;
            const auto& a4 = basis.shells[static_cast<std::size_t>(s4)];
            w.engine.compute2<libint2::Operator::coulomb, libint2::BraKet::xx_xx, 0>(
                a1, a2, a3, a4, &shell_pairs[static_cast<std::size_t>(pair12)],
                &shell_pairs[static_cast<std::size_t>(pair34)]);
            const double* v = buf[0];
            if (v == nullptr) continue;
            const double deg =
                (s1 == s2 ? 1.0 : 2.0) * (s3 == s4 ? 1.0 : 2.0) * (pair12 == pair34 ? 1.0 : 2.0);
            const auto n1 = static_cast<std::int64_t>(a1.size()),
                       n2 = static_cast<std::int64_t>(a2.size()),
                       n3 = static_cast<std::int64_t>(a3.size()),
                       n4 = static_cast<std::int64_t>(a4.size());
            if (keep) {
              st.pairs.push_back(static_cast<std::uint32_t>(pair12));
              st.pairs.push_back(static_cast<std::uint32_t>(pair34));
              const std::size_t at = st.values.size();
              const std::int64_t nv = n1 * n2 * n3 * n4;
              st.values.resize(at + static_cast<std::size_t>(nv));
              std::transform(v, v + nv, st.values.begin() + static_cast<std::ptrdiff_t>(at),
                             [deg](double x) { return x * deg; });
            }
            if (use) {
              ++w.t.quartets;
              contract(v, deg, basis.first_bf[static_cast<std::size_t>(s1)], n1,
                       basis.first_bf[static_cast<std::size_t>(s2)], n2,
                       basis.first_bf[static_cast<std::size_t>(s3)], n3,
                       basis.first_bf[static_cast<std::size_t>(s4)], n4, d, g, n);
            }
          }
        }
      }
    }
    if (on) ++w.t.tasks;
    if (store) {
      const auto bytes = static_cast<std::int64_t>(st.values.size() * sizeof(double) +
                                                   st.pairs.size() * sizeof(std::uint32_t));
      // Over this rank's budget: the task is recomputed in every later build instead.
      if (stored_bytes.fetch_add(bytes) + bytes > store_limit_bytes) {
        stored_bytes.fetch_sub(bytes);
        w.recompute.push_back(t);
      } else {
        st.pairs.shrink_to_fit();
        st.values.shrink_to_fit();
        w.stored.push_back(std::move(st));
      }
    }
    const double task_s = since(t0);
    w.t.integrals += task_s;
    w.t.max_task = std::max(w.t.max_task, task_s);
  }

  /// In-core: contracts a stored task's integrals that pass this build's screening.
  void replay_task(const stored_task& st, worker& w, const matrix& dsh) {
    if (task_on[static_cast<std::size_t>(st.task)] == 0) return;
    const auto t0 = clock_type::now();
    const double thr = threshold;
    const std::int64_t n = basis.nbf;
    const double* d = dfull.data();
    double* g = w.gloc.data();
    const double* v = st.values.data();
    for (std::size_t k = 0; k < st.pairs.size(); k += 2) {
      const std::uint32_t p12 = st.pairs[k], p34 = st.pairs[k + 1];
      const std::uint32_t s1 = pair_s1[p12], s2 = pair_s2[p12];
      const std::uint32_t s3 = pair_s1[p34], s4 = pair_s2[p34];
      const std::int64_t n1 = shell_nbf[s1], n2 = shell_nbf[s2], n3 = shell_nbf[s3],
                         n4 = shell_nbf[s4];
      // The bound against the largest |density| first: it drops most quartets of a small ΔD
      // without the six look-ups.
      const double bound = pair_q[p12] * pair_q[p34];
      if (bound * dmax_build >= thr && bound * std::max({dsh(s1, s2), dsh(s3, s4), dsh(s1, s3),
                                                         dsh(s1, s4), dsh(s2, s3), dsh(s2, s4)}) >=
                                           thr) {
        ++w.t.quartets;
        contract(v, 1.0, basis.first_bf[s1], n1, basis.first_bf[s2], n2, basis.first_bf[s3], n3,
                 basis.first_bf[s4], n4, d, g, n);
      }
      v += n1 * n2 * n3 * n4;
    }
    ++w.t.tasks;
    const double task_s = since(t0);
    w.t.integrals += task_s;
    w.t.max_task = std::max(w.t.max_task, task_s);
  }

  /// Collective, after the first in-core build: moves stored tasks from ranks above the mean
  /// store to ranks below it (one alltoallv), so every replay is balanced by its contraction
  /// work whatever the balance of the first build's integral work (the counter balanced that,
  /// under whatever load the machine had then), then spreads each rank's tasks over its workers.
  void balance_store() {
    const gaea::coll::group& world = gaea::coll::world();
    const int nr = world.size(), me = world.rank();
    std::vector<stored_task> mine;
    for (worker& w : workers) {
      for (stored_task& t : w.stored)
        mine.push_back(std::move(t));
      w.stored.clear();
    }
    // Every stored task of every rank: (task, pair indices, values), the same list everywhere.
    std::vector<double> desc;
    for (const stored_task& t : mine) {
      desc.push_back(static_cast<double>(t.task));
      desc.push_back(static_cast<double>(t.pairs.size()));
      desc.push_back(static_cast<double>(t.values.size()));
    }
    const std::vector<std::int64_t> counts =
        gaea::coll::allgather(world, static_cast<std::int64_t>(desc.size()));
    std::vector<double> all(
        static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})));
    gaea::coll::allgatherv(world, std::span<const double>(desc), std::span<double>(all),
                           std::span<const std::int64_t>(counts));
    struct item {
      int owner;
      std::size_t index;  // in the owner's list
      double cost;        // replay work: integrals, plus a few per quartet for its bookkeeping
      std::int64_t words;
    };
    std::vector<std::vector<item>> by_rank(static_cast<std::size_t>(nr));
    std::vector<double> load(static_cast<std::size_t>(nr), 0.0);
    for (int r = 0, k = 0; r < nr; ++r)
      for (std::int64_t j = 0; j < counts[static_cast<std::size_t>(r)] / 3; ++j, k += 3) {
        const double np = all[static_cast<std::size_t>(k) + 1],
                     nv = all[static_cast<std::size_t>(k) + 2];
        const item it{r, static_cast<std::size_t>(j), nv + 2 * np,
                      static_cast<std::int64_t>(3 + np + nv)};
        by_rank[static_cast<std::size_t>(r)].push_back(it);
        load[static_cast<std::size_t>(r)] += it.cost;
      }
    const double mean = std::accumulate(load.begin(), load.end(), 0.0) / nr;
    // dest[r][j]: where rank r's task j goes (r: stays).
    std::vector<std::vector<int>> dest(static_cast<std::size_t>(nr));
    for (int r = 0; r < nr; ++r) {
      auto& items = by_rank[static_cast<std::size_t>(r)];
      dest[static_cast<std::size_t>(r)].assign(items.size(), r);
      std::vector<std::size_t> order(items.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return items[a].cost > items[b].cost; });
      for (const std::size_t j : order) {
        const double excess = load[static_cast<std::size_t>(r)] - mean;
        if (excess <= 0) break;
        const auto recv =
            static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
        const double deficit = mean - load[static_cast<std::size_t>(recv)];
        if (items[j].cost > std::min(excess, deficit)) continue;
        dest[static_cast<std::size_t>(r)][j] = recv;
        load[static_cast<std::size_t>(r)] -= items[j].cost;
        load[static_cast<std::size_t>(recv)] += items[j].cost;
      }
    }
    // Pack what leaves this rank, by destination; count what arrives.
    std::vector<std::int64_t> scount(static_cast<std::size_t>(nr), 0), rcount(scount);
    std::vector<double> send;
    std::vector<stored_task> kept;
    double moved = 0;
    for (int to = 0; to < nr; ++to) {
      for (std::size_t j = 0; j < mine.size(); ++j) {
        if (dest[static_cast<std::size_t>(me)][j] != to || to == me) continue;
        const stored_task& t = mine[j];
        send.push_back(static_cast<double>(t.task));
        send.push_back(static_cast<double>(t.pairs.size()));
        send.push_back(static_cast<double>(t.values.size()));
        send.insert(send.end(), t.pairs.begin(), t.pairs.end());
        send.insert(send.end(), t.values.begin(), t.values.end());
        scount[static_cast<std::size_t>(to)] += by_rank[static_cast<std::size_t>(me)][j].words;
      }
    }
    for (int r = 0; r < nr; ++r)
      for (std::size_t j = 0; j < by_rank[static_cast<std::size_t>(r)].size(); ++j) {
        const int to = dest[static_cast<std::size_t>(r)][j];
        if (to != r) moved += by_rank[static_cast<std::size_t>(r)][j].cost;
        if (to == me && r != me)
          rcount[static_cast<std::size_t>(r)] += by_rank[static_cast<std::size_t>(r)][j].words;
      }
    for (std::size_t j = 0; j < mine.size(); ++j)
      if (dest[static_cast<std::size_t>(me)][j] == me) kept.push_back(std::move(mine[j]));
    mine.clear();
    std::vector<std::int64_t> sdispl(static_cast<std::size_t>(nr), 0), rdispl(sdispl);
    for (std::size_t r = 1; r < static_cast<std::size_t>(nr); ++r) {
      sdispl[r] = sdispl[r - 1] + scount[r - 1];
      rdispl[r] = rdispl[r - 1] + rcount[r - 1];
    }
    std::vector<double> recv(
        static_cast<std::size_t>(std::accumulate(rcount.begin(), rcount.end(), std::int64_t{0})));
    gaea::coll::alltoallv(
        world, std::span<const double>(send), std::span<const std::int64_t>(scount),
        std::span<const std::int64_t>(sdispl), std::span<double>(recv),
        std::span<const std::int64_t>(rcount), std::span<const std::int64_t>(rdispl));
    send = {};
    for (std::size_t k = 0; k < recv.size();) {
      stored_task t;
      t.task = static_cast<std::int64_t>(recv[k]);
      const auto np = static_cast<std::size_t>(recv[k + 1]),
                 nv = static_cast<std::size_t>(recv[k + 2]);
      k += 3;
      t.pairs.reserve(np);
      for (std::size_t j = 0; j < np; ++j)
        t.pairs.push_back(static_cast<std::uint32_t>(recv[k + j]));
      k += np;
      t.values.assign(recv.begin() + static_cast<std::ptrdiff_t>(k),
                      recv.begin() + static_cast<std::ptrdiff_t>(k + nv));
      k += nv;
      kept.push_back(std::move(t));
    }
    // Largest first onto the least loaded worker.
    std::stable_sort(kept.begin(), kept.end(), [](const stored_task& a, const stored_task& b) {
      return a.values.size() > b.values.size();
    });
    std::vector<double> wload(workers.size(), 0.0);
    std::int64_t bytes = 0;
    for (stored_task& t : kept) {
      const auto w =
          static_cast<std::size_t>(std::min_element(wload.begin(), wload.end()) - wload.begin());
      wload[w] += static_cast<double>(t.values.size() + t.pairs.size());
      bytes += static_cast<std::int64_t>(t.values.size() * sizeof(double) +
                                         t.pairs.size() * sizeof(std::uint32_t));
      workers[w].stored.push_back(std::move(t));
    }
    stored_bytes = bytes;
    stats.moved_fraction = moved / std::max(1.0, mean * nr);
  }

  /// In-core build (collective): the first one computes and stores over the counter, later ones
  /// replay each rank's own store; each rank then accumulates its whole G once.
  fock_times build_incore(gaea::global_array<double>& d, const matrix& dsh,
                          gaea::global_array<double>& g, double dmax_all) {
    const std::int64_t n = basis.nbf;
    dmax_build = dmax_all;
    fock_times out;
    // The whole density on every rank: nbf^2 is small next to the integrals kept.
    auto t0 = clock_type::now();
    dfull.resize(n, n);
    d.get({{0, 0}, {n - 1, n - 1}}, std::span<double>(dfull.data(), dfull.size()));
    const double get_s = since(t0);
    for (worker& w : workers) {
      w.t = {};
      w.gloc = matrix::Zero(n, n);
    }
    double wait_s = 0;
    if (!filled) {
      store_scale = std::max(1.0, dmax_all);
      const double precision =
          std::max(std::numeric_limits<double>::epsilon(), opt.schwarz_threshold / store_scale);
      for (worker& w : workers)
        w.engine.set_precision(precision);
      const gaea::counters::task_stats st =
          pool.run(static_cast<std::int64_t>(tasks.size()), [&](std::int64_t t, int wi) {
            compute_task(t, workers[static_cast<std::size_t>(wi)], true, dsh);
          });
      wait_s = st.wait_s;
      filled = true;
      std::array<double, 1> before{static_cast<double>(stored_bytes.load())};
      gaea::coll::allreduce(gaea::coll::world(), std::span<double>(before),
                            gaea::coll::reduce_op::max);
      stats.max_rank_bytes_filled = before[0];
      balance_store();
      std::array<double, 5> sum{}, mx{};
      for (const worker& w : workers) {
        sum[1] += static_cast<double>(w.stored.size());
        sum[2] += static_cast<double>(w.recompute.size());
        for (const stored_task& t : w.stored)
          sum[3] += static_cast<double>(t.values.size());
      }
      sum[0] = mx[0] = static_cast<double>(stored_bytes.load());
      gaea::coll::allreduce(gaea::coll::world(), std::span<double>(sum),
                            gaea::coll::reduce_op::sum);
      gaea::coll::allreduce(gaea::coll::world(), std::span<double>(mx), gaea::coll::reduce_op::max);
      stats.bytes = sum[0];
      stats.max_rank_bytes = mx[0];
      stats.stored_tasks = static_cast<std::int64_t>(sum[1]);
      stats.recomputed_tasks = static_cast<std::int64_t>(sum[2]);
      stats.integrals = sum[3];
    } else {
      // Every worker replays what it stored (and recomputes what did not fit): the split of the
      // first build, balanced by its counter, holds for every later one. No counter, no gets.
      auto replay = [&](worker& w) {
        for (const stored_task& st : w.stored)
          replay_task(st, w, dsh);
        for (const std::int64_t t : w.recompute)
          compute_task(t, w, false, dsh);
      };
      std::vector<std::thread> extra;
      for (std::size_t k = 1; k < workers.size(); ++k)
        extra.emplace_back([&, k] { replay(workers[k]); });
      replay(workers[0]);
      for (auto& th : extra)
        th.join();
    }
    t0 = clock_type::now();
    matrix& gsum = workers[0].gloc;
    for (std::size_t k = 1; k < workers.size(); ++k)
      gsum += workers[k].gloc;
    g.acc({{0, 0}, {n - 1, n - 1}}, std::span<const double>(gsum.data(), gsum.size()));
    g.sync();
    for (const auto& w : workers)
      out += w.t;
    out.get = get_s;
    out.gets = 1;
    out.accs = 1;
    out.acc += since(t0);
    out.counter = wait_s;
    return out;
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
  m.task_on.assign(m.tasks.size(), 0);
  for (std::size_t t = 0; t < m.tasks.size(); ++t) {
    const auto [p, r] = m.tasks[t];
    const auto [bi, bj] = m.pairs[static_cast<std::size_t>(p)];
    const auto [bk, bl] = m.pairs[static_cast<std::size_t>(r)];
    const double dm = std::max(
        {bmax(bi, bj), bmax(bk, bl), bmax(bi, bk), bmax(bi, bl), bmax(bj, bk), bmax(bj, bl)});
    if (m.pair_bound[static_cast<std::size_t>(p)] * m.pair_bound[static_cast<std::size_t>(r)] *
            dm >=
        m.threshold) {
      m.active.push_back(static_cast<std::int64_t>(t));
      m.task_on[t] = 1;
    }
  }
  const double dmax_all = dmax.size() > 0 ? dmax.maxCoeff() : 0.0;
  if (m.incore) {
    fock_times out = m.build_incore(d, dmax, g, dmax_all);
    out.wall = since(t0);
    return out;
  }
  // libint2 drops primitive quartets whose estimate is below the engine's precision: the
  // threshold over max |density| for a full build with max |D| > 1, never looser than the
  // threshold itself (a precision loosened by a small max |ΔD| made the incremental energies
  // scatter by 3e-10 Eh, above the 1e-10 convergence test).
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
bool fock_builder::incore() const noexcept {
  return impl_->incore;
}
const std::string& fock_builder::integrals_description() const noexcept {
  return impl_->integrals_why;
}
const incore_stats& fock_builder::stored() const noexcept {
  return impl_->stats;
}
std::string fock_builder::counter_description() const {
  auto& c = impl_->pool.counter();
  return std::string(to_string(c.mode())) + "/" + std::string(to_string(c.variant())) +
         " on rank " + std::to_string(c.owner());
}

}  // namespace scf
