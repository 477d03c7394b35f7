// ga::detail::array_core: creation and release of a global array, its get/put/acc entry points,
// fence, sync and barrier, and local pack/unpack; the protocols are in rma.cpp and acc.cpp.

#include "gaea/ga/detail/array_core.hpp"

#include <cstdint>
#include <cstring>

#include "detail/acc_locks.hpp"
#include "detail/capacity.hpp"
#include "detail/op_state.hpp"
#include "detail/registry.hpp"
#include "detail/stats_counters.hpp"
#include "detail/tracker.hpp"
#include "gaea/base/detail/copy.hpp"
#include "gaea/base/detail/destructor_call.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::ga::detail {

namespace {
std::size_t storage_bytes(const distribution& d, int rank, std::size_t elem, const std::string& n) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(d.storage_elements(rank)), elem, &bytes))
    throw error("global_array '" + n + "': the part of rank " + std::to_string(rank) +
                " does not fit in 64 bits of bytes");
  return bytes;
}
// Per-rank average shares at least this large are checked before the distribution is built.
constexpr std::uint64_t precheck_bytes = std::uint64_t{256} << 20;

// Every argument of a creation agrees across the ranks before anything else happens: a rank
// creating another array (or an extra one) would otherwise pair its segment with the wrong one.
void agree_creation(const coll::group& g, const std::string& name, const index& dims,
                    const layout_spec& spec, elem_type type) {
  coll::call_record r("global_array", name, "created");
  r.add("dims", format_index(dims)).add("element type", std::string(to_string(type)));
  std::string layout = kind_name(spec.type);
  if (!spec.chunk.empty()) layout += " chunk " + format_index(spec.chunk);
  if (!spec.starts.empty()) {
    layout += " starts";
    for (const auto& s : spec.starts)
      layout += " " + format_index(s);
  }
  if (!spec.tile.empty()) layout += " tile " + format_index(spec.tile);
  if (!spec.grid.empty()) {
    const std::vector<std::int64_t> grid(spec.grid.begin(), spec.grid.end());
    layout += " grid " + format_index(grid);
  }
  if (!spec.ranks.empty()) {
    const std::vector<std::int64_t> ranks(spec.ranks.begin(), spec.ranks.end());
    layout += " ranks " + format_index(ranks);
  }
  r.add("distribution", layout).add("ghosts", format_index(spec.ghosts));
  const progress::scoped_wait_label label(
      [&name] { return "creating global_array '" + name + "'"; });
  if (g.name() != "world") r.add("group", g.name() + " of " + std::to_string(g.size()));
  coll::agree_on(g, r);
}

// Runs before the distribution is built, because its tile tables grow with the extents: an
// absurd size (gaea-lu --n 9223372036854775807) would build them until the OOM killer came.
// The whole array's bytes are computed without overflow, and a large array's average share per
// rank (a lower bound of the largest part) goes through the collective capacity check, so that
// it fails at once with "needs N MiB". Every rank has the same dims, hence the same verdict and
// the same collective calls. Returns `name` (it initialises dist_).
const std::string& precheck(const coll::group& g, const std::string& name, const index& dims,
                            std::size_t elem) {
  std::uint64_t total = elem;
  for (const index_t d : dims) {
    if (d <= 0) return name;  // the distribution reports bad extents
    if (__builtin_mul_overflow(total, static_cast<std::uint64_t>(d), &total))
      throw error("global_array '" + name + "': dims " + format_index(dims) + " of " +
                  std::to_string(elem) +
                  "-byte elements need more than 2^64 bytes (nothing was allocated)");
  }
  runtime& rt = runtime::current();
  const auto ranks = static_cast<std::uint64_t>(g.size());
  const std::uint64_t share = total / ranks + (total % ranks != 0 ? 1 : 0);
  if (share >= precheck_bytes) {
    const progress::scoped_wait_label label(
        [&name] { return "creating global_array '" + name + "'"; });
    check_capacity(rt, g, share, "global_array '" + name + "'");
  }
  return name;
}

// The group the array lives on, checked before anything collective: this rank must be in it.
const coll::group& member_group(const coll::group& g, const std::string& name) {
  if (g.rank() < 0)
    throw error("global_array '" + name + "': rank " + std::to_string(runtime::current().rank()) +
                " is not a member of group '" + g.name() + "', on which it is created");
  return g;
}

