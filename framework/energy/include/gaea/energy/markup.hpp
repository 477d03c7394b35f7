#pragma once
/// \file
/// gaea::energy::region_markup — cooperation with a site's energy manager. When GEOPM's runtime
/// manages the job's frequency, Gaea does not write frequencies itself: it marks its waits as a
/// GEOPM region (geopm_prof_region / geopm_prof_enter / geopm_prof_exit of libgeopm, loaded with
/// dlopen at run time) with the network hint, and the manager's agent chooses what to do during
/// them. GAEA_ENERGY_MANAGER chooses: auto (markup when a manager is present), geopm (markup
/// whenever the library loads), own (Gaea's own DVFS and throttle, as without a manager).

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gaea::energy {

/// The kinds markup_config::kind accepts: GAEA_ENERGY_MANAGER's choices.
inline constexpr std::array<std::string_view, 3> manager_kinds{"auto", "geopm", "own"};

/// GEOPM_REGION_HINT_NETWORK as GEOPM 3 (libgeopm.so.2) numbers its hints: geopm_hint.h's enum
/// counts from GEOPM_REGION_HINT_UNSET = 0, and geopm_prof_region refuses a hint at or past its
/// end (GEOPM 1.x put the hint in the upper bits instead). A region dominated by waiting for the
/// network.
inline constexpr std::uint64_t geopm_hint_network = 4;

/// The region Gaea's waits are published as.
inline constexpr std::string_view wait_region_name = "gaea_wait";

/// Marks regions for an energy manager, or does nothing ("none"). Not copyable.
/// Thread safety: enter()/exit() may be called from one thread at a time (the runtime calls them
/// from the application's main thread only, GEOPM's profiling being per process); the counters
/// may be read from any thread.
class region_markup {
 public:
  /// geopm_prof_region's type: (name, hint, out id) -> 0 on success.
  using prof_region_fn = int (*)(const char*, std::uint64_t, std::uint64_t*);
  /// geopm_prof_enter's type: (region id) -> 0 on success.
  using prof_enter_fn = int (*)(std::uint64_t);
  /// geopm_prof_exit's type: (region id) -> 0 on success.
  using prof_exit_fn = int (*)(std::uint64_t);

  /// "none": active() is false, enter()/exit() do nothing.
  region_markup() = default;
  /// Marks through `on_enter`/`on_exit` with region `region` of library `handle` (dlopen's; closed
  /// by the destructor, null: none to close). `manager` names the manager ("GEOPM").
  region_markup(void* handle, prof_enter_fn on_enter, prof_exit_fn on_exit, std::uint64_t region,
                std::string manager);
  ~region_markup();
  region_markup(const region_markup&) = delete;
  region_markup& operator=(const region_markup&) = delete;

  /// True when enter()/exit() reach a manager.
  bool active() const noexcept { return enter_ != nullptr; }
  /// The manager's name ("GEOPM"), or "none".
  std::string_view name() const noexcept { return manager_; }
  /// The manager's id of the wait region (0 for none).
  std::uint64_t region_id() const noexcept { return region_; }
  /// A wait starts. Never throws; a call the manager refuses is counted (refused()).
  void enter() noexcept;
  /// The wait started by the last enter() ends. Never throws.
  void exit() noexcept;
  /// Regions entered so far.
  std::uint64_t entered() const noexcept { return entered_.load(std::memory_order_relaxed); }
  /// Calls (enter or exit) the manager refused (non-zero return).
  std::uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }

 private:
  void* handle_ = nullptr;
  prof_enter_fn enter_ = nullptr;
  prof_exit_fn exit_ = nullptr;
  std::uint64_t region_ = 0;
  std::string manager_ = "none";
  std::atomic<std::uint64_t> entered_{0}, refused_{0};
};

/// Settings of make_markup.
struct markup_config {
  std::string kind = "auto";  ///< auto|geopm|own (GAEA_ENERGY_MANAGER)
  /// The library to load (GAEA_GEOPM_LIBRARY); empty: libgeopm.so.2, then libgeopm.so, on the
  /// dynamic loader's search path.
  std::string library;
  /// GEOPM's controller runs for this job (geopm_manager_present()); `auto` marks only then.
  bool manager_present = false;
};

/// What make_markup decided and why, in one line a user can read.
struct markup_choice {
  std::unique_ptr<region_markup> markup;  ///< never null; possibly "none"
  std::string reason;                     ///< the one line (the decision table's row)
};

/// The environment variables geopmlaunch sets for the application it starts: any of them set and
/// not empty means GEOPM's controller runs for this job.
inline constexpr std::array<std::string_view, 5> geopm_manager_variables{
    "GEOPM_PROFILE", "GEOPM_CTL", "GEOPM_REPORT", "GEOPM_AGENT", "GEOPM_ENDPOINT"};

/// True when one of geopm_manager_variables is set and not empty.
bool geopm_manager_present();

/// Chooses. `own`: none. `auto` without a manager present: none (the library is not loaded).
/// Otherwise loads the library (dlopen, RTLD_NOW | RTLD_LOCAL), resolves geopm_prof_region,
/// geopm_prof_enter and geopm_prof_exit and registers wait_region_name with geopm_hint_network;
/// when any step fails the choice is none and the reason names the step, the library and what a
/// site must provide. An unknown kind throws gaea::error naming GAEA_ENERGY_MANAGER. Not
/// collective; call once per process.
markup_choice make_markup(const markup_config& cfg);

}  // namespace gaea::energy
