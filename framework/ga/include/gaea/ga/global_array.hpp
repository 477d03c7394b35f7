#pragma once
/// \file
/// gaea::global_array<T> — a distributed N-D array with one-sided get, put and accumulate.

#include <array>
#include <complex>
#include <concepts>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "gaea/base/error.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/ga/detail/array_core.hpp"
#include "gaea/ga/distribution.hpp"
#include "gaea/ga/patch.hpp"
#include "gaea/ga/request.hpp"
#include "gaea/ga/stats.hpp"
#include "gaea/ga/tile_span.hpp"

namespace gaea::ga {

/// Element types with a distributed implementation: double, float, std::int64_t, std::int32_t,
/// std::complex<double> and std::complex<float> (the list is GAEA_GA_FOR_EACH_ELEMENT).
template <class T>
concept element = detail::is_element_v<T>;

namespace detail {
template <class T>
void acc_kernel_for(void* dst, const void* src, std::size_t n, const void* alpha);
template <class T>
type_ops ops_for() {
  return {type_of<T>(), sizeof(T), &acc_kernel_for<T>};
}
}  // namespace detail

/// Zero-copy view of one of this rank's tiles. Element access takes *global* indices, which may
/// reach into the ghost cells (box.lo - ghosts .. box.hi + ghosts); none is bounds-checked.
/// In loops, `span<N>()` is the fast form: it costs what hand-written `origin + strides` does.
template <class T>
struct tile_view {
  patch box;      ///< the tile's interior, global indices
  index ghosts;   ///< ghost width per dimension
  index strides;  ///< storage strides in elements (row-major, ghosts included; the last is 1)
  T* origin;      ///< the element box.lo
  /// The element at `e` (as many indices as the array has dimensions).
  T& at(const index& e) const noexcept {
    index_t o = 0;
    for (std::size_t d = 0; d < strides.size(); ++d)
      o += (e[d] - box.lo[d]) * strides[d];
    return origin[o];
  }
  /// The element at (i, j, ...): one index per dimension of the array.
  template <std::convertible_to<index_t>... I>
  requires(sizeof...(I) >= 1) T& operator()(I... i) const noexcept {
    constexpr std::size_t n = sizeof...(I);
    const index_t e[] = {static_cast<index_t>(i)...};
    index_t o = e[n - 1] - box.lo[n - 1];  // the last stride is 1 (row-major storage)
    for (std::size_t d = 0; d + 1 < n; ++d)
      o += (e[d] - box.lo[d]) * strides[d];
    return origin[o];
  }
  /// A view of rank N with its bounds and strides copied out (see tile_span). Throws
  /// gaea::error if the array does not have N dimensions.
  template <std::size_t N>
  tile_span<T, N> span() const {
    if (box.lo.size() != N)
      throw error("tile_view::span<" + std::to_string(N) + ">: the tile has " +
                  std::to_string(box.lo.size()) + " dimensions");
    std::array<index_t, N> lo{}, hi{}, g{}, s{};
    for (std::size_t d = 0; d < N; ++d) {
      lo[d] = box.lo[d];
      hi[d] = box.hi[d];
      g[d] = d < ghosts.size() ? ghosts[d] : 0;
      s[d] = strides[d];
    }
    return tile_span<T, N>(origin, lo, hi, g, s);
  }
  /// Elements of the interior.
  index_t elements() const noexcept { return box.elements(); }
};

/// A distributed array of `T`, row-major, with inclusive patch bounds (as in Global Arrays).
///
/// Collective calls (every rank, same order): the constructors, duplicate(), destroy() and the
/// destructor, sync(), fill(), zero(), update_ghosts(), and the algorithms of algorithms.hpp.
/// One-sided calls (any rank, any thread, any time): get(), put(), acc(), fence(), the queries,
/// local_tiles() and access().
///
/// Completion semantics:
///   - get: returns (or its request completes) when the data is in `buf`; it first waits for
///     the calling thread's earlier puts/accs to *this array on the same owners* (conflict
///     tracking), nothing else.
///   - put, acc: return (or complete) when `buf` may be reused; they are complete at the owners
///     after fence() or sync() (or a later get of the same array from the same owner).
///   - acc is applied by the owner (its progress thread), atomically with respect to other
///     accumulates to the same elements; accumulates are not ordered among themselves.
/// Non-blocking forms take the `ga::nonblocking` tag and return a ga::request; the blocking
/// forms are the same operation followed by wait().
/// Buffers: `buf` holds the patch row-major; `ld[k]` is the extent of buffer dimension k+1
/// (default: the patch extent), so a patch can be read into part of a larger local array.
/// Errors: bad patches, buffer sizes or leading extents throw gaea::error naming the array,
/// before any communication; so does any use after destroy() or after a move.
/// Thread safety: one-sided calls may come from several threads (e.g. oneTBB workers); fence()
/// covers the calling thread's operations only.
template <element T>
class global_array {
 public:
  /// Collective. `dims`: extents (1 to 7 dimensions, each > 0). `spec`: distribution (block by
  /// default; irregular; 2-D block-cyclic) and ghost widths. Throws gaea::error for bad input or
  /// when a node lacks memory for its part (on every rank).
  global_array(std::string name, const index& dims, const layout_spec& spec = {})
      : global_array(coll::world(), std::move(name), dims, spec) {}
  /// Collective over group `g` only: the array is distributed over its members (as if they
  /// were the only ranks, in member order), and its collective calls (creation, sync,
  /// destroy, the algorithms...) are collective over `g`; the other ranks take no part and
  /// cannot create or use it (gaea::error). One-sided calls address the members' memory.
  /// Ranks in the queries (owner, tiles, locate...) are runtime ranks, as everywhere.
  global_array(const coll::group& g, std::string name, const index& dims,
               const layout_spec& spec = {})
      : name_(name),
        core_(std::make_unique<detail::array_core>(std::move(name), dims, spec,
                                                   detail::ops_for<T>(), g)) {}
  /// Collective. Block distribution with a minimum block extent per dimension (GA's chunk).
  global_array(std::string name, const index& dims, const index& chunk)
      : global_array(std::move(name), dims, layout_spec::block(chunk)) {}
  /// Takes over the source's array (local, no communication); the source is left invalid.
  global_array(global_array&&) noexcept = default;
  /// Collective when `*this` holds an array (it is synced and freed first, as by destroy(); errors
  /// there are reported on stderr); then takes over the source's array, which is left invalid.
  global_array& operator=(global_array&&) noexcept = default;

