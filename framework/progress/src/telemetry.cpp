// Per-thread wait telemetry: time per wait state, frequency, totals, and the bounded time series.

#include "gaea/progress/telemetry.hpp"

#include "gaea/base/clock.hpp"

namespace gaea::progress {

telemetry_totals& telemetry_totals::operator+=(const telemetry_totals& o) noexcept {
  for (std::size_t i = 0; i < wait_states; ++i) {
    wall_ns[i] += o.wall_ns[i];
    cpu_ns[i] += o.cpu_ns[i];
  }
  waits += o.waits;
  wakeups += o.wakeups;
  event_wakeups += o.event_wakeups;
  blocks += o.blocks;
  mode_switches += o.mode_switches;
  dvfs_lowered += o.dvfs_lowered;
  dvfs_raised += o.dvfs_raised;
  low_freq_cpu_ns += o.low_freq_cpu_ns;
  penalty_ns += o.penalty_ns;
  return *this;
}

thread_telemetry::thread_telemetry(std::uint8_t id, std::size_t trace_capacity)
    : id_(id), since_ns_(monotonic_ns()), trace_capacity_(trace_capacity) {
  since_shared_ns_.store(since_ns_, std::memory_order_relaxed);
}

void thread_telemetry::enter(wait_state s, std::int64_t now_ns, std::int64_t cpu_ns) noexcept {
  const auto i = static_cast<std::size_t>(state_);
  const std::int64_t wall = now_ns - since_ns_;
  // CPU time of the interval: measured when both ends were read, else wall time for the states
  // that burn the CPU (run, spin) and nothing for the ones that do not (sleep, block).
  std::int64_t cpu = 0;
  if (cpu_ns >= 0 && since_cpu_ns_ >= 0)
    cpu = cpu_ns - since_cpu_ns_;
  else if (state_ == wait_state::run || state_ == wait_state::spin)
    cpu = wall;
  add(wall_ns_[i], wall);
  add(cpu_ns_[i], cpu);
  if (khz_ != 0) add(low_freq_cpu_ns_, cpu);
  state_ = s;
  since_ns_ = now_ns;
  since_cpu_ns_ = cpu_ns;
  since_shared_ns_.store(now_ns, std::memory_order_relaxed);
  state_shared_.store(static_cast<std::uint8_t>(s), std::memory_order_relaxed);
  if (tracing_) record(now_ns);
}

void thread_telemetry::set_khz(std::int64_t khz, std::int64_t now_ns) noexcept {
  khz_ = khz;
  if (tracing_) record(now_ns);
}

void thread_telemetry::record(std::int64_t now_ns) {
  std::lock_guard lock(trace_mutex_);
  if (trace_.size() >= trace_capacity_) {
    ++trace_dropped_;
    return;
  }
  trace_.push_back({now_ns, khz_, static_cast<std::uint8_t>(state_), id_, trace_thread_});
}

void thread_telemetry::add_to(telemetry_totals& t, std::int64_t now_ns) const noexcept {
  for (std::size_t i = 0; i < wait_states; ++i) {
    t.wall_ns[i] += wall_ns_[i].load(std::memory_order_relaxed);
    t.cpu_ns[i] += cpu_ns_[i].load(std::memory_order_relaxed);
  }
  // The open interval: charged by wall time (its CPU clock belongs to another thread).
  const auto open = state_shared_.load(std::memory_order_relaxed);
  const std::int64_t open_ns = now_ns - since_shared_ns_.load(std::memory_order_relaxed);
  if (open_ns > 0) {
    t.wall_ns[open] += open_ns;
    if (open <= static_cast<std::uint8_t>(wait_state::spin)) t.cpu_ns[open] += open_ns;
  }
  t.waits += waits_.load(std::memory_order_relaxed);
  t.wakeups += wakeups_.load(std::memory_order_relaxed);
  t.event_wakeups += event_wakeups_.load(std::memory_order_relaxed);
  t.blocks += blocks_.load(std::memory_order_relaxed);
  t.mode_switches += mode_switches_.load(std::memory_order_relaxed);
  t.dvfs_lowered += dvfs_lowered_.load(std::memory_order_relaxed);
  t.dvfs_raised += dvfs_raised_.load(std::memory_order_relaxed);
  t.low_freq_cpu_ns += low_freq_cpu_ns_.load(std::memory_order_relaxed);
  t.penalty_ns += penalty_ns_.load(std::memory_order_relaxed);
}

std::vector<trace_sample> thread_telemetry::trace(std::uint64_t* dropped) const {
  std::lock_guard lock(trace_mutex_);
  if (dropped) *dropped = trace_dropped_;
  return trace_;
}

}  // namespace gaea::progress
