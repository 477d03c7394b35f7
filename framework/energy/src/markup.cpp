// gaea::energy::region_markup: marks Gaea's waits as regions for GEOPM's runtime, when it
// manages the job's frequency, instead of writing frequencies.

#include "gaea/energy/markup.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "gaea/base/enum_names.hpp"
#include "gaea/base/error.hpp"

namespace gaea::energy {

region_markup::region_markup(void* handle, prof_enter_fn on_enter, prof_exit_fn on_exit,
                             std::uint64_t region, std::string manager)
    : handle_(handle),
      enter_(on_enter),
      exit_(on_exit),
      region_(region),
      manager_(std::move(manager)) {}

region_markup::~region_markup() {
  if (handle_) dlclose(handle_);
}

void region_markup::enter() noexcept {
  if (!enter_) return;
  entered_.fetch_add(1, std::memory_order_relaxed);
  if (enter_(region_) != 0) refused_.fetch_add(1, std::memory_order_relaxed);
}

void region_markup::exit() noexcept {
  if (exit_ && exit_(region_) != 0) refused_.fetch_add(1, std::memory_order_relaxed);
}

bool geopm_manager_present() {
  for (std::string_view var : geopm_manager_variables)
    if (const char* v = std::getenv(std::string(var).c_str()); v && *v) return true;
  return false;
}

namespace {

// What a site provides for markup, appended to every refusal (the decision table's row).
constexpr std::string_view site_hint =
    " (a site enables markup by launching the job with geopmlaunch, libgeopm on the loader's "
    "path or named by GAEA_GEOPM_LIBRARY)";

// What happens instead, appended to a refusal of a markup that was asked for or possible.
constexpr std::string_view own_control = "; Gaea controls DVFS and throttling itself";

markup_choice none(std::string why) {
  return {std::make_unique<region_markup>(), std::move(why)};
}

}  // namespace

markup_choice make_markup(const markup_config& cfg) {
  if (std::find(manager_kinds.begin(), manager_kinds.end(), cfg.kind) == manager_kinds.end())
    throw error("GAEA_ENERGY_MANAGER='" + cfg.kind +
                "' is not a manager kind; accepted: " + join_names(manager_kinds));
  if (cfg.kind == "own")
    return none("GAEA_ENERGY_MANAGER=own: Gaea controls DVFS and throttling itself");
  if (cfg.kind == "auto" && !cfg.manager_present)
    return none("no energy manager: GEOPM's controller is not running for this job (none of " +
                join_names(geopm_manager_variables, ", ") + " set)" + std::string(site_hint));
  const std::string prefix = cfg.kind == "geopm" ? "GAEA_ENERGY_MANAGER=geopm: " : "";
  std::vector<std::string> names;
  if (!cfg.library.empty())
    names.push_back(cfg.library);
  else
    names = {"libgeopm.so.2", "libgeopm.so"};
  void* handle = nullptr;
  std::string tried;
  for (const std::string& n : names) {
    dlerror();
    handle = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      tried = n;
      break;
    }
    const char* e = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(e ? e : n + ": not found");
  }
  if (!handle)
    return none(prefix + "cannot load GEOPM's library: " + tried + std::string(site_hint) +
                std::string(own_control));
  // Resolved once here: the wait path calls through the pointers only.
  constexpr std::array<const char*, 3> symbols{"geopm_prof_region", "geopm_prof_enter",
                                               "geopm_prof_exit"};
  std::array<void*, 3> resolved{};
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    dlerror();
    resolved[i] = dlsym(handle, symbols[i]);
    if (dlerror() != nullptr || !resolved[i]) {
      dlclose(handle);
      return none(prefix + tried + " has no " + symbols[i] + " (not GEOPM's runtime library?)" +
                  std::string(own_control));
    }
  }
  const auto prof_region = reinterpret_cast<region_markup::prof_region_fn>(resolved[0]);
  std::uint64_t id = 0;
  const std::string region(wait_region_name);
  if (const int rc = prof_region(region.c_str(), geopm_hint_network, &id); rc != 0) {
    dlclose(handle);
    return none(prefix + tried + ": geopm_prof_region('" + region + "') returned " +
                std::to_string(rc) + std::string(own_control));
  }
  markup_choice c;
  c.markup = std::make_unique<region_markup>(
      handle, reinterpret_cast<region_markup::prof_enter_fn>(resolved[1]),
      reinterpret_cast<region_markup::prof_exit_fn>(resolved[2]), id, "GEOPM");
  c.reason = prefix + "GEOPM manages the frequency: waits are marked as region '" + region +
             "' (network hint) through " + tried + "; Gaea writes no frequency or duty itself";
  return c;
}

}  // namespace gaea::energy
