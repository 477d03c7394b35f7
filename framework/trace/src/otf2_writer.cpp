// OTF2 archives, written serially by one process (OTF2's serial collective callbacks): the
// locations of every rank's threads, their Enter/Leave and Metric events, then the global
// definitions. The archive is made in a temporary directory beside the target and moved into
// place only when complete.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <regex>
#include <system_error>

#include "detail/otf2_archive.hpp"
#include "detail/rma_records.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/temporaries.hpp"
#include "gaea/trace/writers.hpp"

#ifdef GAEA_HAVE_OTF2
#include <otf2/otf2.h>
#endif

namespace gaea::trace {

#ifndef GAEA_HAVE_OTF2
bool otf2_supported() noexcept {
  return false;
}
void detail::check_replaceable(const std::filesystem::path&, const std::string&) {}
void write_otf2(const std::filesystem::path& target, const std::vector<rank_trace>&,
                const job_info&) {
  throw error("GAEA_TRACE '" + target.string() + "': this build of Gaea has no OTF2 support");
}
#else
bool otf2_supported() noexcept {
  return true;
}

namespace {
namespace fs = std::filesystem;

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) {
  return 0;
}
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

// OTF2 ids of the RMA definitions: one communicator of every rank and a window per
// detail::rma_window, whose ids are the window's value.
constexpr OTF2_GroupRef rma_locations_group = 0, rma_ranks_group = 1;
constexpr OTF2_CommRef rma_comm = 0;
constexpr std::array<const char*, detail::rma_window_count> rma_window_names = {"global arrays",
                                                                                "shared counters"};

OTF2_ErrorCode write_rma_issue(OTF2_EvtWriter* w, OTF2_TimeStamp ts, const detail::rma_issue& op) {
  const auto win = static_cast<OTF2_RmaWinRef>(op.window);
  switch (op.kind) {
    case detail::rma_kind::get:
      return OTF2_EvtWriter_RmaGet(w, nullptr, ts, win, op.remote, op.bytes, op.id);
    case detail::rma_kind::put:
      return OTF2_EvtWriter_RmaPut(w, nullptr, ts, win, op.remote, op.bytes, op.id);
    case detail::rma_kind::accumulate:
      return OTF2_EvtWriter_RmaAtomic(w, nullptr, ts, win, op.remote,
                                      OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, op.bytes, 0, op.id);
    case detail::rma_kind::fetch_add:
      return OTF2_EvtWriter_RmaAtomic(w, nullptr, ts, win, op.remote,
                                      OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ADD, op.bytes, op.bytes,
                                      op.id);
    case detail::rma_kind::compare_swap:
      return OTF2_EvtWriter_RmaAtomic(w, nullptr, ts, win, op.remote,
                                      OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, 2 * op.bytes, op.bytes,
                                      op.id);
    case detail::rma_kind::none:
      break;
  }
  return OTF2_SUCCESS;
}

// The temporary directory: removed with everything in it unless released; listed for removal on
// signals while it exists.
struct temp_dir {
  fs::path path;
  temporary_registration listed;
  ~temp_dir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// The archive handle, closed on every path.
struct archive_handle {
  OTF2_Archive* a = nullptr;
  ~archive_handle() {
    if (a) OTF2_Archive_Close(a);
  }
};

// One record of a location's event stream, in time order.
struct step {
  std::int64_t t;
  int order;  // at equal times: leaves (0) before metrics (1) before enters (2)
  std::size_t index;
};

// OTF2 prints its own errors to stderr; reading a file that may not be an archive must not.
OTF2_ErrorCode quiet_error(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                           const char*, va_list) {
  return code;
}

// The creator recorded in an anchor file, or "" when it is not a readable OTF2 anchor.
std::string creator_of(const fs::path& anchor) {
  const OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(quiet_error, nullptr);
  std::string creator;
  if (OTF2_Reader* r = OTF2_Reader_Open(anchor.c_str())) {
    char* c = nullptr;
    if (OTF2_Reader_GetCreator(r, &c) == OTF2_SUCCESS && c) {
      creator = c;
      std::free(c);
    }
    OTF2_Reader_Close(r);
  }
  OTF2_Error_RegisterCallback(previous, nullptr);
  return creator;
}
}  // namespace

void detail::check_replaceable(const fs::path& target, const std::string& who) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string stem = target.stem().string();
  const fs::path events = dir / stem, defs = dir / (stem + ".def");
  std::error_code ec;
  const bool has_anchor = fs::exists(fs::symlink_status(target, ec));
  const bool has_defs = fs::exists(fs::symlink_status(defs, ec));
  const bool has_events = fs::exists(fs::symlink_status(events, ec));
  if (!has_anchor && !has_defs && !has_events) return;
  const std::string remedy =
      "; Gaea replaces only a complete OTF2 archive it wrote itself: move it away or choose "
      "another GAEA_TRACE name";
  auto refuse = [&](const fs::path& p, const std::string& why) {
    throw error(who + "'" + p.string() + "' " + why + remedy);
  };
  if (!has_anchor)
    refuse(has_events ? events : defs, "exists, but the archive's anchor '" + target.string() +
                                           "' does not (not an earlier archive)");
  if (!fs::is_regular_file(fs::symlink_status(target, ec)))
    refuse(target, "exists and is not a regular file");
  const std::string creator = creator_of(target);
  if (creator.empty()) refuse(target, "exists and is not an OTF2 archive's anchor file");
  if (!creator.starts_with("Gaea"))
    refuse(target, "is an OTF2 archive written by '" + creator + "', not by Gaea");
  if (!has_defs || !fs::is_regular_file(fs::symlink_status(defs, ec)))
    refuse(defs, has_defs ? "exists and is not a regular file (the archive's definitions)"
                          : "is missing: the earlier archive is incomplete");
  if (!has_events || !fs::is_directory(fs::symlink_status(events, ec)))
    refuse(events, has_events ? "exists and is not a directory (the archive's event directory)"
                              : "is missing: the earlier archive is incomplete");
  // The event directory holds one `<location>.evt` and `<location>.def` per thread, no more.
  static const std::regex location_file(R"([0-9]+\.(evt|def))");
  for (fs::directory_iterator it(events, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec) || !std::regex_match(name, location_file))
      refuse(events, "holds '" + name + "', which is not part of an OTF2 archive");
  }
  if (ec) refuse(events, "cannot be listed (" + ec.message() + ")");
}