  /// Collective: a new zero-filled array with this one's shape, distribution, ghosts and group.
  global_array duplicate(std::string name) const {
    return global_array(core().group(), std::move(name), dims(), core().dist().spec());
  }
  /// Collective: syncs and frees the array now; any later use throws gaea::error.
  void destroy() {
    core();
    core_.reset();
  }
  /// False after destroy() or a move.
  bool valid() const noexcept { return core_ != nullptr; }

  /// The name given at creation (used in error messages); still readable after destroy().
  const std::string& name() const noexcept { return name_; }
  /// Number of dimensions. Like the queries below: local, any thread; gaea::error after
  /// destroy() or a move.
  int ndim() const { return core().dist().ndim(); }
  /// Extent of each dimension.
  const index& dims() const { return core().dist().dims(); }
  /// The distribution: tiles, owners and storage layout.
  const ga::distribution& layout() const { return core().dist(); }
  /// The process group the array lives on (coll::world() unless created on another).
  const coll::group& group() const { return core().group(); }
  /// The block `rank` owns (empty patch when it owns nothing). Block and irregular only.
  patch distribution(int rank) const { return core().dist().block(rank); }
  /// Tiles `rank` owns, row-major over the tile grid (one for block and irregular, many for
  /// block-cyclic).
  std::vector<tile> tiles(int rank) const { return core().dist().tiles(rank); }
  /// Owners of `p` and their pieces, one per tile. Throws gaea::error for an invalid patch.
  std::vector<owned_patch> locate(const patch& p) const {
    core().dist().validate(p, "locate");
    return core().dist().locate(p);
  }
  /// Distinct owners of `p`, ascending. Throws gaea::error for an invalid patch.
  std::vector<int> owners(const patch& p) const {
    core().dist().validate(p, "owners");
    return core().dist().owners(p);
  }
  /// The strided cost model for transfers between this rank and `target` (measured with a few
  /// round trips on first use, then cached for the runtime). Not collective; any thread.
  /// Throws gaea::error if `target` is not a rank.
  strided_model cost_model(int target) const { return core().model_for(target); }
  /// Owner of one element. Throws gaea::error if it is outside the array.
  int owner(const index& element) const { return core().dist().owner(element); }

