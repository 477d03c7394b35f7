// coll::detail::execution: runs a call's schedule round by round, for blocking calls and requests.

#include "detail/execution.hpp"

#include <algorithm>
#include <cstdio>

#include "gaea/base/clock.hpp"
#include "gaea/base/error.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"

namespace gaea::coll::detail {

execution::execution(std::shared_ptr<group_state> g, std::uint64_t call, call_signature sig,
                     schedule s, std::unique_ptr<energy_session> energy)
    : g_(std::move(g)),
      call_(call),
      sig_(sig),
      s_(std::move(s)),
      energy_(std::move(energy)),
      owner_(std::this_thread::get_id()) {
  if (s_.on_end) {
    shared_ = true;
    g_->shm_pending.push_back(this);
  }
  if (trace::recording()) {
    trace_name_ = trace::intern("coll." + std::string(to_string(static_cast<operation>(sig_.op))) +
                                "." + std::string(to_string(static_cast<algorithm>(sig_.algo))));
    trace_t0_ = trace::now_ns();
    trace_begun_ = trace::regions_begun();
  }
}

namespace {
// How long an abandoned collective waits for its sends to leave (see cleanup()).
constexpr std::int64_t abandon_timeout_ns = 5'000'000'000;
}  // namespace

execution::~execution() {
  cleanup();
}

void execution::cleanup() noexcept {
  // Receives still posted point into the caller's buffers: unhook them before those go away.
  for (auto& [k, sl] : posted_)
    g_->svc->release(k);
  posted_.clear();
  if (!sent_.done()) {
    // Sends still read the caller's buffers, which go away next: they must leave first, even when
    // the job has failed (a wait that threw here let a freed stack buffer be sent as a length).
    // Bounded, since a stopped peer may never take a large message; the job is ending then.
    try {
      const progress::scoped_unchecked_waits unchecked;
      const std::int64_t deadline = gaea::monotonic_ns() + abandon_timeout_ns;
      g_->rt->progress().wait_until(
          g_->rt->worker(), [&] { return sent_.done() || gaea::monotonic_ns() > deadline; });
      if (sent_.done()) sent_.check();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gaea::coll: a send failed while abandoning a collective: %s\n",
                   e.what());
    }
  }
  if (energy_) {
    energy_->finish();
    energy_.reset();
  }
  end();
}

void execution::end() noexcept {
  if (auto fn = std::exchange(s_.on_end, nullptr)) fn(done_ && next_ == s_.rounds.size());
  if (shared_) std::erase(g_->shm_pending, this);
  shared_ = false;
}

void execution::drive_earlier() noexcept {
  for (std::size_t i = 0; i < g_->shm_pending.size() && g_->shm_pending[i] != this; ++i) {
    execution* e = g_->shm_pending[i];
    if (e->owner_ != owner_) return;  // another thread's: it advances it
    try {
      if (!e->advance(false)) return;
    } catch (const std::exception& ex) {
      e->failed_ = ex.what();
    }
    --i;  // it left the list
  }
}

void execution::start_round() {
  const round& r = s_.rounds[next_];
  if (energy_) energy_->on_round(next_);
  if (r.begin) r.begin();
  service& svc = *g_->svc;
  // Receives first, so that a message arriving during the sends lands in place.
  for (const transfer& t : r.recvs) {
    auto sl = svc.post(*g_, call_, t.tag, t.peer, sig_, t.buf, t.bytes);
    posted_.emplace_back(message_key{g_->id, call_, t.tag, t.peer}, std::move(sl));
  }
  for (const transfer& t : r.sends)
    svc.send(*g_, call_, t.tag, t.peer, sig_, t.buf, t.bytes, sent_);
  in_round_ = true;
}

bool execution::round_ready() const {
  if (!sent_.done()) return false;
  if (const auto& ready = s_.rounds[next_].ready; ready && !ready()) return false;
  for (const auto& p : posted_)
    if (!p.second->done.load(std::memory_order_acquire)) return false;
  return true;
}

void execution::check_failure() {
  if (s_.problem && !s_.problem->empty()) fail(*s_.problem);
  if (auto f = g_->svc->failure(g_->id, call_)) fail(*f);
}

void execution::fail(const std::string& what) {
  // Tell the other members (they may be waiting for this rank), unhook, restore, throw.
  std::string msg = what;
  try {
    msg = g_->svc->fail(*g_, call_, what);
  } catch (...) {  // telling the members failed: this rank still throws its own message
  }
  cleanup();
  done_ = true;
  throw error(msg);
}