void write_otf2(const fs::path& target, const std::vector<rank_trace>& ranks,
                const job_info& info) {
  const std::string who = "GAEA_TRACE '" + target.string() + "': ";
  auto check = [&](OTF2_ErrorCode c, const char* what) {
    if (c != OTF2_SUCCESS) throw error(who + what + " failed: " + OTF2_Error_GetDescription(c));
  };
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string stem = target.stem().string();
  temp_dir tmp;
  {
    std::random_device rd;
    char suffix[40];
    std::snprintf(suffix, sizeof suffix, ".tmp.%d.%08x", static_cast<int>(::getpid()), rd());
    const fs::path path = dir / (target.filename().string() + suffix);
    std::error_code ec;
    // Listed before it exists, so that no signal falls between creation and listing (a writer
    // stopped there and then ended by SIGTERM left it behind). Owned (and removed on every path)
    // only once this call made it: a directory of that name that already exists (pid and 32
    // random bits make that all but impossible) is someone else's and leaves the list at once.
    tmp.listed = temporary_registration(path, temporary_kind::directory);
    if (!fs::create_directory(path, ec) || ec) {
      tmp.listed.release();
      throw error(who + "cannot create the temporary directory '" + path.string() +
                  "': " + (ec ? ec.message() : std::string("it exists")));
    }
    tmp.path = path;
  }

  // Global ids: strings, regions (by name), metrics (by counter name), attributes.
  std::vector<std::string> strings;
  auto string_id = [&](const std::string& s) {
    const auto it = std::find(strings.begin(), strings.end(), s);
    if (it != strings.end()) return static_cast<OTF2_StringRef>(it - strings.begin());
    strings.push_back(s);
    return static_cast<OTF2_StringRef>(strings.size() - 1);
  };
  std::vector<std::string> region_names, metric_names;
  auto index_of = [](std::vector<std::string>& v, const std::string& s) {
    const auto it = std::find(v.begin(), v.end(), s);
    if (it != v.end()) return static_cast<std::uint32_t>(it - v.begin());
    v.push_back(s);
    return static_cast<std::uint32_t>(v.size() - 1);
  };
  constexpr OTF2_AttributeRef attr_bytes = 0, attr_peer = 1;

  archive_handle ar;
  ar.a = OTF2_Archive_Open(tmp.path.c_str(), stem.c_str(), OTF2_FILEMODE_WRITE,
                           OTF2_CHUNK_SIZE_EVENTS_DEFAULT, OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                           OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!ar.a) throw error(who + "OTF2 cannot open an archive in '" + tmp.path.string() + "'");
  check(OTF2_Archive_SetFlushCallbacks(ar.a, &flush_callbacks, nullptr), "SetFlushCallbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(ar.a), "SetSerialCollectiveCallbacks");
  check(OTF2_Archive_SetCreator(ar.a, info.producer.c_str()), "SetCreator");
  check(OTF2_Archive_SetDescription(ar.a, "Gaea GAEA_TRACE"), "SetDescription");
  check(OTF2_Archive_OpenEvtFiles(ar.a), "OpenEvtFiles");

  struct location {
    OTF2_LocationRef id;
    std::size_t rank, thread;
    std::uint64_t events;
  };
  std::vector<location> locations;
  // RMA records need every rank's first location as its member of the communicator.
  const bool rma = std::all_of(ranks.begin(), ranks.end(),
                               [](const rank_trace& r) { return !r.threads.empty(); });
  std::vector<OTF2_LocationRef> first_location(ranks.size());
  std::int64_t t_end = 0;
  OTF2_AttributeList* attrs = OTF2_AttributeList_New();
  if (!attrs) throw error(who + "OTF2 cannot allocate an attribute list");
  struct attr_closer {
    OTF2_AttributeList* l;
    ~attr_closer() { OTF2_AttributeList_Delete(l); }
  } attr_guard{attrs};

  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const rank_trace& rt = ranks[r];
    std::vector<detail::rma_region> rma_of_name;
    for (const auto& name : rt.names)
      rma_of_name.push_back(rma ? detail::classify_rma(name) : detail::rma_region{});
    // Per thread: its regions (sorted by nest()) and counters, as one time-ordered stream.
    for (std::size_t t = 0; t < rt.threads.size(); ++t) {
      std::vector<step> steps;
      std::vector<const region_record*> regs;
      std::vector<const counter_record*> ctrs;
      for (const auto& g : rt.regions)
        if (g.thread == t) regs.push_back(&g);
      for (const auto& c : rt.counters)
        if (c.thread == t) ctrs.push_back(&c);
      // Enter in nest() order; a leave sorts by its end, inner before outer at equal ends.
      for (std::size_t i = 0; i < regs.size(); ++i) {
        steps.push_back({regs[i]->t0_ns, 2, i});
        // A zero-length region is written as Enter and Leave together, at its enter's place.
        if (regs[i]->t1_ns > regs[i]->t0_ns) steps.push_back({regs[i]->t1_ns, 0, i});
      }
      for (std::size_t i = 0; i < ctrs.size(); ++i)
        steps.push_back({ctrs[i]->t_ns, 1, i});
      std::stable_sort(steps.begin(), steps.end(), [](const step& a, const step& b) {
        if (a.t != b.t) return a.t < b.t;
        if (a.order != b.order) return a.order < b.order;
        // Leaves at one time: the later-entered (inner) region first; enters in nest() order.
        return a.order == 0 ? a.index > b.index : a.index < b.index;
      });
      const OTF2_LocationRef loc = locations.size();
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(ar.a, loc);
      if (!w) throw error(who + "OTF2 cannot open the event writer of rank " + std::to_string(r));
      std::uint64_t n = 0;
      // The rank's windows live on its first location, from time 0 to its last event.
      const bool windows = rma && t == 0;
      if (windows) {
        first_location[r] = loc;
        for (std::size_t win = 0; win < detail::rma_window_count; ++win, ++n)
          check(OTF2_EvtWriter_RmaWinCreate(w, nullptr, 0, static_cast<OTF2_RmaWinRef>(win)),
                "RmaWinCreate");
      }
      detail::rma_location rma_state;
      auto complete = [&](OTF2_TimeStamp ts, std::size_t index, const detail::rma_region& rr) {
        for (const detail::rma_completion& c : rma_state.leave(index, rr)) {
          check(OTF2_EvtWriter_RmaOpCompleteBlocking(w, nullptr, ts,
                                                     static_cast<OTF2_RmaWinRef>(c.window), c.id),
                "RmaOpCompleteBlocking");
          ++n;
        }
      };
      OTF2_TimeStamp t_last = 0;
      for (const step& s : steps) {
        const auto ts = static_cast<OTF2_TimeStamp>(std::max<std::int64_t>(s.t, 0));
        t_end = std::max(t_end, s.t);
        t_last = std::max(t_last, ts);
        if (s.order == 1) {
          const counter_record& c = *ctrs[s.index];
          const OTF2_MetricRef m = index_of(metric_names, rt.names[c.name]);
          const OTF2_Type type = OTF2_TYPE_DOUBLE;
          OTF2_MetricValue v;
          v.floating_point = c.value;
          check(OTF2_EvtWriter_Metric(w, nullptr, ts, m, 1, &type, &v), "Metric");
        } else {
          const region_record& g = *regs[s.index];
          const OTF2_RegionRef reg = index_of(region_names, rt.names[g.name]);
          const detail::rma_region& rr = rma_of_name[g.name];
          if (s.order == 2) {
            OTF2_AttributeList* a = nullptr;
            if (g.bytes >= 0 || g.peer >= 0) {
              a = attrs;
              if (g.bytes >= 0) check(OTF2_AttributeList_AddInt64(a, attr_bytes, g.bytes), "Add");
              if (g.peer >= 0) check(OTF2_AttributeList_AddInt32(a, attr_peer, g.peer), "Add");
            }
            check(OTF2_EvtWriter_Enter(w, a, ts, reg), "Enter");
            if (const auto op = rma_state.enter(s.index, rr, g.peer, g.bytes, ranks.size())) {
              check(write_rma_issue(w, ts, *op), "RmaGet/RmaPut/RmaAtomic");
              ++n;
            }
            if (g.t1_ns <= g.t0_ns) {
              complete(ts, s.index, rr);
              check(OTF2_EvtWriter_Leave(w, nullptr, ts, reg), "Leave");
              ++n;
            }
          } else {
            complete(ts, s.index, rr);
            check(OTF2_EvtWriter_Leave(w, nullptr, ts, reg), "Leave");
          }
        }
        ++n;
      }
      if (windows)
        for (std::size_t win = 0; win < detail::rma_window_count; ++win, ++n)
          check(OTF2_EvtWriter_RmaWinDestroy(w, nullptr, t_last, static_cast<OTF2_RmaWinRef>(win)),
                "RmaWinDestroy");
      check(OTF2_Archive_CloseEvtWriter(ar.a, w), "CloseEvtWriter");
      locations.push_back({loc, r, t, n});
    }
  }
  check(OTF2_Archive_CloseEvtFiles(ar.a), "CloseEvtFiles");
  // Local definition files (empty: every id is global), as readers expect one per location.
  check(OTF2_Archive_OpenDefFiles(ar.a), "OpenDefFiles");
  for (const location& l : locations) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(ar.a, l.id);
    if (!d) throw error(who + "OTF2 cannot open a local definition writer");
    check(OTF2_Archive_CloseDefWriter(ar.a, d), "CloseDefWriter");
  }
  check(OTF2_Archive_CloseDefFiles(ar.a), "CloseDefFiles");

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(ar.a);
  if (!g) throw error(who + "OTF2 cannot open the global definition writer");
  // Strings first (everything refers to them); ids are assigned as they are first needed.
  std::vector<OTF2_StringRef> region_name_ids, metric_name_ids, metric_unit_ids;
  for (const auto& n : region_names)
    region_name_ids.push_back(string_id(n));
  for (const auto& n : metric_names) {
    metric_name_ids.push_back(string_id(n));
    const std::string unit = n.ends_with("_khz") ? "kHz" : n.ends_with("_w") ? "W" : "1";
    metric_unit_ids.push_back(string_id(unit));
  }
  const OTF2_StringRef s_empty = string_id(""), s_job = string_id("job"),
                       s_machine = string_id("machine"), s_node = string_id("node"),
                       s_bytes = string_id("bytes"), s_ranks = string_id("all ranks"),
                       s_peer = string_id("peer"),
                       s_bytes_d = string_id("bytes moved by the operation"),
                       s_peer_d = string_id("target rank of the operation");
  std::vector<OTF2_StringRef> rank_ids, loc_ids;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    rank_ids.push_back(string_id("rank " + std::to_string(r)));
  for (const location& l : locations)
    loc_ids.push_back(string_id(ranks[l.rank].threads[l.thread].name));
  // The system tree: the job, then one node per host (system tree id 1 + its index in hosts).
  std::vector<std::string> hosts;
  std::vector<OTF2_SystemTreeNodeRef> rank_node;
  for (const rank_trace& rt : ranks)
    rank_node.push_back(rt.host.empty() ? 0 : 1 + index_of(hosts, rt.host));
  std::vector<OTF2_StringRef> host_ids;
  for (const auto& h : hosts)
    host_ids.push_back(string_id(h));
  std::vector<OTF2_StringRef> window_ids;
  for (const char* name : rma_window_names)
    window_ids.push_back(string_id(name));

  check(OTF2_GlobalDefWriter_WriteClockProperties(
            g, 1000000000, 0, static_cast<std::uint64_t>(t_end) + 1, OTF2_UNDEFINED_TIMESTAMP),
        "WriteClockProperties");
  for (std::size_t i = 0; i < strings.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteString(g, static_cast<OTF2_StringRef>(i), strings[i].c_str()),
          "WriteString");
  check(OTF2_GlobalDefWriter_WriteAttribute(g, attr_bytes, s_bytes, s_bytes_d, OTF2_TYPE_INT64),
        "WriteAttribute");
  check(OTF2_GlobalDefWriter_WriteAttribute(g, attr_peer, s_peer, s_peer_d, OTF2_TYPE_INT32),
        "WriteAttribute");
  for (std::size_t i = 0; i < region_names.size(); ++i) {
    const bool wait = region_names[i].starts_with("wait.");
    const OTF2_RegionRole role =
        wait ? OTF2_REGION_ROLE_ARTIFICIAL
        : region_names[i] == "barrier" || region_names[i].starts_with("coll.barrier")
            ? OTF2_REGION_ROLE_BARRIER
        : region_names[i] == "task" ? OTF2_REGION_ROLE_TASK
                                    : OTF2_REGION_ROLE_FUNCTION;
    check(OTF2_GlobalDefWriter_WriteRegion(
              g, static_cast<OTF2_RegionRef>(i), region_name_ids[i], region_name_ids[i], s_empty,
              role, wait ? OTF2_PARADIGM_MEASUREMENT_SYSTEM : OTF2_PARADIGM_USER,
              OTF2_REGION_FLAG_NONE, s_empty, 0, 0),
          "WriteRegion");
  }
  for (std::size_t i = 0; i < metric_names.size(); ++i) {
    const auto id = static_cast<OTF2_MetricMemberRef>(i);
    check(OTF2_GlobalDefWriter_WriteMetricMember(g, id, metric_name_ids[i], metric_name_ids[i],
                                                 OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                                 OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0,
                                                 metric_unit_ids[i]),
          "WriteMetricMember");
    check(OTF2_GlobalDefWriter_WriteMetricClass(g, static_cast<OTF2_MetricRef>(i), 1, &id,
                                                OTF2_METRIC_ASYNCHRONOUS,
                                                OTF2_RECORDER_KIND_ABSTRACT),
          "WriteMetricClass");
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_job, s_machine,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "WriteSystemTreeNode");
  for (std::size_t h = 0; h < hosts.size(); ++h)
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, static_cast<OTF2_SystemTreeNodeRef>(1 + h),
                                                   host_ids[h], s_node, 0),
          "WriteSystemTreeNode");
  for (std::size_t r = 0; r < ranks.size(); ++r)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<OTF2_LocationGroupRef>(r),
                                                  rank_ids[r], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  rank_node[r], OTF2_UNDEFINED_LOCATION_GROUP),
          "WriteLocationGroup");
  for (std::size_t i = 0; i < locations.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteLocation(g, locations[i].id, loc_ids[i],
                                             OTF2_LOCATION_TYPE_CPU_THREAD, locations[i].events,
                                             static_cast<OTF2_LocationGroupRef>(locations[i].rank)),
          "WriteLocation");
  if (rma) {
    // The communicator of the windows: every rank, as its first location; members of the
    // rank group are indices into that list, so a record's `remote` is the rank.
    std::vector<std::uint64_t> rank_index(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r)
      rank_index[r] = r;
    const auto count = static_cast<std::uint32_t>(ranks.size());
    check(OTF2_GlobalDefWriter_WriteGroup(g, rma_locations_group, s_empty,
                                          OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_USER,
                                          OTF2_GROUP_FLAG_NONE, count, first_location.data()),
          "WriteGroup");
    check(OTF2_GlobalDefWriter_WriteGroup(g, rma_ranks_group, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_USER, OTF2_GROUP_FLAG_NONE, count,
                                          rank_index.data()),
          "WriteGroup");
    check(OTF2_GlobalDefWriter_WriteComm(g, rma_comm, s_ranks, rma_ranks_group, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE),
          "WriteComm");
    for (std::size_t win = 0; win < detail::rma_window_count; ++win)
      check(OTF2_GlobalDefWriter_WriteRmaWin(g, static_cast<OTF2_RmaWinRef>(win), window_ids[win],
                                             rma_comm, OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS),
            "WriteRmaWin");
  }
  check(OTF2_Archive_CloseGlobalDefWriter(ar.a, g), "CloseGlobalDefWriter");
  const OTF2_ErrorCode closed = OTF2_Archive_Close(ar.a);
  ar.a = nullptr;
  check(closed, "closing the archive");

  // Into place: the event directory and the definitions, the anchor last (an anchor names a
  // complete archive). An earlier archive's event directory moves into the temporary one, which
  // is then removed with it.
  const fs::path events = dir / stem, defs = dir / (stem + ".def");
  // Checked at start-up too; checked again now, as the run may have changed the directory.
  detail::check_replaceable(target, who);
  std::error_code ec;
  if (fs::exists(events, ec)) {
    fs::rename(events, tmp.path / "previous", ec);
    if (ec)
      throw error(who + "cannot move the earlier archive's '" + events.string() +
                  "' aside: " + ec.message());
  }
  for (const auto& [from, to] :
       {std::pair{tmp.path / stem, events}, std::pair{tmp.path / (stem + ".def"), defs},
        std::pair{tmp.path / (stem + ".otf2"), target}}) {
    fs::rename(from, to, ec);
    if (ec)
      throw error(who + "cannot rename '" + from.string() + "' to '" + to.string() +
                  "': " + ec.message());
  }
}
#endif

}  // namespace gaea::trace
