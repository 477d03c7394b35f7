// Mutex sets: each rank owns the mutexes i with i % size == rank. The owner keeps holder and
// FIFO queue per mutex; requests from other ranks arrive as active messages answered by its
// progress thread (a queued lock is answered later, by the unlock that hands the mutex over, as a
// deferred reply); requests for the caller's own mutexes take the same path in place.
#include "gaea/counters/mutex_set.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gaea/base/error.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/collectives.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/handler_ids.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/detail/tied_destructor.hpp"
#include "gaea/runtime/runtime.hpp"

namespace gaea::counters {

namespace {

constexpr comm::handler_id mutex_handler = comm::handler_ids::counters_mutex;

enum class mop : std::uint32_t { lock = 1, try_lock = 2, unlock = 3 };
// What the owner answers. `holder` in the reply is the rank holding the mutex afterwards (busy,
// not_holder: the current holder, -1 when free).
enum class answer : std::int32_t {
  granted = 0,
  busy = 1,
  not_holder = 2,
  already_holder = 3,
  no_such_set = 4
};

struct wire_request {
  std::uint64_t set_id;
  std::int64_t local_index;  // index among the owner's mutexes
  std::uint64_t thread;      // the requesting thread (a hash of its id)
  std::uint32_t op;          // mop
  std::uint32_t reserved;
};
struct wire_reply {
  std::int32_t code;    // answer
  std::int32_t holder;  // see answer
};

// A queued lock: a remote rank's deferred reply, or a flag a thread of this rank waits on.
struct waiter {
  int rank;
  std::uint64_t thread;
  comm::deferred_reply token;
  std::shared_ptr<std::atomic<bool>> local;
};
struct one_mutex {
  int holder = -1;
  std::uint64_t holder_thread = 0;
  std::deque<waiter> queue;
};
// This rank's mutexes of one set.
struct owned_part {
  std::mutex m;
  std::vector<one_mutex> mutexes;
};

std::mutex g_sets_mutex;
std::unordered_map<std::uint64_t, std::shared_ptr<owned_part>> g_sets;
std::atomic<std::uint64_t> g_next_set{1};  // same sequence on every rank: sets are collective

std::shared_ptr<owned_part> find_part(std::uint64_t id) {
  std::lock_guard lock(g_sets_mutex);
  const auto it = g_sets.find(id);
  return it == g_sets.end() ? nullptr : it->second;
}

std::uint64_t this_thread_key() {
  return static_cast<std::uint64_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

// Applies one request from `w` to mutex `li` of `part`. Returns the answer, or nullopt when `w`
// was queued (a later unlock answers it: `defer()` gives a remote waiter's reply token). An
// unlock that hands the mutex to a local waiter sets `wake`.
template <class Defer>
std::optional<wire_reply> apply(runtime& rt, owned_part& part, std::int64_t li, mop op, waiter w,
                                Defer&& defer, bool& wake) {
  std::lock_guard lock(part.m);
  if (li < 0 || li >= static_cast<std::int64_t>(part.mutexes.size()))
    return wire_reply{static_cast<std::int32_t>(answer::no_such_set), -1};
  one_mutex& mx = part.mutexes[static_cast<std::size_t>(li)];
  const bool mine = mx.holder == w.rank && mx.holder_thread == w.thread;
  switch (op) {
    case mop::lock:
      if (mine) return wire_reply{static_cast<std::int32_t>(answer::already_holder), mx.holder};
      [[fallthrough]];
    case mop::try_lock:
      if (mx.holder < 0) {
        mx.holder = w.rank;
        mx.holder_thread = w.thread;
        return wire_reply{static_cast<std::int32_t>(answer::granted), w.rank};
      }
      if (op == mop::try_lock)
        return wire_reply{static_cast<std::int32_t>(answer::busy), mx.holder};
      if (!w.local) w.token = defer();
      mx.queue.push_back(std::move(w));
      return std::nullopt;
    case mop::unlock: {
      if (!mine) return wire_reply{static_cast<std::int32_t>(answer::not_holder), mx.holder};
      if (mx.queue.empty()) {
        mx.holder = -1;
        mx.holder_thread = 0;
      } else {
        waiter next = std::move(mx.queue.front());
        mx.queue.pop_front();
        mx.holder = next.rank;
        mx.holder_thread = next.thread;
        if (next.local) {
          next.local->store(true, std::memory_order_release);
          wake = true;
        } else {
          const wire_reply granted{static_cast<std::int32_t>(answer::granted), next.rank};
          rt.comm().send_deferred_reply(next.token, std::as_bytes(std::span(&granted, 1)));
        }
      }
      return wire_reply{static_cast<std::int32_t>(answer::granted), w.rank};
    }
  }
  return wire_reply{static_cast<std::int32_t>(answer::no_such_set), -1};
}

void on_request(runtime& rt, const comm::am_message& m) {
  wire_request r{};
  if (m.header.size() != sizeof r)
    throw error("mutex_set request from rank " + std::to_string(m.source) + ": " +
                std::to_string(m.header.size()) + "-byte header, expected " +
                std::to_string(sizeof r));
  std::memcpy(&r, m.header.data(), sizeof r);
  const auto op = static_cast<mop>(r.op);
  if (op != mop::lock && op != mop::try_lock && op != mop::unlock)
    throw error("mutex_set request from rank " + std::to_string(m.source) + ": unknown operation " +
                std::to_string(r.op));
  const std::shared_ptr<owned_part> part = find_part(r.set_id);
  std::optional<wire_reply> rep = wire_reply{static_cast<std::int32_t>(answer::no_such_set), -1};
  bool wake = false;
  if (part)
    rep = apply(
        rt, *part, r.local_index, op, waiter{m.source, r.thread, {}, nullptr},
        [&m] { return m.defer(); }, wake);
  if (rep) m.reply(std::as_bytes(std::span(&*rep, 1)));
  if (wake) rt.progress().notify_waiters();
}

void install(runtime& rt) {
  if (rt.comm().has_handler(mutex_handler)) return;
  rt.comm().register_handler(mutex_handler,
                             [&rt](const comm::am_message& m) { on_request(rt, m); });
}

}  // namespace

struct mutex_set::impl {
  std::string name;
  std::int64_t count;
  runtime* rt;
  std::uint64_t rt_instance;
  std::uint64_t id;
  std::shared_ptr<owned_part> part;  // this rank's mutexes