bool execution::advance(bool block) {
  if (failed_) throw error(*std::exchange(failed_, std::nullopt));
  if (done_) return true;
  if (std::this_thread::get_id() != owner_)
    throw error("gaea::coll: a collective on group '" + g_->name +
                "' must be tested or waited for by the thread that started it");
  // The call's region: from its start when nothing else was recorded on this thread since (a
  // blocking call, or a request waited at once), else from this wait or test on.
  std::int64_t trace_from = 0;
  if (trace_name_) [[unlikely]]
    trace_from = trace::regions_begun() == trace_begun_ ? trace_t0_ : trace::now_ns();
  runtime& rt = *g_->rt;
  comm::worker& w = rt.worker();
  auto failed = [&] { return g_->svc->failure(g_->id, call_).has_value(); };
  while (next_ < s_.rounds.size()) {
    const round& now = s_.rounds[next_];
    if (!in_round_) {
      // A shared-memory step waits for the members' flags (no event announces them).
      if (now.can_begin && !now.can_begin()) {
        if (block) {
          const progress::scoped_wait_label label([&] { return describe_wait(); });
          rt.progress().wait_until(w, [&] {
            drive_earlier();
            return now.can_begin() || failed();
          });
        } else {
          rt.poll();
          drive_earlier();
        }
        check_failure();
        if (!now.can_begin()) return false;
      }
      start_round();
    }
    if (block) {
      const progress::scoped_wait_label label([&] { return describe_wait(); });
      rt.progress().wait_until(
          w, [&] { return round_ready() || failed(); },
          /*notified=*/!now.ready);
    } else {
      rt.poll();
    }
    check_failure();
    if (!round_ready()) return false;
    sent_.check();
    round& r = s_.rounds[next_];
    for (auto& [k, sl] : posted_)
      g_->svc->release(k);
    posted_.clear();
    for (auto& fn : r.after)
      fn();
    in_round_ = false;
    ++next_;
  }
  done_ = true;
  if (energy_) {
    energy_->finish();
    energy_.reset();
  }
  end();
  if (trace_name_) [[unlikely]]
    trace::region_until_now(trace_name_, trace_from);
  return true;
}

progress::wait_info call_wait_info(const group_state& g, const call_signature& sig,
                                   std::uint64_t call, const std::vector<int>& waited,
                                   std::string& from) {
  progress::wait_info info;
  from.clear();
  for (int m : waited) {
    const int rank = g.ranks[static_cast<std::size_t>(m)];
    from += (from.empty() ? "rank " : ", rank ") + std::to_string(rank);
    info.ranks.push_back(rank);
  }
  // The ranks it waits for first, then the other members (to tell who is elsewhere).
  const int me = g.ranks[static_cast<std::size_t>(g.me)];
  for (int r : g.ranks)
    if (r != me && std::find(info.ranks.begin(), info.ranks.end(), r) == info.ranks.end())
      info.ranks.push_back(r);
  info.what = "gaea::coll " + describe(sig) + " number " + std::to_string(call) + " on group '" +
              g.name + "'";
  return info;
}

progress::wait_info execution::describe_wait() const {
  std::vector<int> waited;
  if (next_ < s_.rounds.size())
    if (const round& r = s_.rounds[next_]; r.waiting_for) waited = r.waiting_for();
  for (const auto& [k, sl] : posted_)
    if (!sl->done.load(std::memory_order_acquire)) waited.push_back(k.source);
  std::string from;
  progress::wait_info info = call_wait_info(*g_, sig_, call_, waited, from);
  const bool shared = next_ < s_.rounds.size() && s_.rounds[next_].waiting_for;
  if (next_ < s_.rounds.size() && !in_round_ && s_.rounds[next_].can_begin && !shared)
    info.detail = "round " + std::to_string(next_) +
                  ": the group's earlier shared-memory collective to end on this rank (they "
                  "complete in the order they started: wait for the earlier request first)";
  else if (shared)
    info.detail = "round " + std::to_string(next_) + ": " +
                  (from.empty() ? std::string("nothing left (it is finishing)")
                                : "the shared-memory step of " + from);
  else
    info.detail = "round " + std::to_string(next_) + ": " +
                  (from.empty() ? std::string("its sends to be delivered")
                                : "a message from " + from + ", which has not reached it");
  return info;
}

bool execution::test() {
  return advance(false);
}

void execution::wait() {
  advance(true);
}

}  // namespace gaea::coll::detail
