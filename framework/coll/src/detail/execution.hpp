#pragma once
// Runs a schedule: issues a round's sends and posts its receives, waits (serving peers) until
// they are done, runs the round's local work, and goes on. The same code serves blocking calls
// (wait) and requests (test).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "detail/group_state.hpp"
#include "detail/schedule.hpp"
#include "detail/service.hpp"
#include "gaea/base/detail/request_handle.hpp"
#include "gaea/comm/completion.hpp"
#include "gaea/progress/engine.hpp"

namespace gaea::coll::detail {

/// Per-round hook of the energy strategy (see energy.hpp); null when the strategy is off.
class energy_session {
 public:
  virtual ~energy_session() = default;
  /// Before round `i` of the schedule starts.
  virtual void on_round(std::size_t i) = 0;
  /// At the end of the call (also on errors): put everything back.
  virtual void finish() noexcept = 0;
};

/// What a member of `g` waiting in call `call` waits for, for the hang warning and watchdog:
/// `what` names the call; `ranks` holds the ranks of `waited` (members) first, then the other
/// members; `from` becomes "rank a, rank b" of `waited` (empty: none). The caller words `detail`.
progress::wait_info call_wait_info(const group_state& g, const call_signature& sig,
                                   std::uint64_t call, const std::vector<int>& waited,
                                   std::string& from);

class execution final : public gaea::detail::request_state {
 public:
  execution(std::shared_ptr<group_state> g, std::uint64_t call, call_signature sig, schedule s,
            std::unique_ptr<energy_session> energy);
  ~execution() override;
  execution(const execution&) = delete;
  execution& operator=(const execution&) = delete;

  /// Advances without blocking; true when complete. Throws gaea::error on failure.
  bool test();
  /// Blocks until complete. Throws gaea::error on failure.
  void wait();
  bool done() const noexcept { return done_ && !failed_; }
  // What a coll::request asks of the collective it holds.
  bool request_finished() const noexcept override { return done(); }
  void request_wait() override { wait(); }
  bool request_test() override { return test(); }

 private:
  bool advance(bool block);
  void start_round();
  bool round_ready() const;
  void check_failure();
  progress::wait_info describe_wait() const;  // for the hang warning and watchdog
  [[noreturn]] void fail(const std::string& what);
  void cleanup() noexcept;
  void end() noexcept;  // the schedule's on_end, once
  // Advances the group's earlier shared-memory calls started by this thread (this one waits for
  // their turn); an error of theirs is kept for their own wait.
  void drive_earlier() noexcept;

  std::shared_ptr<group_state> g_;
  std::uint64_t call_;
  call_signature sig_;
  schedule s_;
  std::unique_ptr<energy_session> energy_;
  std::thread::id owner_;
  // GAEA_TRACE: the call's region name ("coll.<operation>.<algorithm>", null when not
  // recording), its start and the thread's count of regions begun at the start.
  const char* trace_name_ = nullptr;
  std::int64_t trace_t0_ = 0;
  std::uint64_t trace_begun_ = 0;
  std::size_t next_ = 0;
  bool in_round_ = false;
  bool done_ = false;
  bool shared_ = false;                // a shared-memory call (in group_state::shm_pending)
  std::optional<std::string> failed_;  // an error found while another call drove this one
  comm::completion sent_;
  std::vector<std::pair<message_key, std::shared_ptr<slot>>> posted_;
};

}  // namespace gaea::coll::detail
