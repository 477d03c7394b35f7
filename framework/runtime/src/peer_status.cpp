// The hang warning's question to other ranks ("what are you waiting for?") and its answer.

#include "detail/peer_status.hpp"

#include <algorithm>
#include <cstring>
#include <span>

#include "gaea/comm/completion.hpp"
#include "gaea/comm/handler_ids.hpp"

namespace gaea::detail {

struct status_asker::query_state {
  std::vector<int> ranks;
  std::size_t of = 0;  // ranks the wait named (some may not have been asked)
  comm::completion local;
  std::unique_ptr<comm::completion[]> answered;  // per asked rank
  std::vector<bool> sent;
  std::vector<char> answers;  // answer_bytes per asked rank: what '\0' text '\0'
  bool done() const {
    if (!local.done()) return false;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (sent[i] && !answered[i].done()) return false;
    return true;
  }
};

namespace {

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : sep) + p;
  return out;
}

class query final : public progress::peer_query {
 public:
  query(std::shared_ptr<status_asker::query_state> st,
        const std::function<std::string(int)>& name_of)
      : st_(std::move(st)), name_of_(name_of) {}
  bool answered() const override { return st_->done(); }
  std::string report(const progress::wait_info& mine) override {
    const status_asker::query_state& s = *st_;
    std::vector<std::string> elsewhere, silent;
    std::vector<int> same;
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
      const int r = s.ranks[i];
      if (!s.sent[i] || !s.answered[i].done() || s.answered[i].failed()) {
        silent.push_back(name_of_(r));
        continue;
      }
      const char* a = s.answers.data() + i * status_asker::answer_bytes;
      const std::string what(a);
      const std::string text(a + what.size() + 1);
      if (!mine.what.empty() && what == mine.what)
        same.push_back(r);
      else
        elsewhere.push_back(name_of_(r) + ": " + text);
    }
    std::vector<std::string> parts;
    if (!elsewhere.empty()) parts.push_back(join(elsewhere, "; "));
    if (!silent.empty())
      parts.push_back("no answer within 1 s from " + join(silent, ", ") +
                      " (stopped, lost, or busy outside Gaea without a progress thread)");
    if (!same.empty()) {
      std::sort(same.begin(), same.end());
      std::vector<std::string> numbers;
      for (int r : same)
        numbers.push_back(std::to_string(r));
      parts.push_back(std::string(same.size() == 1 ? "rank " : "ranks ") + join(numbers, ", ") +
                      " in the same wait");
    }
    if (s.of > s.ranks.size())
      parts.push_back("(asked " + std::to_string(s.ranks.size()) + " of " + std::to_string(s.of) +
                      " ranks)");
    return join(parts, "; ");
  }

 private:
  std::shared_ptr<status_asker::query_state> st_;
  const std::function<std::string(int)>& name_of_;
};

}  // namespace

std::unique_ptr<progress::peer_query> status_asker::ask(comm::worker& w,
                                                        const progress::wait_info& info) {
  auto st = std::make_shared<query_state>();
  for (int r : info.ranks)
    if (st->ranks.size() < max_asked &&
        std::find(st->ranks.begin(), st->ranks.end(), r) == st->ranks.end())
      st->ranks.push_back(r);
  st->of = info.ranks.size();
  const std::size_t n = st->ranks.size();
  st->answered = std::make_unique<comm::completion[]>(n);
  st->sent.assign(n, false);
  st->answers.assign(n * answer_bytes, '\0');
  {
    // The buffers stay until UCX has written into them: kept here, dropped once answered.
    std::lock_guard lock(mutex_);
    std::erase_if(in_flight_, [](const auto& q) { return q->done(); });
    in_flight_.push_back(st);
  }
  for (std::size_t i = 0; i < n; ++i)
    try {
      w.am_send(
          st->ranks[i], comm::handler_ids::runtime_status, {}, {}, st->local, &st->answered[i],
          std::span<std::byte>(reinterpret_cast<std::byte*>(st->answers.data()) + i * answer_bytes,
                               answer_bytes));
      st->sent[i] = true;
    } catch (const std::exception&) {  // a rank out of reach: reported as not answering
    }
  return std::make_unique<query>(std::move(st), name_of_);
}

void answer_status(const comm::am_message& msg, const progress::wait_status& s) {
  if (msg.reply_capacity < 2) return;
  // what '\0' text '\0', each cut to fit (the asker's buffer is zeroed).
  std::string out = s.what.substr(0, msg.reply_capacity / 2 - 1);
  out.push_back('\0');
  out += s.text.substr(0, msg.reply_capacity - out.size() - 1);
  out.push_back('\0');
  msg.reply(std::as_bytes(std::span<const char>(out.data(), out.size())));
}

}  // namespace gaea::detail
