#include "gaea/ga/distribution.hpp"

#include <algorithm>

#include "gaea/base/error.hpp"

namespace gaea::ga {

namespace {
std::vector<int> prime_factors_descending(int n) {
  std::vector<int> f;
  for (int p = 2; p * p <= n; ++p)
    while (n % p == 0)
      f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  std::sort(f.rbegin(), f.rend());
  return f;
}
}  // namespace

distribution::distribution(const std::string& name, const index& dims, int nprocs,
                           const index& chunk)
    : name_(name), dims_(dims), nprocs_(nprocs) {
  const std::string who = "global_array '" + name + "'";
  if (dims.empty() || dims.size() > static_cast<std::size_t>(max_dims))
    throw Error(who + ": " + std::to_string(dims.size()) + " dimensions; 1 to " +
                std::to_string(max_dims) + " are supported");
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d] <= 0)
      throw Error(who + ": dims[" + std::to_string(d) + "]=" + std::to_string(dims[d]) +
                  " must be positive (dims = " + format_index(dims) + ")");
  if (!chunk.empty() && chunk.size() != dims.size())
    throw Error(who + ": chunk hint has " + std::to_string(chunk.size()) + " entries for " +
                std::to_string(dims.size()) + " dimensions");
  for (std::size_t d = 0; d < chunk.size(); ++d)
    if (chunk[d] < 0 || chunk[d] > dims[d])
      throw Error(who + ": chunk[" + std::to_string(d) + "]=" + std::to_string(chunk[d]) +
                  " must be in [0, " + std::to_string(dims[d]) + "]");

  // Process grid: two greedy candidates, keep the one that employs more ranks.
  //  (a) hand out the prime factors of P, largest first;
  //  (b) add one block at a time while the product stays <= P (this uses ranks that (a)
  //      cannot, e.g. 3 blocks for 4 ranks on a 3-element array).
  // Both give each step to the dimension whose blocks are currently widest, never splitting a
  // dimension below its chunk hint.
  const std::size_t n = dims.size();
  auto widest = [&](const std::vector<int>& g, auto&& next_count, index_t budget) {
    index_t prod = 1;
    for (int x : g)
      prod *= x;
    int best = -1;
    double best_len = 0;
    for (std::size_t d = 0; d < n; ++d) {
      const index_t next = next_count(g[d]);
      const index_t min_block = chunk.empty() || chunk[d] == 0 ? 1 : chunk[d];
      if (dims[d] / next < min_block || prod / g[d] * next > budget) continue;
      const double len = static_cast<double>(dims[d]) / g[d];
      if (len > best_len) best_len = len, best = static_cast<int>(d);
    }
    return best;
  };
  std::vector<int> a(n, 1), b(n, 1);
  for (int f : prime_factors_descending(nprocs)) {
    const int d = widest(
        a, [f](int g) { return static_cast<index_t>(g) * f; }, nprocs);
    if (d >= 0) a[static_cast<std::size_t>(d)] *= f;
  }
  for (int d; (d = widest(
                   b, [](int g) { return static_cast<index_t>(g) + 1; }, nprocs)) >= 0;)
    ++b[static_cast<std::size_t>(d)];
  auto product = [](const std::vector<int>& g) {
    index_t p = 1;
    for (int x : g)
      p *= x;
    return p;
  };
  grid_ = product(b) > product(a) ? b : a;
  // Balanced boundaries: block sizes along a dimension differ by at most one.
  starts_.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    starts_[d].resize(static_cast<std::size_t>(grid_[d]) + 1);
    for (int i = 0; i <= grid_[d]; ++i)
      starts_[d][static_cast<std::size_t>(i)] = dims[d] * i / grid_[d];
  }
}

patch distribution::block(int rank) const {
  const std::size_t n = dims_.size();
  patch p{index(n, 0), index(n, -1)};
  index_t procs = 1;
  for (int g : grid_)
    procs *= g;
  if (rank < 0 || rank >= procs) return p;  // owns nothing
  // Row-major rank -> grid coordinates.
  index_t r = rank;
  for (std::size_t d = n; d-- > 0;) {
    const auto c = static_cast<std::size_t>(r % grid_[d]);
    r /= grid_[d];
    p.lo[d] = starts_[d][c];
    p.hi[d] = starts_[d][c + 1] - 1;
  }
  return p;
}

void distribution::validate(const patch& p, const char* op) const {
  // Messages are built only on failure: this runs on every get/put/acc.
  auto who = [&] { return "global_array '" + name_ + "': " + op + ": "; };
  if (p.lo.size() != dims_.size() || p.hi.size() != dims_.size())
    throw Error(who() + "patch has " + std::to_string(p.lo.size()) + "/" +
                std::to_string(p.hi.size()) + " lo/hi indices for a " +
                std::to_string(dims_.size()) + "-D array");
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (p.lo[d] > p.hi[d])
      throw Error(who() + "patch lo[" + std::to_string(d) + "]=" + std::to_string(p.lo[d]) +
                  " > hi[" + std::to_string(d) + "]=" + std::to_string(p.hi[d]));
    if (p.lo[d] < 0 || p.hi[d] >= dims_[d])
      throw Error(who() + "patch " + p.str() + " is outside the array: dimension " +
                  std::to_string(d) + " has indices 0.." + std::to_string(dims_[d] - 1) +
                  " (dims = " + format_index(dims_) + ")");
  }
}

std::vector<owned_patch> distribution::locate(const patch& p) const {
  std::vector<owned_patch> out;
  for_each_owner(p, [&](int rank, const patch& piece, const patch&) {
    out.push_back({rank, piece});
  });
  return out;
}

}  // namespace gaea::ga
