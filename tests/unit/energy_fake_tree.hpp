#pragma once
// Fake sysfs/dev trees for the gaea::energy tests: a temporary root made with mkdtemp under /tmp
// and removed when the test ends. Paths are given as absolute kernel paths ("/sys/...").

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "gaea/energy/sysfs.hpp"

namespace energy_test {

class fake_root {
 public:
  fake_root() {
    char name[] = "/tmp/gaea-energy-test-XXXXXX";
    if (!::mkdtemp(name)) throw std::runtime_error("mkdtemp failed");
    root_ = name;
  }
  ~fake_root() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  fake_root(const fake_root&) = delete;
  fake_root& operator=(const fake_root&) = delete;

  const std::filesystem::path& root() const { return root_; }
  /// root + absolute path.
  std::filesystem::path at(std::string_view absolute) const {
    return gaea::energy::under(root_, absolute);
  }
  /// Creates the file (and its directories) holding `content` and a newline, as sysfs shows it.
  void write(std::string_view absolute, std::string_view content) const {
    const auto p = at(absolute);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << content << '\n';
  }
  /// First line of the file, "<unreadable>" when it cannot be read.
  std::string line(std::string_view absolute) const {
    return gaea::energy::read_line(at(absolute)).value_or("<unreadable>");
  }

 private:
  std::filesystem::path root_;
};

/// The cpufreq files of one CPU, as a driver with the given governor shows them.
struct cpufreq_files {
  std::string governor = "userspace";
  std::string available_governors = "userspace ondemand performance";
  std::string setspeed = "2000000";  // "" = no scaling_setspeed file
  std::int64_t cpuinfo_max = 2400000, cpuinfo_min = 800000;
  std::string available_frequencies = "2400000 2000000 1600000 1200000 800000";  // "" = none
  std::int64_t scaling_min = 800000, scaling_max = 2400000, cur = 2000000;
};

inline std::string cpufreq_path(int cpu, std::string_view file) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/" + std::string(file);
}

inline void add_cpufreq(const fake_root& t, int cpu, const cpufreq_files& f) {
  t.write(cpufreq_path(cpu, "scaling_governor"), f.governor);
  t.write(cpufreq_path(cpu, "scaling_available_governors"), f.available_governors);
  if (!f.setspeed.empty()) t.write(cpufreq_path(cpu, "scaling_setspeed"), f.setspeed);
  t.write(cpufreq_path(cpu, "cpuinfo_max_freq"), std::to_string(f.cpuinfo_max));
  t.write(cpufreq_path(cpu, "cpuinfo_min_freq"), std::to_string(f.cpuinfo_min));
  if (!f.available_frequencies.empty())
    t.write(cpufreq_path(cpu, "scaling_available_frequencies"), f.available_frequencies);
  t.write(cpufreq_path(cpu, "scaling_min_freq"), std::to_string(f.scaling_min));
  t.write(cpufreq_path(cpu, "scaling_max_freq"), std::to_string(f.scaling_max));
  t.write(cpufreq_path(cpu, "scaling_cur_freq"), std::to_string(f.cur));
  t.write(cpufreq_path(cpu, "cpuinfo_transition_latency"), "10000");
}

/// A fake /dev/cpu/<cpu>/msr: a regular file big enough to hold IA32_CLOCK_MODULATION (0x19A),
/// which holds `value`; every other byte is 0xEE, so that a stray write shows.
inline void add_msr(const fake_root& t, int cpu, std::uint64_t value) {
  const auto p = t.at("/dev/cpu/" + std::to_string(cpu) + "/msr");
  std::filesystem::create_directories(p.parent_path());
  std::string bytes(0x200, '\xEE');
  std::memcpy(bytes.data() + 0x19A, &value, sizeof value);
  std::ofstream(p, std::ios::binary) << bytes;
}

/// The 8 bytes at offset `reg` of the fake msr file of `cpu`.
inline std::uint64_t msr_value(const fake_root& t, int cpu, std::int64_t reg = 0x19A) {
  std::ifstream in(t.at("/dev/cpu/" + std::to_string(cpu) + "/msr"), std::ios::binary);
  in.seekg(reg);
  std::uint64_t v = 0;
  in.read(reinterpret_cast<char*>(&v), sizeof v);
  return v;
}

/// The whole fake msr file of `cpu`.
inline std::string msr_bytes(const fake_root& t, int cpu) {
  std::ifstream in(t.at("/dev/cpu/" + std::to_string(cpu) + "/msr"), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A fake msr-safe device /dev/cpu/<cpu>/msr_safe: a regular file of 0x700 bytes (every other
/// byte 0xEE) holding each (register, value) of `regs` at the register's address, as msr-safe
/// answers a pread/pwrite of 8 bytes at that offset.
inline void add_msr_safe(const fake_root& t, int cpu,
                         std::initializer_list<std::pair<std::int64_t, std::uint64_t>> regs) {
  const auto p = t.at("/dev/cpu/" + std::to_string(cpu) + "/msr_safe");
  std::filesystem::create_directories(p.parent_path());
  std::string bytes(0x700, '\xEE');
  for (const auto& [reg, value] : regs)
    std::memcpy(bytes.data() + reg, &value, sizeof value);
  std::ofstream(p, std::ios::binary) << bytes;
}

/// The 8 bytes at offset `reg` of the fake msr_safe file of `cpu`.
inline std::uint64_t msr_safe_value(const fake_root& t, int cpu, std::int64_t reg) {
  std::ifstream in(t.at("/dev/cpu/" + std::to_string(cpu) + "/msr_safe"), std::ios::binary);
  in.seekg(reg);
  std::uint64_t v = 0;
  in.read(reinterpret_cast<char*>(&v), sizeof v);
  return v;
}

/// Writes `value` at offset `reg` of the fake msr_safe file of `cpu` (what the hardware does
/// when a counter advances).
inline void set_msr_safe(const fake_root& t, int cpu, std::int64_t reg, std::uint64_t value) {
  std::fstream f(t.at("/dev/cpu/" + std::to_string(cpu) + "/msr_safe"),
                 std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(reg);
  f.write(reinterpret_cast<const char*>(&value), sizeof value);
}

/// Runs `fn` in a child process switched to uid and gid `user` (a user who is not root) and
/// returns the child's exit status (fn's result; 100 when the switch failed, 101 when fn threw).
/// -1 when this process is not root and cannot switch.
template <class F>
int run_as_user(unsigned user, F&& fn) {
  if (::geteuid() != 0) return -1;
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    if (::setgid(user) != 0 || ::setuid(user) != 0 || ::geteuid() == 0) ::_exit(100);
    int rc = 101;
    try {
      rc = fn();
    } catch (...) {  // the child must not unwind into the test's frames: exit code 101 tells it
    }
    ::_exit(rc);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/// The uid of "nobody", the second user of the non-root tests.
inline constexpr unsigned nobody_uid = 65534;

}  // namespace energy_test