  int owner_of(std::int64_t i) const { return static_cast<int>(i % rt->size()); }
  std::int64_t local_of(std::int64_t i) const { return i / rt->size(); }

  void check_index(std::int64_t i, const char* op) const {
    if (i < 0 || i >= count)
      throw error("mutex_set '" + name + "': " + op + "(" + std::to_string(i) +
                  "): index outside [0, " + std::to_string(count) + ")");
  }

  // Sends `op` on mutex `i` to its owner (or applies it in place) and returns the answer; a
  // queued lock returns when granted.
  wire_reply request(std::int64_t i, mop op) {
    const int owner = owner_of(i);
    const std::uint64_t thread = this_thread_key();
    if (owner == rt->rank()) {
      auto flag = std::make_shared<std::atomic<bool>>(false);
      bool wake = false;
      const auto rep = apply(
          *rt, *part, local_of(i), op, waiter{owner, thread, {}, flag},
          [] { return comm::deferred_reply{}; }, wake);
      if (wake) rt->progress().notify_waiters();
      if (rep) return *rep;
      // Queued: an unlock, in place or in a handler, sets the flag and wakes this thread.
      rt->progress().wait_until(
          rt->worker(), [&] { return flag->load(std::memory_order_acquire); }, true);
      return {static_cast<std::int32_t>(answer::granted), owner};
    }
    const wire_request r{id, local_of(i), thread, static_cast<std::uint32_t>(op), 0};
    wire_reply rep{static_cast<std::int32_t>(answer::no_such_set), -1};
    comm::completion local, remote;
    rt->worker().am_send(owner, mutex_handler, std::as_bytes(std::span(&r, 1)), {}, local, &remote,
                         std::as_writable_bytes(std::span(&rep, 1)));
    rt->wait(local);
    rt->wait(remote);
    return rep;
  }

