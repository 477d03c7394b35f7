// The worker's cache of unpacked remote keys: LFU with a bounded size, [PGAS-BGQ eq. 5-6].
//
// Every segment keeps every member's packed key (tens of bytes); a worker unpacks one (a UCX
// object of a few hundred bytes, per endpoint) on first use and keeps at most
// cfg().rkey_cache of them. A miss beyond that evicts the least frequently used key; its next
// use unpacks the packed copy again. Keys with a direct pointer (this rank's own memory, or a
// same-node peer's mapped with ucp_rkey_ptr) are pinned: direct_base() hands their pointers
// out for the segment's lifetime, and there are at most ranks-per-node of them per segment.
//
// UCX requires a key to outlive every operation using it (ucp_rkey_destroy: "after all
// outstanding operations which are using it are flushed"), and an operation still pending
// inside UCX may hold it. So an evicted key is not destroyed at once: it waits in
// retired_keys_, and when as many are waiting as the cache holds (at most 64), one blocking
// flush of this worker completes every operation issued so far and destroys them all. The flush
// costs a round trip per batch, paid only by jobs whose working set exceeds the cache.

#include <algorithm>
#include <limits>

#include "detail/access.hpp"
#include "detail/ucx.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"

namespace gaea::comm {

const worker::remote_key& worker::key(int target, const segment& seg) {
  // Segments destroyed since the last look: drop their keys here, on the owning thread (another
  // thread must never touch this worker's cache).
  if (const std::uint64_t e = detail::access::retired_epoch(ctx_); e != seen_epoch_) {
    for (std::uint64_t id : detail::access::retired_since(ctx_, seen_epoch_))
      forget_segment(id);
    seen_epoch_ = e;
  }
  const std::uint64_t slot =
      seg.id() * static_cast<std::uint64_t>(ctx_.size()) + static_cast<std::uint64_t>(target);
  if (auto it = keys_.find(slot); it != keys_.end()) {
    ++it->second.uses;
    stats_.key_hit();
    return it->second;
  }
  return unpack_key(target, seg, slot);
}

const worker::remote_key& worker::unpack_key(int target, const segment& seg, std::uint64_t slot) {
  stats_.key_miss();
  remote_key k;
  k.base = seg.remote_base(target);
  k.segment = seg.id();
  k.uses = 1;
  // No packed key: `target` could not register its part; the entry (no rkey, pinned) sends
  // operations to the active-message fall-back.
  if (seg.packed_rkey(target).empty()) {
    if (target == ctx_.rank()) k.direct = static_cast<std::byte*>(seg.local_base());
    return keys_.emplace(slot, k).first->second;
  }
  detail::check(
      ucp_ep_rkey_unpack(endpoint(target), seg.packed_rkey(target).data(), &k.rkey),
      "ucp_ep_rkey_unpack for segment '" + seg.name() + "' of rank " + std::to_string(target));
  if (target == ctx_.rank()) {
    k.direct = static_cast<std::byte*>(seg.local_base());
  } else if (ctx_.cfg().use_rkey_ptr) {
    void* p = nullptr;
    if (ucp_rkey_ptr(k.rkey, k.base, &p) == UCS_OK) k.direct = static_cast<std::byte*>(p);
  }
  if (!k.direct) {
    if (evictable_ >= ctx_.cfg().rkey_cache) evict_one();
    ++evictable_;
    k.uses = key_age_ + 1;
  }
  return keys_.emplace(slot, k).first->second;
}

void worker::evict_one() {
  // LFU with dynamic aging: the victim is the least used key, and a new key starts at the
  // victim's count plus one (unpack_key), so that keys used much long ago do not stay forever.
  // O(cache size) per eviction, next to an unpack's cost.
  auto victim = keys_.end();
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (auto it = keys_.begin(); it != keys_.end(); ++it)
    if (!it->second.pinned() && it->second.uses < least) {
      least = it->second.uses;
      victim = it;
    }
  if (victim == keys_.end()) return;
  key_age_ = least;
  retired_keys_.push_back(victim->second.rkey);
  keys_.erase(victim);
  --evictable_;
  stats_.key_eviction();
  if (retired_keys_.size() >= std::min<std::size_t>(ctx_.cfg().rkey_cache, 64))
    destroy_retired_keys();
}

void worker::destroy_retired_keys() {
  if (retired_keys_.empty()) return;
  ucp_request_param_t p{};
  ucs_status_ptr_t req = ucp_worker_flush_nbx(worker_, &p);
  if (UCS_PTR_IS_ERR(req))
    detail::check(UCS_PTR_STATUS(req), "ucp_worker_flush before destroying evicted remote keys");
  if (req != nullptr) {
    while (ucp_request_check_status(req) == UCS_INPROGRESS) {
      ucp_worker_progress(worker_);
      ctx_.poll_hook();
    }
    const ucs_status_t st = ucp_request_check_status(req);
    ucp_request_free(req);
    detail::check(st, "ucp_worker_flush before destroying evicted remote keys");
  }
  for (ucp_rkey* r : retired_keys_)
    ucp_rkey_destroy(r);
  retired_keys_.clear();
}

void worker::forget_segment(std::uint64_t id) {
  // The segment was destroyed after a barrier that follows its last access: no operation on
  // its keys is outstanding.
  for (auto it = keys_.begin(); it != keys_.end();) {
    if (it->second.segment != id) {
      ++it;
      continue;
    }
    if (!it->second.pinned()) --evictable_;
    if (it->second.rkey) ucp_rkey_destroy(it->second.rkey);
    it = keys_.erase(it);
  }
}

}  // namespace gaea::comm
