#pragma once
/// \file
/// Start-up calibration of the costs the auto policy trades against each other, measured on this
/// machine rather than assumed: how late a thread blocked in epoll wakes after being signalled,
/// and how much longer than asked a micro-sleep lasts.

#include <cstdint>
#include <string>

namespace gaea::progress {

/// Measured costs of a wake-up and a micro-sleep on this machine (see calibrate()).
struct calibration {
  std::int64_t wake_ns = 50000;  ///< median delay from signalling an eventfd to the blocked
                                 ///< thread running again
  std::int64_t sleep_ns =
      60000;                     ///< median duration of a 1 us clock_nanosleep (overshoot included)
  std::int64_t dvfs_ns = 0;      ///< cost of one frequency transition (from the actuator; 0 = none)
  bool measured = false;         ///< false: defaults, because measuring failed
  std::string describe() const;  ///< "wake-up 32 us, micro-sleep 58 us, DVFS 10 us (measured)"
};

/// Measures wake-up latency and micro-sleep cost (medians of `samples` tries, a few ms in all).
/// Never throws: on failure returns the defaults with measured = false.
calibration calibrate(int samples = 15) noexcept;

}  // namespace gaea::progress
