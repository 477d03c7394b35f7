// Which writer a trace name selects, and the start-up check of the target.
#include "detail/otf2_archive.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/output_file.hpp"
#include "gaea/trace/writers.hpp"

namespace gaea::trace {

format format_of(const std::filesystem::path& target) {
  const std::string ext = target.extension().string();
  if (ext == ".json") return format::chrome_json;
  if (ext == ".otf2") return format::otf2;
  return format::hdf5;
}

std::string_view to_string(format f) noexcept {
  switch (f) {
    case format::hdf5:
      return "HDF5";
    case format::chrome_json:
      return "Chrome trace JSON";
    case format::otf2:
      return "OTF2";
  }
  return "?";
}

void check_target(const std::filesystem::path& target, std::string_view what) {
  check_output_path(target, what);
  if (format_of(target) != format::otf2) return;
  const std::string who = std::string(what) + " '" + target.string() + "': ";
  if (!otf2_supported())
    throw error(who +
                "this build of Gaea has no OTF2 support (configured with GAEA_WITH_OTF2=OFF or "
                "without libotf2-trace-dev); use a .json or .h5 trace");
  if (target.stem().empty()) throw error(who + "the archive needs a name before '.otf2'");
  // The archive's other parts beside the anchor: replaced only if they are an earlier archive.
  detail::check_replaceable(target, who);
}

}  // namespace gaea::trace
