// gaea::counters::shared_counter and fetch_request: a counter on one rank, fetched and added
// through UCX atomics, the progress thread or the owner's main thread.

#include "gaea/counters/shared_counter.hpp"

#include <cstring>
#include <span>
#include <string>
#include <thread>

#include "detail/service.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/coll/agreement.hpp"
#include "gaea/coll/group.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/segment.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"
#include "gaea/runtime/detail/tied_destructor.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::counters {

using counters::detail::op_kind;
using counters::detail::request;

namespace detail {

// One counter operation in flight: its completions, the reply's landing place and who waits.
struct fetch_state final : gaea::detail::request_state {
  explicit fetch_state(runtime& r)
      : rt(r), w(r.worker()), thread(std::this_thread::get_id()), t0(gaea::monotonic_ns()) {}
  fetch_state(const fetch_state&) = delete;
  fetch_state& operator=(const fetch_state&) = delete;

  runtime& rt;
  comm::worker& w;  // the issuing thread's worker carries the operation
  std::thread::id thread;
  std::int64_t t0;
  std::string counter;    // for messages
  comm::completion done;  // atomic: the fetch; active message: the send and the reply
  std::int64_t old = 0;   // the previous value, once done
  bool completed = false;

  void check_thread(const char* what) const {
    if (std::this_thread::get_id() != thread)
      throw error("shared_counter '" + counter + "': fetch_request::" + what +
                  " called from a thread other than the one that issued the fetch_add (its "
                  "transport worker carries the operation)");
  }
  void finish() {
    completed = true;
    auto& f = stats();
    bump(f.ops);
    bump(f.op_ns, static_cast<std::uint64_t>(gaea::monotonic_ns() - t0));
    done.check();
  }
  std::int64_t wait() {
    if (!completed) {
      const trace::scoped_region region("counter.wait");
      check_thread("wait()");
      rt.progress().wait(w, done);
      finish();
    }
    return old;
  }
  // What a fetch_request asks of the operation it holds.
  bool request_finished() const noexcept override { return completed; }
  void request_wait() override { (void)wait(); }
  bool request_test() override { return test(); }
  bool test() {
    if (completed) return true;
    check_thread("test()");
    if (!rt.progress().test(w, done)) return false;
    finish();
    return true;
  }
};

}  // namespace detail

std::int64_t fetch_request::wait() {
  detail::fetch_state* const st = state();
  if (!st) throw error("fetch_request::wait() on an empty handle (no operation, no value)");
  return st->wait();
}

struct shared_counter::impl {
  std::string name;
  int owner;
  counter_mode mode;
  runtime* rt;
  std::uint64_t rt_instance;  // rt is alive while runtime::is_live(rt_instance)
  std::uint64_t id;
  std::unique_ptr<comm::segment> seg;  // 8 bytes on the owner, nothing elsewhere

  std::int64_t* local_value() const { return static_cast<std::int64_t*>(seg->local_base()); }
  bool is_owner() const { return rt->rank() == owner; }
  trace::region_args trace_args() const noexcept { return {8, owner}; }

  // Issues `r`; its previous value lands in st.old once st.done is done (at once when this
  // rank owns a progress- or owner-served counter).
  void issue(const request& r, counters::detail::fetch_state& st) {
    st.counter = name;
    if (mode == counter_mode::atomic) {
      // Every access goes through UCX, the owner's too: one mechanism per location (CPU, NIC or
      // emulated by the owner's worker).
      if (r.kind == static_cast<std::uint32_t>(op_kind::fetch_add))
        st.w.fetch_add(owner, *seg, 0, r.a, &st.old, st.done);
      else
        st.w.compare_swap(owner, *seg, 0, r.a, r.b, &st.old, st.done);
    } else if (is_owner()) {
      // Handlers apply CPU atomics to the same word, so the owner's threads may too. The main
      // thread first answers what is queued for it (it is "calling into Gaea").
      if (mode == counter_mode::owner && rt->on_owner_thread())
        counters::detail::serve_owner_queue(*rt);
      st.old = counters::detail::apply(local_value(), r);
    } else {
      if (mode == counter_mode::owner && rt->on_owner_thread())
        counters::detail::serve_owner_queue(*rt);  // this rank may own other counters
      // The request travels in the header (copied at issue); the reply lands in st.old.
      st.w.am_send(owner,
                   mode == counter_mode::progress ? counters::detail::progress_handler
                                                  : counters::detail::owner_handler,
                   std::as_bytes(std::span(&r, 1)), {}, st.done, &st.done,
                   std::as_writable_bytes(std::span(&st.old, 1)));
    }
  }

  std::int64_t run(const request& r) {
    counters::detail::fetch_state st(*rt);
    issue(r, st);
    return st.wait();
  }
};