// True when member i of `g` is rank i, for every rank: the runtime's own barrier and segments
// serve it.
bool is_world(const coll::group& g) {
  if (g.size() != runtime::current().size()) return false;
  for (int i = 0; i < g.size(); ++i)
    if (g.world_rank(i) != i) return false;
  return true;
}

// Runtime rank of each member of `g`.
std::vector<int> member_ranks(const coll::group& g) {
  std::vector<int> r(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < g.size(); ++i)
    r[static_cast<std::size_t>(i)] = g.world_rank(i);
  return r;
}

// The segment's creation, collective over the group's members only.
comm::segment_members segment_group(const coll::group& g) {
  return {member_ranks(g), [g](std::span<const std::byte> mine) {
            const auto counts = coll::allgather(g, static_cast<std::int64_t>(mine.size()));
            std::int64_t total = 0;
            for (const std::int64_t c : counts)
              total += c;
            std::vector<std::byte> flat(static_cast<std::size_t>(total));
            coll::allgatherv(g, mine, std::span<std::byte>(flat), std::span(counts));
            std::vector<std::vector<std::byte>> all;
            std::size_t at = 0;
            for (const std::int64_t c : counts) {
              all.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at),
                               flat.begin() + static_cast<std::ptrdiff_t>(at + c));
              at += static_cast<std::size_t>(c);
            }
            return all;
          }};
}
}  // namespace

array_core::array_core(std::string name, const index& dims, const layout_spec& spec, type_ops ops,
                       const coll::group& g)
    : name_(std::move(name)),
      group_(member_group(g, name_)),
      on_world_(is_world(group_)),
      dist_((agree_creation(group_, name_, dims, spec, ops.type),
             precheck(group_, name_, dims, ops.size)),
            dims, group_.size(), spec, on_world_ ? std::vector<int>{} : member_ranks(group_)),
      ops_(ops),
      rt_(runtime::current()),
      rt_instance_(rt_.instance()),
      rank_(rt_.rank()),
      local_tiles_(dist_.tiles(rt_.rank())),
      models_(std::make_unique<std::atomic<const strided_model*>[]>(
          static_cast<std::size_t>(rt_.size()))) {
  const std::string what = "global_array '" + name_ + "'";
  const progress::scoped_wait_label label([&what] { return "creating " + what; });
  const std::size_t bytes = storage_bytes(dist_, rt_.rank(), ops_.size, name_);
  // The storage, then (8-byte aligned) the striped accumulate locks, then the rank's lock word
  // for source-driven accumulates (the last 8 bytes).
  if (bytes > SIZE_MAX / 2)
    throw error(what + ": the part of rank " + std::to_string(rank_) + " needs " +
                std::to_string(bytes) + " bytes, more than 64 bits can address");
  const std::size_t with_lock = acc_locks_offset(rank_) +
                                (acc_lock_count(bytes) * sizeof(std::uint32_t) + 7) / 8 * 8 +
                                sizeof(std::int64_t);
  check_capacity(rt_, group_, with_lock, what);
  install_handlers(rt_);
  seg_ = on_world_
             ? std::make_unique<comm::segment>(rt_.comm(), with_lock, what)
             : std::make_unique<comm::segment>(rt_.comm(), with_lock, what, segment_group(group_));
  register_array(seg_->id(), this);
  barrier();  // every member can now serve requests to this array
}

array_core::~array_core() {
  if (!runtime::is_live(rt_instance_)) {
    // The array outlived its runtime, whose shut-down reported it and orphaned its memory: only
    // the process-wide registry entry is left to remove.
    unregister_array(seg_->id());
    return;
  }
  // During unwinding or after a failure the other ranks may never come: skip the barrier.
  if (rt_.may_synchronize())
    gaea::detail::destructor_call("gaea: destroying global_array '" + name_ + "': ",
                                  [this] { sync(); });
  unregister_array(seg_->id());
  tracker::mine(rt_.instance(), rt_.size()).forget(seg_->id());
}

std::uint64_t array_core::id() const noexcept {
  return seg_->id();
}
void* array_core::local_data() const noexcept {
  return seg_->local_base();
}
std::uint64_t array_core::lock_offset(int rank) const {
  return seg_->size(rank) - sizeof(std::int64_t);
}
std::uint64_t array_core::acc_locks_offset(int rank) const {
  return (static_cast<std::uint64_t>(dist_.storage_elements(rank)) * ops_.size + 7) / 8 * 8;
}
tracker& array_core::my_tracker() const {
  return tracker::mine(rt_.instance(), rt_.size());
}

