#pragma once
// Internal (not API): what an OTF2 target may replace. An archive is three things beside each
// other (the anchor `<stem>.otf2`, the definitions `<stem>.def`, the event directory `<stem>/`),
// and replacing it removes the directory: only a complete earlier Gaea archive may go.
#include <filesystem>
#include <string>

namespace gaea::trace::detail {

/// Throws gaea::error starting with `who` unless every existing part of the archive at `target`
/// belongs to one complete earlier archive written by Gaea (or none exists): the anchor opens in
/// OTF2's reader with a Gaea creator, `<stem>.def` is a regular file and `<stem>/` holds only
/// OTF2's per-location files. Names the offending path. Not collective.
void check_replaceable(const std::filesystem::path& target, const std::string& who);

}  // namespace gaea::trace::detail
