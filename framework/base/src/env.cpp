#include "gaea/base/env.hpp"

#include <cstdlib>

#include "gaea/base/error.hpp"

namespace gaea::env {

const std::vector<variable>& table() {
  static const std::vector<variable> vars = {
      {"GAEA_PROGRESS", "auto",
       "progress thread: auto|spin|adaptive|off. spin polls with `pause`; adaptive spins briefly, "
       "then micro-sleeps (1 us growing to 1 ms); auto = spin when the thread has a hardware "
       "thread of "
       "its own, adaptive when it shares a core; off = no asynchronous progress (the paper's "
       "baseline: a rank serves peers only while it is inside a Gaea call)"},
      {"GAEA_PROGRESS_BIND", "auto",
       "placement of the progress thread: auto (SMT sibling, else a spare core, else unpinned) | "
       "none"},
      {"GAEA_RKEY_PTR", "1",
       "1 = use ucp_rkey_ptr direct load/store for get/put to peers on the node when UCX allows "
       "it; 0 = "
       "always go through UCX RMA"},
      {"GAEA_MAX_TRANSFER", "1G",
       "largest single UCX transfer in bytes (K/M/G suffixes); larger transfers are split. Lower "
       "it only "
       "to test the splitting"},
      {"GAEA_VERBOSE", "0",
       "1 = rank 0 prints the set-up at start (ranks, nodes, progress mode and placement, "
       "topology) "
       "to stderr; gaea-info prints every rank's"},
  };
  return vars;
}

static const variable& lookup(std::string_view name) {
  for (const auto& v : table())
    if (v.name == name) return v;
  throw Error("gaea::env: variable '" + std::string(name) +
              "' is not documented in the environment table (framework/base/src/env.cpp)");
}

std::optional<std::string> raw(std::string_view name) {
  const variable& v = lookup(name);
  const char* s = std::getenv(std::string(v.name).c_str());
  if (!s || !*s) return std::nullopt;
  return std::string(s);
}

std::string get_string(std::string_view name) {
  auto r = raw(name);
  return r ? *r : std::string(lookup(name).default_str);
}

std::int64_t get_int(std::string_view name) {
  const std::string text = get_string(name);
  std::size_t pos = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &pos, 10);
  } catch (const std::exception&) {
    throw Error("environment variable " + std::string(name) + "='" + text +
                "' is not an integer (K/M/G suffixes allowed)");
  }
  std::int64_t mult = 1;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'k':
      case 'K':
        mult = 1LL << 10;
        break;
      case 'm':
      case 'M':
        mult = 1LL << 20;
        break;
      case 'g':
      case 'G':
        mult = 1LL << 30;
        break;
      default:
        throw Error("environment variable " + std::string(name) + "='" + text +
                    "' has an unknown suffix (use K, M or G)");
    }
    if (pos + 1 != text.size())
      throw Error("environment variable " + std::string(name) + "='" + text +
                  "' has trailing text");
  }
  return value * mult;
}

std::string get_choice(std::string_view name, const std::vector<std::string_view>& choices) {
  const std::string text = get_string(name);
  for (auto c : choices)
    if (c == text) return text;
  std::string list;
  for (auto c : choices)
    list += (list.empty() ? "" : "|") + std::string(c);
  throw Error("environment variable " + std::string(name) + "='" + text + "' must be one of " +
              list);
}

}  // namespace gaea::env
