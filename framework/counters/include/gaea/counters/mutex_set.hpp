#pragma once
/// \file
/// gaea::counters::mutex_set — a collective set of mutexes spread over the ranks (Global Arrays'
/// GA_Create_mutexes / GA_Lock / GA_Unlock), served by each owner's progress thread.

#include <cstdint>
#include <memory>
#include <string>

namespace gaea::counters {

/// `count` mutexes; mutex i lives on rank i % size (cyclic, so consecutive mutexes are served by
/// different ranks). Each owner keeps, per mutex, its holder and a FIFO queue of waiters, and
/// its progress thread answers lock, try_lock and unlock requests in active messages (handler
/// comm::handler_ids::counters_mutex); a mutex owned by the calling rank is served in place,
/// under the same rules. Locks are granted in the order the owner receives the requests (fair:
/// no waiter is overtaken).
///
/// A mutex is held by one thread of one rank: that thread must unlock it. lock() waits by the
/// progress mode (the thread may block in interrupt mode) while its rank keeps serving peers.
///
/// Collective: the constructor, destroy() and the destructor (every rank, same order). lock,
/// try_lock and unlock are one-sided, from any thread.
/// Errors (gaea::error naming the set, the index and the ranks): an index outside [0, size());
/// unlock by a rank or thread that does not hold the mutex; lock of a mutex the calling thread
/// already holds (it would deadlock); any call after destroy() or a move; destroy() while some
/// mutex is still held or awaited (on every rank alike; the set is freed anyway).
class mutex_set {
 public:
  /// Collective. `count` >= 0 (gaea::error otherwise, on every rank, before any communication).
  /// Throws gaea::error when the runtime is not initialized or from another thread than its
  /// owner.
  mutex_set(std::string name, std::int64_t count);
  /// Collective: destroy() if still held (errors are reported on stderr).
  ~mutex_set();
  /// Takes over the source's set (local, no communication); the source is left invalid.
  mutex_set(mutex_set&&) noexcept;
  /// Collective when `*this` holds a set (it is destroyed first).
  mutex_set& operator=(mutex_set&&);

  /// Blocks until the calling thread holds mutex `i`.
  void lock(std::int64_t i);
  /// Takes mutex `i` if it is free (and nobody waits for it); true when taken. Never waits for
  /// the holder (one round trip to the owner).
  bool try_lock(std::int64_t i);
  /// Releases mutex `i`, which the calling thread must hold; the next waiter, if any, gets it.
  /// Returns when the owner has recorded it (one round trip).
  void unlock(std::int64_t i);
  /// Collective: synchronises, checks that no mutex is held or awaited, frees the set; later
  /// calls throw gaea::error. Owner thread of the runtime only.
  void destroy();

  /// False after destroy() or a move.
  bool valid() const noexcept { return impl_ != nullptr; }
  /// Number of mutexes; gaea::error after destroy() or a move.
  std::int64_t size() const;
  /// The name given at construction; gaea::error after destroy() or a move.
  const std::string& name() const;
  /// The rank that serves mutex `i` (i % number of ranks); local. gaea::error for an index outside
  /// [0, size()) or after destroy() or a move.
  int owner(std::int64_t i) const;

 private:
  struct impl;
  impl& live(const char* op) const;
  std::unique_ptr<impl> impl_;
};

}  // namespace gaea::counters