shared_counter::shared_counter(std::string name, int owner, std::int64_t initial,
                               std::optional<counter_mode> mode) {
  runtime& rt = runtime::current();
  const counter_mode m = mode ? *mode : default_counter_mode();
  rt.require_owner_thread("shared_counter construction");
  // Each rank that names itself the owner would otherwise make a counter of its own.
  coll::agree_on(coll::world(), coll::call_record("shared_counter", name, "created")
                                    .add("owner", std::to_string(owner))
                                    .add("mode", std::string(to_string(m))));
  if (owner < 0 || owner >= rt.size())
    throw error("shared_counter '" + name + "': owner rank " + std::to_string(owner) +
                " is not in [0, " + std::to_string(rt.size()) + ")");
  counters::detail::install(rt);
  auto p = std::make_unique<impl>();
  p->name = std::move(name);
  p->owner = owner;
  p->mode = m;
  p->rt = &rt;
  p->rt_instance = rt.instance();
  p->id = counters::detail::next_counter_id();
  // Only the owner holds the 8 bytes; the others contribute an empty part.
  p->seg = std::make_unique<comm::segment>(rt.comm(), rt.rank() == owner ? sizeof(std::int64_t) : 0,
                                           "shared_counter '" + p->name + "'");
  if (rt.rank() == owner) {
    std::memcpy(p->seg->local_base(), &initial, sizeof initial);
    counters::detail::register_counter(p->id, p->local_value());
  }
  impl_ = std::move(p);
  rt.barrier();  // registered everywhere before any peer can send
}

shared_counter::~shared_counter() {
  if (!impl_) return;
  gaea::detail::tied_destructor_call(
      impl_->rt_instance,
      "gaea: destroying shared_counter '" + impl_->name + "': ", [this] { destroy(); },
      [this] { (void)impl_.release(); });  // its segment's transport is gone
}

void shared_counter::destroy() {
  impl& p = live("destroy");
  // During unwinding or after a failure the other ranks may never come: skip the barrier.
  if (p.rt->may_synchronize()) p.rt->barrier();  // every operation on it has completed everywhere
  if (p.is_owner()) counters::detail::unregister_counter(p.id);
  impl_.reset();
}

shared_counter::shared_counter(shared_counter&& o) noexcept : impl_(std::move(o.impl_)) {}

shared_counter& shared_counter::operator=(shared_counter&& o) {
  if (this != &o) {
    if (impl_) destroy();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

shared_counter::impl& shared_counter::live(const char* op) const {
  if (!impl_)
    throw error(std::string("shared_counter: ") + op +
                " on a counter that was destroyed or moved from");
  return *impl_;
}

int shared_counter::owner() const {
  return live("owner()").owner;
}
const std::string& shared_counter::name() const {
  return live("name()").name;
}
counter_mode shared_counter::mode() const {
  return live("mode()").mode;
}

std::int64_t shared_counter::fetch_add(std::int64_t n) {
  impl& p = live("fetch_add");
  const trace::scoped_region region("counter.fetch_add", [&] { return p.trace_args(); });
  if (n < 0)
    throw error("shared_counter '" + p.name + "': fetch_add(" + std::to_string(n) +
                ") — the increment must be >= 0");
  return p.run({p.id, static_cast<std::uint32_t>(op_kind::fetch_add), 0, n, 0});
}

fetch_request shared_counter::fetch_add(std::int64_t n, nonblocking_t) {
  impl& p = live("fetch_add");
  const trace::scoped_region region("counter.nbfetch_add", [&] { return p.trace_args(); });
  if (n < 0)
    throw error("shared_counter '" + p.name + "': fetch_add(" + std::to_string(n) +
                ", nonblocking) — the increment must be >= 0");
  auto st = std::make_unique<counters::detail::fetch_state>(*p.rt);
  p.issue({p.id, static_cast<std::uint32_t>(op_kind::fetch_add), 0, n, 0}, *st);
  return fetch_request(std::move(st));
}

std::int64_t shared_counter::compare_swap(std::int64_t expected, std::int64_t desired) {
  impl& p = live("compare_swap");
  const trace::scoped_region region("counter.compare_swap", [&] { return p.trace_args(); });
  return p.run({p.id, static_cast<std::uint32_t>(op_kind::compare_swap), 0, expected, desired});
}

std::int64_t shared_counter::read() {
  impl& p = live("read");
  const trace::scoped_region region("counter.read", [&] { return p.trace_args(); });
  return p.run({p.id, static_cast<std::uint32_t>(op_kind::fetch_add), 0, 0, 0});
}

void shared_counter::reset(std::int64_t value) {
  impl& p = live("reset");
  p.rt->require_owner_thread("shared_counter::reset");
  coll::agree_on(
      coll::world(),
      coll::call_record("shared_counter", p.name, "reset").add("value", std::to_string(value)));
  p.rt->barrier();  // operations issued before the call are complete
  if (p.is_owner()) {
    if (p.mode == counter_mode::atomic) {
      // Through UCX like every other access; nobody else touches it until the next barrier.
      const std::int64_t now =
          p.run({p.id, static_cast<std::uint32_t>(op_kind::fetch_add), 0, 0, 0});
      p.run({p.id, static_cast<std::uint32_t>(op_kind::compare_swap), 0, now, value});
    } else {
      std::atomic_ref<std::int64_t>(*p.local_value()).store(value, std::memory_order_release);
    }
  }
  p.rt->barrier();
}

}  // namespace gaea::counters
