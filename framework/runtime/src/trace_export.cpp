// GAEA_TRACE as Chrome trace JSON or OTF2 at finalize: each rank turns what it recorded (the
// recorder's regions and counters, the progress telemetry's wait-state samples) into one
// trace::rank_trace, rank 0 gathers them and writes the file (serially; OTF2 through its serial
// collective callbacks). Wait states become regions "wait.spin", "wait.sleep" and "wait.block"
// ("run" is the absence of a wait), the frequency and the modelled power counters
// "frequency_khz" and "power_w" per thread.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "detail/report.hpp"
#include "detail/runtime_state.hpp"
#include "gaea/base/clock.hpp"
#include "gaea/base/version.hpp"
#include "gaea/comm/context.hpp"
#include "gaea/comm/detail/bootstrap.hpp"
#include "gaea/runtime/communicator.hpp"
#include "gaea/runtime/runtime.hpp"
#include "gaea/trace/recorder.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea {

namespace {
// The wait-state samples of one thread (in time order) as regions and counters of `r`.
void add_wait_states(trace::rank_trace& r, std::uint32_t thread,
                     const std::vector<progress::trace_sample>& s, std::int64_t end_ns,
                     const energy::model_params& model) {
  // The state begun by sample `from`, up to `until`, as a region ("run" is no region).
  auto add_state = [&](const progress::trace_sample& from, std::int64_t until) {
    const auto state = static_cast<progress::wait_state>(from.state);
    if (state == progress::wait_state::run) return;
    r.regions.push_back({thread, r.name_id("wait." + std::string(progress::to_string(state))),
                         from.t_ns, until, -1, -1});
  };
  std::int64_t last_khz = -1;
  double last_power = -1;
  std::size_t open = 0;  // the sample that began the current state
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && s[i].state != s[open].state) {
      add_state(s[open], s[i].t_ns);
      open = i;
    }
    const detail::sample_power p = detail::modelled_power(model, s[i]);
    if (p.khz != last_khz)
      r.counters.push_back(
          {thread, r.name_id("frequency_khz"), s[i].t_ns, static_cast<double>(p.khz)});
    if (p.power_w != last_power)
      r.counters.push_back({thread, r.name_id("power_w"), s[i].t_ns, p.power_w});
    last_khz = p.khz;
    last_power = p.power_w;
  }
  if (!s.empty() && end_ns > s[open].t_ns) add_state(s[open], end_ns);
}
}  // namespace

std::string runtime::write_event_trace() {
  const auto wait_request = [this](MPI_Request& req) { st_->wait_mpi(req); };
  // This rank's part: the recorder's threads, events and drops.
  trace::rank_trace mine;
  mine.sync_ns = st_->report_start_ns;
  mine.host = comm_->host(rank_);
  const std::int64_t end_ns = gaea::monotonic_ns();
  for (trace::thread_record& t : trace::collect()) {
    if (t.index >= mine.threads.size()) mine.threads.resize(t.index + 1);
    mine.threads[t.index] = {t.name, t.dropped};
    for (const trace::event& e : t.events) {
      const std::uint32_t name = mine.name_id(e.name ? e.name : "?");
      if (e.kind == trace::event::region)
        mine.regions.push_back({t.index, name, e.t0_ns, e.t1_ns, e.bytes, e.peer});
      else
        mine.counters.push_back({t.index, name, e.t0_ns, e.value});
    }
  }
  trace::stop();
  std::uint64_t dropped_samples = 0;
  const std::vector<progress::trace_sample> samples = progress_->trace(&dropped_samples);
  mine.dropped_wait_samples = dropped_samples;
  std::map<std::uint32_t, std::vector<progress::trace_sample>> by_thread;
  for (const auto& s : samples)
    by_thread[s.trace_thread].push_back(s);
  for (auto& [thread, list] : by_thread) {
    if (thread >= mine.threads.size()) {
      const std::size_t from = mine.threads.size();
      mine.threads.resize(thread + 1);
      for (std::size_t i = from; i < mine.threads.size(); ++i)
        mine.threads[i].name = "thread " + std::to_string(i);
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.t_ns < b.t_ns; });
    add_wait_states(mine, thread, list, end_ns, st_->energy->model);
  }
  const std::vector<std::byte> bytes = trace::encode(mine);
  // Rank 0 writes: only it receives the others' parts.
  const auto all = comm::detail::gatherv(runtime_communicator(), bytes, 0, wait_request);
  if (rank_ != 0) return {};
  try {
    std::vector<trace::rank_trace> ranks;
    ranks.reserve(all.size());
    for (const auto& part : all)
      ranks.push_back(trace::decode(part));
    trace::align(ranks);
    std::uint64_t dropped = 0, dropped_wait = 0;
    for (auto& r : ranks) {
      trace::nest(r.regions);
      std::stable_sort(r.counters.begin(), r.counters.end(), [](const auto& a, const auto& b) {
        return a.thread != b.thread ? a.thread < b.thread : a.t_ns < b.t_ns;
      });
      dropped += r.dropped_events();
      dropped_wait += r.dropped_wait_samples;
    }
    const trace::job_info info{std::string("Gaea ") + version_string, st_->cfg.trace_events};
    if (trace::format_of(st_->cfg.trace) == trace::format::otf2)
      trace::write_otf2(st_->cfg.trace, ranks, info);
    else
      trace::write_chrome_json(st_->cfg.trace, ranks, info);
    if (dropped + dropped_wait > 0)
      std::fprintf(stderr,
                   "gaea: GAEA_TRACE: %llu events and %llu wait-state samples were dropped (each "
                   "thread keeps at most GAEA_TRACE_EVENTS=%llu of each); the trace holds the "
                   "earlier ones\n",
                   static_cast<unsigned long long>(dropped),
                   static_cast<unsigned long long>(dropped_wait),
                   static_cast<unsigned long long>(st_->cfg.trace_events));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace gaea