std::unique_ptr<op_state> array_core::start(op kind) const {
  return std::make_unique<op_state>(rt_, kind);
}

trace::region_args array_core::trace_args(const patch& p) const noexcept {
  // Called only while tracing; a bad patch (reported by the operation itself) gives no peer.
  trace::region_args a;
  a.bytes = p.elements() * static_cast<std::int64_t>(ops_.size);
  try {
    if (p.ndim() == dist_.ndim()) a.peer = dist_.owner(p.lo);
  } catch (...) {  // the operation reports the bad patch itself; the trace records no peer
  }
  return a;
}

request array_core::get(const patch& p, user_buffer buf) {
  const trace::scoped_region region("ga.nbget", [&] { return trace_args(p); });
  auto st = start(op::get);
  get(p, buf, *st);
  return request(std::move(st));
}
void array_core::get_blocking(const patch& p, user_buffer buf) {
  const trace::scoped_region region("ga.get", [&] { return trace_args(p); });
  if (direct_row(op::get, p, buf)) return;
  op_state st(rt_, op::get);
  get(p, buf, st);
  st.wait();
}
void array_core::put_blocking(const patch& p, user_buffer buf) {
  const trace::scoped_region region("ga.put", [&] { return trace_args(p); });
  if (direct_row(op::put, p, buf)) return;
  op_state st(rt_, op::put);
  put(p, buf, st);
  st.wait();
}
request array_core::put(const patch& p, user_buffer buf) {
  const trace::scoped_region region("ga.nbput", [&] { return trace_args(p); });
  auto st = start(op::put);
  put(p, buf, *st);
  return request(std::move(st));
}
request array_core::acc(const patch& p, user_buffer buf, const void* alpha) {
  const trace::scoped_region region("ga.nbacc", [&] { return trace_args(p); });
  auto st = start(op::acc);
  acc(p, buf, alpha, *st);
  return request(std::move(st));
}
void array_core::acc_blocking(const patch& p, user_buffer buf, const void* alpha) {
  const trace::scoped_region region("ga.acc", [&] { return trace_args(p); });
  op_state st(rt_, op::acc);
  acc(p, buf, alpha, st);
  st.wait();
}

index array_core::buffer_strides(const patch& p, const user_buffer& buf, const char* op) const {
  dist_.validate(p, op);
  const int n = p.ndim();
  const auto& ld = buf.ld;
  auto who = [&] { return "global_array '" + name_ + "': " + op + " " + p.str() + ": "; };
  if (!ld.empty() && ld.size() != static_cast<std::size_t>(n - 1))
    throw error(who() + "ld has " + std::to_string(ld.size()) + " entries; a " + std::to_string(n) +
                "-D patch needs " + std::to_string(n - 1));
  index s(static_cast<std::size_t>(n), 1);
  for (int d = n - 2; d >= 0; --d) {
    const index_t ext = p.extent(d + 1);
    const index_t l = ld.empty() ? ext : ld[static_cast<std::size_t>(d)];
    if (l < ext)
      throw error(who() + "ld[" + std::to_string(d) + "]=" + std::to_string(l) +
                  " is smaller than the patch extent " + std::to_string(ext) + " of dimension " +
                  std::to_string(d + 1));
    s[static_cast<std::size_t>(d)] = s[static_cast<std::size_t>(d) + 1] * l;
  }
  index_t need = 1;
  for (int d = 0; d < n; ++d)
    need += (p.extent(d) - 1) * s[static_cast<std::size_t>(d)];
  if (buf.elems < static_cast<std::size_t>(need))
    throw error(who() + "buffer has " + std::to_string(buf.elems) + " elements; the patch needs " +
                std::to_string(need));
  return s;
}

void array_core::fence_for_get(comm::worker& w, tracker& tr, int r) {
  target_status* st = tr.find(id(), r);  // no entry is made for a target only read
  if (st && st->dirty) {                 // earlier writes to this array on r: complete them first
    comm::completion fenced;
    if (st->puts) w.flush(r, fenced);
    rt_.wait(fenced);
    rt_.wait(tr.status(id(), r).accs);  // looked up again: waiting may run handlers
    tr.clean(id(), r);
    bump(counters().flushes_issued);
  } else if (tr.dirty_arrays(r) > 0) {
    bump(counters().flushes_avoided);  // a per-target tracker would have fenced here
  }
}