  [[noreturn]] void fail(std::int64_t i, const char* op, const wire_reply& rep) const {
    const std::string who = "mutex_set '" + name + "': " + op + "(" + std::to_string(i) +
                            ") by rank " + std::to_string(rt->rank());
    switch (static_cast<answer>(rep.code)) {
      case answer::not_holder:
        throw error(who + ", which does not hold it (" +
                    (rep.holder < 0 ? std::string("it is free")
                     : rep.holder == rt->rank()
                         ? "another thread of rank " + std::to_string(rep.holder) + " holds it"
                         : "rank " + std::to_string(rep.holder) + " holds it") +
                    "; owner rank " + std::to_string(owner_of(i)) + ")");
      case answer::already_holder:
        throw error(who + ", whose calling thread already holds it (a second lock would deadlock)");
      default:
        throw error(who + ": owner rank " + std::to_string(owner_of(i)) +
                    " does not know the set (answer " + std::to_string(rep.code) + ")");
    }
  }
};

mutex_set::mutex_set(std::string name, std::int64_t count) {
  runtime& rt = runtime::current();
  rt.require_owner_thread("mutex_set construction");
  coll::agree_on(
      coll::world(),
      coll::call_record("mutex_set", name, "created").add("count", std::to_string(count)));
  if (count < 0)
    throw error("mutex_set '" + name + "': " + std::to_string(count) +
                " mutexes requested; the count must be >= 0");
  install(rt);
  auto p = std::make_unique<impl>();
  p->name = std::move(name);
  p->count = count;
  p->rt = &rt;
  p->rt_instance = rt.instance();
  p->id = g_next_set.fetch_add(1, std::memory_order_relaxed);
  p->part = std::make_shared<owned_part>();
  const std::int64_t mine = count > rt.rank() ? (count - rt.rank() + rt.size() - 1) / rt.size() : 0;
  p->part->mutexes.resize(static_cast<std::size_t>(mine));
  {
    std::lock_guard lock(g_sets_mutex);
    g_sets[p->id] = p->part;
  }
  impl_ = std::move(p);
  rt.barrier();  // registered everywhere before any peer can send
}

mutex_set::~mutex_set() {
  if (!impl_) return;
  gaea::detail::tied_destructor_call(
      impl_->rt_instance, "gaea: destroying mutex_set: ", [this] { destroy(); },
      [this] {  // only the registry entry is ours to drop
        std::lock_guard lock(g_sets_mutex);
        g_sets.erase(impl_->id);
      });
}

mutex_set::mutex_set(mutex_set&& o) noexcept : impl_(std::move(o.impl_)) {}

mutex_set& mutex_set::operator=(mutex_set&& o) {
  if (this != &o) {
    if (impl_) destroy();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

void mutex_set::destroy() {
  impl& p = live("destroy");
  runtime& rt = *p.rt;
  const bool sync = rt.may_synchronize();  // not during unwinding or after a failure
  if (sync) {
    rt.require_owner_thread("mutex_set::destroy");
    rt.barrier();  // every rank's calls on the set have returned: nothing is in flight
  }
  std::unique_ptr<impl> gone = std::move(impl_);  // freed whatever happens below
  {
    std::lock_guard lock(g_sets_mutex);
    g_sets.erase(p.id);
  }
  if (!sync) return;
  // What is still held now stays held for ever: a program error, reported on every rank.
  std::int64_t held = 0, first = std::numeric_limits<std::int64_t>::max();
  {
    std::lock_guard lock(p.part->m);
    for (std::size_t k = 0; k < p.part->mutexes.size(); ++k) {
      const one_mutex& mx = p.part->mutexes[k];
      if (mx.holder < 0) continue;
      ++held;
      const std::int64_t global = static_cast<std::int64_t>(k) * rt.size() + rt.rank();
      first = std::min(first, global * rt.size() + mx.holder);
    }
  }
  held = coll::allreduce(coll::world(), held, coll::reduce_op::sum);
  first = coll::allreduce(coll::world(), first, coll::reduce_op::min);
  if (held > 0)
    throw error("mutex_set '" + p.name + "': destroyed while " + std::to_string(held) + " mutex" +
                (held == 1 ? " is" : "es are") + " held (mutex " +
                std::to_string(first / rt.size()) + " by rank " +
                std::to_string(first % rt.size()) + ")");
}

mutex_set::impl& mutex_set::live(const char* op) const {
  if (!impl_)
    throw error(std::string("mutex_set: ") + op + " on a set that was destroyed or moved from");
  return *impl_;
}

std::int64_t mutex_set::size() const {
  return live("size()").count;
}
const std::string& mutex_set::name() const {
  return live("name()").name;
}
int mutex_set::owner(std::int64_t i) const {
  const impl& p = live("owner()");
  p.check_index(i, "owner");
  return p.owner_of(i);
}

void mutex_set::lock(std::int64_t i) {
  impl& p = live("lock");
  p.check_index(i, "lock");
  const wire_reply rep = p.request(i, mop::lock);
  if (rep.code != static_cast<std::int32_t>(answer::granted)) p.fail(i, "lock", rep);
}

bool mutex_set::try_lock(std::int64_t i) {
  impl& p = live("try_lock");
  p.check_index(i, "try_lock");
  const wire_reply rep = p.request(i, mop::try_lock);
  if (rep.code == static_cast<std::int32_t>(answer::busy)) return false;
  if (rep.code != static_cast<std::int32_t>(answer::granted)) p.fail(i, "try_lock", rep);
  return true;
}

void mutex_set::unlock(std::int64_t i) {
  impl& p = live("unlock");
  p.check_index(i, "unlock");
  const wire_reply rep = p.request(i, mop::unlock);
  if (rep.code != static_cast<std::int32_t>(answer::granted)) p.fail(i, "unlock", rep);
}

}  // namespace gaea::counters