  /// Copies array[p] into `buf` (row-major, leading extents `ld`; see the class comment) and
  /// returns when the data is there. One-sided, any thread. Throws gaea::error for an invalid
  /// patch, a wrong `ld` or a too small `buf` (before any communication), or a transfer failure.
  void get(const patch& p, std::span<T> buf, std::span<const index_t> ld = {}) {
    core().get_blocking(p, {buf.data(), buf.size(), ld});
  }
  /// Non-blocking get: issues the transfer and returns; the data is in `buf` (which must stay
  /// alive and untouched) when the request completes. Same checks as the blocking form.
  [[nodiscard]] request get(const patch& p, std::span<T> buf, nonblocking_t,
                            std::span<const index_t> ld = {}) {
    return core().get(p, {buf.data(), buf.size(), ld});
  }
  /// Copies `buf` (row-major, leading extents `ld`) into array[p]; returns when `buf` may be
  /// reused (complete at the owners after fence() or sync()). One-sided, any thread. Same errors
  /// as get().
  void put(const patch& p, std::span<const T> buf, std::span<const index_t> ld = {}) {
    core().put_blocking(p, {const_cast<T*>(buf.data()), buf.size(), ld});
  }
  /// Non-blocking put: `buf` must stay alive and unchanged until the request completes. Same
  /// checks as the blocking form.
  [[nodiscard]] request put(const patch& p, std::span<const T> buf, nonblocking_t,
                            std::span<const index_t> ld = {}) {
    return core().put(p, {const_cast<T*>(buf.data()), buf.size(), ld});
  }
  /// array[p] += alpha * buf; returns when `buf` may be reused (complete at the owners after
  /// fence() or sync()). One-sided, any thread; atomic per element with respect to the other
  /// accumulates (see acc_protocol). Same errors as get().
  void acc(const patch& p, std::span<const T> buf, T alpha = T(1),
           std::span<const index_t> ld = {}) {
    core().acc_blocking(p, {const_cast<T*>(buf.data()), buf.size(), ld}, &alpha);
  }
  /// Non-blocking acc: `buf` must stay alive and unchanged until the request completes. Same
  /// atomicity and checks as the blocking form.
  [[nodiscard]] request acc(const patch& p, std::span<const T> buf, nonblocking_t, T alpha = T(1),
                            std::span<const index_t> ld = {}) {
    return core().acc(p, {const_cast<T*>(buf.data()), buf.size(), ld}, &alpha);
  }

  /// Collective: fills the ghost cells of every tile from the owners of the neighbouring
  /// elements, corners included. `b`: boundary::periodic wraps around every dimension;
  /// boundary::fixed leaves the ghost cells outside the array as they are (a Dirichlet edge the
  /// caller sets). No-op (but still collective) without ghosts.
  void update_ghosts(boundary b) { update_ghosts_async(b).wait(); }
  /// Collective: starts update_ghosts(b) and returns before the ghost cells have arrived,
  /// so that work on the interiors can overlap the transfers. Every rank's interiors must be
  /// final (a sync() is done first); until the handle's wait() (collective) the array must not
  /// be written nor its ghosts read (see ghost_request). Call from the runtime's thread, as any
  /// collective.
  [[nodiscard]] ghost_request update_ghosts_async(boundary b) {
    return core().update_ghosts_async(b == boundary::periodic);
  }

