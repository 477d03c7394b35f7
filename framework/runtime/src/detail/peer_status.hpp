#pragma once
// Internal to the runtime: the hang warning's question to other ranks, "what are you waiting
// for?", and its answer (handler runtime_status, answered by the asked rank's service worker).

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gaea/comm/types.hpp"
#include "gaea/comm/worker.hpp"
#include "gaea/progress/engine.hpp"

namespace gaea::detail {

// Sends the questions of waits that passed GAEA_HANG_WARN and keeps their buffers until the
// answers have arrived (or the runtime ends: a stopped rank may never answer).
class status_asker {
 public:
  // `name_of(rank)`: "rank R (host H)".
  explicit status_asker(std::function<std::string(int)> name_of) : name_of_(std::move(name_of)) {}
  // Asks the first ranks of info.ranks (at most max_asked) over `w`, without waiting.
  std::unique_ptr<progress::peer_query> ask(comm::worker& w, const progress::wait_info& info);

  struct query_state;  // one question's completions and answer buffers (peer_status.cpp)
  static constexpr std::size_t max_asked = 32;
  static constexpr std::size_t answer_bytes = 1024;

 private:
  std::function<std::string(int)> name_of_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<query_state>> in_flight_;
};

// The status handler's answer: `s` packed as the asker's query_state reads it.
void answer_status(const comm::am_message& msg, const progress::wait_status& s);

}  // namespace gaea::detail
