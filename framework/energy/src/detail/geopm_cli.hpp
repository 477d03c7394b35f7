#pragma once
/// \file
/// GEOPM through its command-line tools: `geopmread <SIGNAL> <domain> <index>` prints a value,
/// `geopmwrite <CONTROL> <domain> <index> <value>` sets one (the GEOPM service checks its access
/// lists). The tools are taken from GAEA_GEOPM_BIN_DIR when set, else found on PATH.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gaea::energy::detail {

/// The two tools, or why they are missing.
struct geopm_tools {
  std::filesystem::path read, write;  ///< empty when not found
  std::string why;                    ///< "" when both were found
};

/// GAEA_GEOPM_BIN_DIR/{geopmread,geopmwrite} when the variable is set, else the first executable
/// of each name on PATH.
geopm_tools find_geopm_tools();

/// Runs `geopmread signal domain index`; its value, or nullopt with `why` (the tool's message or
/// exit status, or output that is not a number).
std::optional<double> geopm_read(const geopm_tools& t, std::string_view signal,
                                 std::string_view domain, int index, std::string& why);

/// Runs `geopmwrite control domain index value`; false with `why` when it fails.
bool geopm_write(const geopm_tools& t, std::string_view control, std::string_view domain, int index,
                 double value, std::string& why);

}  // namespace gaea::energy::detail