void array_core::fence() {
  const trace::scoped_region region("ga.fence");
  comm::worker& w = rt_.worker();
  tracker& tr = my_tracker();
  // Only the targets written since the last fence have an entry: O(those), not O(P).
  const std::vector<int> written = tr.targets(id());
  if (written.empty()) return;
  comm::completion flushed;
  bool any_puts = false;
  for (int r : written) {
    const target_status* st = tr.find(id(), r);
    if (st && st->dirty && st->puts) any_puts = true;
  }
  if (any_puts) w.flush_all(flushed);
  rt_.wait(flushed);
  for (int r : written) {
    // Looked up each time (not held across waits, which may run handlers); an entry left
    // clean by a write that failed to post has nothing pending and is dropped too.
    rt_.wait(tr.status(id(), r).accs);
    tr.clean(id(), r);
  }
}

void array_core::sync() {
  const trace::scoped_region region("ga.sync");
  const progress::scoped_wait_label label([this] { return "global_array '" + name_ + "' sync"; });
  fence();
  barrier();
}

void array_core::barrier() {
  group_barrier(rt_, group_, on_world_);
}

void group_barrier(runtime& rt, const coll::group& g, bool on_world) {
  if (on_world) {
    rt.barrier();
    return;
  }
  comm::completion flushed;
  rt.worker().flush_all(flushed);
  rt.wait(flushed);
  coll::barrier(g);
}

bool same_group(const array_core& a, const array_core& b) {
  if (&a.group() == &b.group() || (a.on_world() && b.on_world())) return true;
  const coll::group &ga = a.group(), &gb = b.group();
  bool same = ga.size() == gb.size();
  for (int i = 0; same && i < ga.size(); ++i)
    same = ga.world_rank(i) == gb.world_rank(i);
  return same;
}

void require_same_group(const array_core& a, const array_core& b) {
  if (!same_group(a, b)) {
    const coll::group &ga = a.group(), &gb = b.group();
    throw error("global_array '" + a.name() + "' lives on group '" + ga.name() + "' (" +
                std::to_string(ga.size()) + " ranks), '" + b.name() + "' on group '" + gb.name() +
                "' (" + std::to_string(gb.size()) +
                " ranks): a collective operation needs arrays on the same ranks");
  }
}

namespace {
// Calls fn(storage byte offset, packed byte offset, row bytes) for every row of `piece`, which
// lies inside one of this rank's tiles.
template <class Fn>
void for_each_local_row(const distribution& dist, const patch& piece, std::size_t es, Fn&& fn) {
  const tile t = dist.tile_of(piece.lo);
  const int n = piece.ndim();
  const index os = dist.storage_strides(t);
  index origin = t.box.lo;
  for (std::size_t d = 0; d < origin.size(); ++d)
    origin[d] -= dist.ghosts()[d];
  const std::size_t row = static_cast<std::size_t>(piece.extent(n - 1)) * es;
  const index zeros(static_cast<std::size_t>(n), 0);
  std::size_t at = 0;
  for_each_row(piece, origin, os, zeros, zeros, [&](index_t off, index_t) {
    fn(static_cast<std::size_t>(t.offset + off) * es, at, row);
    at += row;
  });
}
}  // namespace

void array_core::apply_acc(const patch& piece, const std::byte* packed, const void* alpha) {
  auto* base = static_cast<std::byte*>(seg_->local_base());
  const std::size_t es = ops_.size;
  stripe_guard locks(base + acc_locks_offset(rank_));
  for_each_local_row(dist_, piece, es, [&](std::size_t off, std::size_t at, std::size_t row) {
    locks.for_each_part(off, row, [&](std::size_t o, std::size_t bytes) {
      ops_.acc(base + o, packed + at + (o - off), bytes / es, alpha);
    });
  });
}

void array_core::unpack_local(const patch& piece, const std::byte* packed) {
  auto* base = static_cast<std::byte*>(seg_->local_base());
  for_each_local_row(dist_, piece, ops_.size,
                     [&](std::size_t off, std::size_t at, std::size_t row) {
                       gaea::detail::copy_bytes(base + off, packed + at, row);
                     });
}

void array_core::pack_local(const patch& piece, std::byte* packed) const {
  const auto* base = static_cast<const std::byte*>(seg_->local_base());
  for_each_local_row(dist_, piece, ops_.size,
                     [&](std::size_t off, std::size_t at, std::size_t row) {
                       gaea::detail::copy_bytes(packed + at, base + off, row);
                     });
}

}  // namespace gaea::ga::detail
