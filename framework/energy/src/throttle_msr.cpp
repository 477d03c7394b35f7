// MSR throttle ("msr-clockmod", or "msr-safe-clockmod" through msr-safe's allow-listed device):
// levels T0..T7 through IA32_CLOCK_MODULATION where /dev/cpu/N/msr (else /dev/cpu/N/msr_safe)
// opens read-write. The originals are saved (pre-formatted, fds kept open) in a restore plan, so
// that exit and fatal signals put them back too.

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "detail/backends.hpp"
#include "detail/cpu_info.hpp"
#include "detail/msr.hpp"
#include "detail/msr_allowlist.hpp"
#include "detail/saved_files.hpp"
#include "detail/throttle_base.hpp"

namespace gaea::energy::detail {
namespace {

std::vector<int> levels_of(const std::vector<open_msr>& regs) {
  std::vector<int> out;
  out.reserve(regs.size());
  for (const open_msr& r : regs)
    out.push_back(clock_modulation_level(r.original));
  return out;
}

class msr_throttle final : public throttle_base {
 public:
  /// `regs[i]` is the open register of cpus[i].
  msr_throttle(std::vector<int> cpus, const std::vector<open_msr>& regs, std::size_t capacity,
               msr_device dev)
      : throttle_base(std::move(cpus), levels_of(regs), capacity), files_(regs.size()), dev_(dev) {}
  ~msr_throttle() override { restore(); }

  /// Keeps the register's fd (for slot `fd_.size()`) and saves its original for restore.
  bool add(open_msr reg) {
    char bytes[sizeof reg.original];
    std::memcpy(bytes, &reg.original, sizeof bytes);
    const int fd = files_.adopt(std::move(reg.fd), ia32_clock_modulation,
                                std::string_view(bytes, sizeof bytes));
    if (fd < 0) return false;
    fd_.push_back(fd);
    original_.push_back(reg.original);
    return true;
  }
  void set_probe_cost(std::int64_t ns) noexcept { set_cost_estimate(ns, 0); }

  std::string_view name() const noexcept override {
    return dev_ == msr_device::msr_safe ? "msr-safe-clockmod" : "msr-clockmod";
  }
  std::string refusal() const override {
    std::lock_guard lock(mutex_);
    return refusal_;
  }
  bool active() const noexcept override { return true; }
  bool hardware() const noexcept override { return true; }

 protected:
  bool write_level(std::size_t slot, int level) override {
    files_.plan().arm();
    if (write_msr(fd_[slot], ia32_clock_modulation, clock_modulation_value(original_[slot], level)))
      return true;
    // msr-safe answers a write its allow-list forbids with EPERM (the msr driver with EIO): say
    // so once and write no more, rather than pay a refused system call at every request.
    if (refusal_.empty())
      refusal_ = std::string(name()) + ": a write of " + msr_hex(ia32_clock_modulation) +
                 " on CPU " + std::to_string(cpus()[slot]) + " was refused (" + error_text(errno) +
                 "); throttling stopped, not retried";
    return false;
  }
  std::int64_t write_originals() noexcept override {
    const std::int64_t t0 = now_ns();
    files_.plan().restore_now();
    return now_ns() - t0;
  }
  bool writable() const noexcept override { return !files_.plan().retired() && refusal_.empty(); }

 private:
  saved_files files_;
  std::vector<int> fd_;  // by slot, owned by files_
  std::vector<std::uint64_t> original_;
  msr_device dev_;
  std::string refusal_;  // guarded by mutex_
};

// Every CPU of cfg through one device, or no throttle and why.
throttle_choice try_device(const throttle_config& cfg, msr_device dev, const std::string& note) {
  std::vector<open_msr> regs;
  regs.reserve(cfg.cpus.size());
  std::int64_t probe_ns = 0;
  for (int cpu : cfg.cpus) {
    std::string why;
    std::optional<open_msr> reg = open_msr_rw(cfg.root, cpu, ia32_clock_modulation, why, dev);
    if (!reg) return {nullptr, std::move(why)};
    if (regs.empty()) probe_ns = reg->probe_ns;
    regs.push_back(std::move(*reg));
  }
  auto thr = std::make_unique<msr_throttle>(cfg.cpus, regs, cfg.transition_capacity, dev);
  for (open_msr& r : regs)
    if (!thr->add(std::move(r))) return {nullptr, "no MSR access (internal: restore table full)"};
  thr->set_probe_cost(probe_ns);
  std::string reason = std::string(thr->name()) + " throttle on CPUs " + format_id_list(cfg.cpus) +
                       " (IA32_CLOCK_MODULATION, T0..T7 in 12.5% duty steps; originals restored "
                       "at exit" +
                       note + ")";
  return {std::move(thr), std::move(reason)};
}

}  // namespace

throttle_choice try_msr_throttle(const throttle_config& cfg) {
  throttle_choice c = try_device(cfg, msr_device::msr, "");
  if (c.thr) return c;
  // msr-safe: the allow-list, when this user may read it, says at once what the site permits.
  constexpr std::uint64_t bits = 0x1F;  // enable, duty field, extended-duty bit
  std::string list_why;
  const std::optional<msr_allowlist> list = read_msr_allowlist(cfg.root, list_why);
  std::string refused = list ? msr_allowlist_refusal(*list, ia32_clock_modulation, bits) : "";
  if (refused.empty()) {
    const std::string list_note =
        list ? "allow-list " + msr_allowlist_path(cfg.root).string() + " permits it"
             : "allow-list not readable (" + list_why + ")";
    throttle_choice safe =
        try_device(cfg, msr_device::msr_safe, "; " + list_note + ", the probe write passed");
    if (safe.thr) return safe;
    refused = safe.reason + "; " + list_note + " (load msr-safe and allow " +
              msr_hex(ia32_clock_modulation) + " with write mask " + msr_hex(bits) + ")";
  }
  c.reason += "; msr-safe: " + refused;
  return c;
}

}  // namespace gaea::energy::detail
