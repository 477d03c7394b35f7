#pragma once
// The message layer of gaea::coll: tagged messages between group members over one active-message
// handler, matched by (group, call, tag, source) in a mailbox. A message that arrives before its
// receive is posted waits in the mailbox (one copy either way: UCX's buffer to the destination).
// Failures (mismatched calls) are recorded per (group, call) and reported to every member.

#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "detail/scratch.hpp"
#include "detail/settings.hpp"
#include "gaea/coll/estimator.hpp"
#include "gaea/comm/completion.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/types.hpp"

namespace gaea {
class runtime;
}

namespace gaea::coll::detail {

struct group_state;

// Assigned in gaea/comm/handler_ids.hpp.
inline constexpr comm::handler_id message_handler = comm::handler_ids::coll_message;

/// What a call is, as every member must agree: compared on every message received.
struct call_signature {
  std::uint8_t op = 0;    // coll::operation
  std::uint8_t algo = 0;  // coll::algorithm (resolved)
  std::uint8_t elem = 0;  // detail::elem or element size for byte collectives
  std::uint8_t rop = 0;   // reduce_op
  std::int32_t root = -1;
  std::uint64_t count = 0;  // elements (or bytes); alltoallv: 0
  bool digest = false;      // count is counts_digest() of a v-variant's counts (gather, scatter,
                            // allgather), the same on every member
  bool operator==(const call_signature&) const = default;
};
std::string describe(const call_signature& s);
/// A hash of per-member counts that every member passes alike (FNV-1a over the values).
std::uint64_t counts_digest(std::span<const std::int64_t> counts) noexcept;

struct message_key {
  std::uint64_t group = 0;
  std::uint64_t call = 0;
  std::uint32_t tag = 0;
  std::int32_t source = 0;  // member index in the group
  bool operator==(const message_key&) const = default;
};
struct message_key_hash {
  std::size_t operator()(const message_key& k) const noexcept;
};

/// A posted or early message.
struct slot {
  std::byte* dst = nullptr;  // posted buffer (null while early)
  std::size_t expected = 0;  // posted size
  bool posted = false;
  scratch early;          // data that arrived before the post (not zeroed)
  std::size_t total = 0;  // announced size (valid once a chunk arrived)
  std::size_t received = 0;
  bool announced = false;
  bool failed = false;  // mismatched: the call's failure is recorded
  call_signature sig;   // sender's
  std::atomic<bool> done{false};
};

class service {
 public:
  explicit service(runtime& rt);
  ~service();
  service(const service&) = delete;
  service& operator=(const service&) = delete;

  runtime& rt() const noexcept { return rt_; }
  std::uint64_t instance() const noexcept { return instance_; }
  const settings& cfg() const noexcept { return settings_; }
  /// Why the GAEA_COLL_* settings or the calibration file could not be used on this rank
  /// (empty when fine); world() agrees on it across ranks, so every rank fails alike.
  const std::string& setup_problem() const noexcept { return setup_problem_; }
  /// The estimator of GAEA_COLL_CALIBRATION, or null (the documented rules choose).
  const estimator* model() const noexcept { return model_.get(); }

  /// What the estimator's replay gives for one shape of call on one group, computed once: the
  /// replay walks every member's schedule, too slow to repeat on every call. Thread-safe.
  struct memo_key {
    std::uint64_t group;
    std::uint8_t op, algo;
    bool uniform;
    std::size_t bytes;
    auto operator<=>(const memo_key&) const = default;
  };
  template <class F>
  double remember(const memo_key& k, F&& compute) {
    {
      std::lock_guard lock(memo_mutex_);
      if (auto it = memo_.find(k); it != memo_.end()) return it->second;
    }
    const double v = compute();
    std::lock_guard lock(memo_mutex_);
    if (memo_.size() > 4096) memo_.clear();
    memo_.emplace(k, v);
    return v;
  }

  /// Sends `bytes` to member `peer` of `g` for call `call` under `tag`; `local` completes when
  /// `data` may be reused. Sends to oneself are delivered at once.
  void send(const group_state& g, std::uint64_t call, std::uint32_t tag, int peer,
            const call_signature& sig, const std::byte* data, std::size_t bytes,
            comm::completion& local);
  /// Posts the receive of a message from member `source`; the slot is done when the data is in
  /// `dst`. Mismatches (size, signature) are recorded as the call's failure.
  std::shared_ptr<slot> post(const group_state& g, std::uint64_t call, std::uint32_t tag,
                             int source, const call_signature& sig, std::byte* dst,
                             std::size_t bytes);
  /// Removes a completed slot.
  void release(const message_key& k);

  /// The failure recorded for (group, call), if any.
  std::optional<std::string> failure(std::uint64_t group, std::uint64_t call) const;
  /// Records `what` as the failure of (group, call) here and tells every other member. Returns
  /// the message to throw (the first recorded, which may be a peer's).
  std::string fail(const group_state& g, std::uint64_t call, const std::string& what);
  /// Makes `g`'s name and members known to the message handler (for its error messages).
  void add_group(const std::shared_ptr<const group_state>& g);

 private:
  void on_message(int source_rank, std::span<const std::byte> header,
                  std::span<const std::byte> data);
  void deliver(const message_key& k, const call_signature& sig, std::size_t total,
               std::size_t offset, std::span<const std::byte> data);
  /// Empty when the message matches what this member expects, else the error to report.
  std::string mismatch_locked(const message_key& k, const call_signature& mine,
                              std::size_t expected, const call_signature& theirs,
                              std::size_t total) const;
  void record_failure_locked(std::uint64_t group, std::uint64_t call, std::string what);

  runtime& rt_;
  std::uint64_t instance_;
  std::size_t max_chunk_;
  settings settings_;
  std::string setup_problem_;
  std::unique_ptr<estimator> model_;
  std::mutex memo_mutex_;
  std::map<memo_key, double> memo_;
  mutable std::mutex mutex_;
  std::unordered_map<message_key, std::shared_ptr<slot>, message_key_hash> slots_;
  struct call_key {
    std::uint64_t group, call;
    bool operator==(const call_key&) const = default;
  };
  struct call_key_hash {
    std::size_t operator()(const call_key& k) const noexcept {
      return std::hash<std::uint64_t>()(k.group * 0x9E3779B97F4A7C15ull ^ k.call);
    }
  };
  std::unordered_map<call_key, std::string, call_key_hash> failures_;
  std::atomic<bool> any_failure_{false};
  std::unordered_map<std::uint64_t, std::weak_ptr<const group_state>> groups_;
};

/// The live runtime's service, created collectively by world().
service& service_of(runtime& rt);

}  // namespace gaea::coll::detail