  /// Reads the elements at `subs` (global indices) into `out` (same length).
  /// One message per owner; throws gaea::error for a bad subscript, before any communication.
  void gather(std::span<const index> subs, std::span<T> out) {
    check_list(subs.size(), out.size(), "gather");
    elements(op::gather, subs, nullptr, out.data(), nullptr).wait();
  }
  /// Writes `values[i]` to `subs[i]`. Complete at the owners after fence()/sync().
  void scatter(std::span<const index> subs, std::span<const T> values) {
    check_list(subs.size(), values.size(), "scatter");
    elements(op::scatter, subs, values.data(), nullptr, nullptr).wait();
  }
  /// element(subs[i]) += alpha * values[i], atomically per element (like acc).
  void scatter_acc(std::span<const index> subs, std::span<const T> values, T alpha = T(1)) {
    check_list(subs.size(), values.size(), "scatter_acc");
    elements(op::scatter_acc, subs, values.data(), nullptr, &alpha).wait();
  }
  /// Atomically adds `inc` to one element and returns its previous value (GA's read_inc).
  /// Served by the owner's progress thread; atomic with respect to acc and scatter_acc.
  T read_inc(const index& element, T inc = T(1)) requires std::is_integral_v<T> {
    T old{};
    read_inc(element, inc, old, nonblocking).wait();
    return old;
  }
  /// Non-blocking read_inc: issues the increment and returns; `old` receives the previous value
  /// when the request completes (it must stay alive until then). Same atomicity and errors.
  [[nodiscard]] request read_inc(const index& element, T inc, T& old,
                                 nonblocking_t) requires std::is_integral_v<T> {
    const T one(1);
    return elements(op::read_inc, std::span(&element, 1), &inc, &old, &one);
  }

  /// This rank's storage, ghost cells included: its tiles one after the other (for a block
  /// distribution without ghosts: its block, row-major), or, block-cyclic, one row-major local
  /// matrix holding all its tiles (ScaLAPACK's local layout; local_tiles() gives each tile's
  /// origin and strides). Zero-copy: reads and writes go straight to the memory peers access.
  /// Empty if the rank owns nothing.
  std::span<T> access() const {
    return {static_cast<T*>(core().local_data()),
            static_cast<std::size_t>(core_->dist().storage_elements(core_->rt_rank()))};
  }
  /// Zero-copy views of this rank's tiles.
  std::vector<tile_view<T>> local_tiles() const {
    std::vector<tile_view<T>> out;
    const auto& d = core().dist();
    for (const tile& t : core_->local_tiles()) {
      const index s = d.storage_strides(t);
      out.push_back({t.box, d.ghosts(), s,
                     static_cast<T*>(core_->local_data()) + d.storage_offset(t, t.box.lo)});
    }
    return out;
  }
  /// This rank's block (block and irregular distributions; empty if it owns nothing).
  patch local_block() const { return core().dist().block(core_->rt_rank()); }

  /// Completes this thread's outstanding puts and accumulates to this array.
  void fence() { core().fence(); }
  /// Collective: fence on every rank, then a barrier.
  void sync() { core().sync(); }
  /// Collective: every element (ghost cells included) = value.
  void fill(T value) {
    core().sync();
    for (T& x : access())
      x = value;
    core_->sync();
  }
  /// Collective: fill(T(0)).
  void zero() { fill(T(0)); }

  /// The type-erased implementation (for the algorithms and I/O of this module).
  detail::array_core& core() const {
    if (!core_)
      throw error("global_array '" + name_ + "': used after destroy() or after being moved from");
    return *core_;
  }

 private:
  void check_list(std::size_t subs, std::size_t values, const char* what) const {
    if (subs != values)
      throw error("global_array '" + name_ + "': " + what + " of " + std::to_string(subs) +
                  " subscripts with " + std::to_string(values) + " values");
  }
  request elements(op o, std::span<const index> subs, const T* values, T* out, const T* alpha) {
    return core().element_list(o, subs, reinterpret_cast<const std::byte*>(values),
                               reinterpret_cast<std::byte*>(out), alpha);
  }

  std::string name_;
  std::unique_ptr<detail::array_core> core_;
};

}  // namespace gaea::ga

namespace gaea {
using ga::global_array;
}
