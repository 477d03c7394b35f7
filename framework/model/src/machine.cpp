// Machine descriptions: checks, placement helpers, and the JSON file format (README.md).
#include "gaea/model/machine.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "detail/json_field.hpp"
#include "gaea/base/error.hpp"
#include "gaea/base/input_file.hpp"
#include "gaea/base/output_file.hpp"

namespace gaea::model {

namespace {

constexpr int file_version = 1;
constexpr const char* file_kind = "gaea-machine";

std::string named(const machine& m) {
  return "machine '" + m.name + "'";
}

void check_time(const machine& m, const std::string& field, double v) {
  if (!std::isfinite(v) || v < 0)
    throw error(named(m) + ": " + field + " = " + std::to_string(v) +
                " must be a finite number >= 0");
}

nlohmann::json to_json(const link_params& l) {
  nlohmann::json j{{"L_s", l.L},          {"o_s", l.o},     {"g_s", l.g},
                   {"G_s_per_byte", l.G}, {"o_r_s", l.o_r}, {"G_am_s_per_byte", l.G_am},
                   {"atomic_s", l.atomic}};
  if (!l.curve_bytes.empty()) j["curve"] = {{"bytes", l.curve_bytes}, {"seconds", l.curve_s}};
  return j;
}

// "gaea::model: machine file F", how errors name a machine file.
std::string file_named(const std::filesystem::path& file) {
  return "gaea::model: machine file " + file.string();
}

template <class T>
T field(const nlohmann::json& j, const std::string& key, const std::filesystem::path& file,
        const std::string& where) {
  return detail::json_field<T>(j, key, file_named(file), where);
}

template <class T>
T optional_field(const nlohmann::json& j, const std::string& key, T fallback,
                 const std::filesystem::path& file, const std::string& where) {
  return detail::json_field_or<T>(j, key, fallback, file_named(file), where);
}

link_params link_from(const nlohmann::json& j, const std::filesystem::path& file,
                      const std::string& where) {
  if (!j.is_object())
    throw error("gaea::model: machine file " + file.string() + ": '" + where +
                "' must be an object");
  const std::string w = where + ".";
  link_params l;
  l.L = field<double>(j, "L_s", file, w);
  l.o = field<double>(j, "o_s", file, w);
  l.g = field<double>(j, "g_s", file, w);
  l.G = field<double>(j, "G_s_per_byte", file, w);
  l.o_r = field<double>(j, "o_r_s", file, w);
  l.G_am = optional_field<double>(j, "G_am_s_per_byte", 0.0, file, w);
  l.atomic = optional_field<double>(j, "atomic_s", 0.0, file, w);
  if (j.contains("curve")) {
    const nlohmann::json& c = j["curve"];
    l.curve_bytes = field<std::vector<double>>(c, "bytes", file, w + "curve.");
    l.curve_s = field<std::vector<double>>(c, "seconds", file, w + "curve.");
  }
  return l;
}

}  // namespace

double machine::mean_hop_s(std::int64_t nodes_used) const {
  if (hop_s <= 0 || torus_dims <= 0 || nodes_used <= 1) return 0;
  // A torus of `torus_dims` equal sides holding the nodes; the mean wrap-around distance along
  // one side of length k is k/4 (even k), so the mean over all dimensions is dims k / 4.
  const double side = std::pow(static_cast<double>(nodes_used), 1.0 / torus_dims);
  const double mean_hops = torus_dims * side / 4.0;
  return hop_s * std::max(0.0, mean_hops - 1.0);
}

void machine::check() const {
  auto at_least_one = [&](const char* f, std::int64_t v) {
    if (v < 1) throw error(named(*this) + ": " + f + " = " + std::to_string(v) + " must be >= 1");
  };
  at_least_one("nodes", nodes);
  at_least_one("cores_per_node", cores_per_node);
  at_least_one("threads_per_core", threads_per_core);
  at_least_one("ranks_per_node", ranks_per_node);
  if (ranks_per_node > cores_per_node * threads_per_core)
    throw error(named(*this) + ": ranks_per_node = " + std::to_string(ranks_per_node) +
                " exceeds cores_per_node x threads_per_core = " +
                std::to_string(cores_per_node * threads_per_core));
  for (const auto& [cls, l] : {std::pair{"intra", &intra}, std::pair{"inter", &inter}}) {
    const std::string p = std::string(cls) + ".";
    check_time(*this, p + "L", l->L);
    check_time(*this, p + "o", l->o);
    check_time(*this, p + "g", l->g);
    check_time(*this, p + "G", l->G);
    check_time(*this, p + "o_r", l->o_r);
    check_time(*this, p + "G_am", l->G_am);
    check_time(*this, p + "atomic", l->atomic);
    if (l->curve_bytes.size() != l->curve_s.size() || l->curve_bytes.size() == 1)
      throw error(named(*this) + ": " + p + "curve has " + std::to_string(l->curve_bytes.size()) +
                  " sizes and " + std::to_string(l->curve_s.size()) +
                  " times (need as many, at least two)");
    for (std::size_t i = 0; i < l->curve_bytes.size(); ++i) {
      check_time(*this, p + "curve.seconds", l->curve_s[i]);
      if (i > 0 && !(l->curve_bytes[i] > l->curve_bytes[i - 1]))
        throw error(named(*this) + ": " + p + "curve.bytes must ascend");
    }
  }
  check_time(*this, "hop_s", hop_s);
  if (torus_dims < 0 || torus_dims > 6)
    throw error(named(*this) + ": torus_dims = " + std::to_string(torus_dims) +
                " must be in [0, 6]");
  check_time(*this, "copy_s_per_byte", copy_s_per_byte);
  check_time(*this, "add_s_per_byte", add_s_per_byte);
  check_time(*this, "pack_s_per_chunk", pack_s_per_chunk);
  check_time(*this, "dgemm_flops_per_core", dgemm_flops_per_core);
  check_time(*this, "memory_bytes_per_node", memory_bytes_per_node);
  check_time(*this, "setup.endpoint_bytes", setup.endpoint_bytes);
  check_time(*this, "setup.endpoint_s", setup.endpoint_s);
  check_time(*this, "setup.rkey_bytes", setup.rkey_bytes);
  check_time(*this, "setup.rkey_s", setup.rkey_s);
  check_time(*this, "setup.region_s", setup.region_s);
  check_time(*this, "setup.exchange_s_per_rank", setup.exchange_s_per_rank);
}

namespace {

// A parsed machine description; `file` names it in errors.
machine from_json(const nlohmann::json& j, const std::filesystem::path& file,
                  const std::filesystem::path& base_dir) {
  if (!j.is_object() || j.value("kind", std::string()) != file_kind)
    throw error("gaea::model: " + file.string() + " is not a machine description (\"kind\": \"" +
                file_kind + "\" missing)");
  if (const int v = field<int>(j, "version", file, ""); v != file_version)
    throw error("gaea::model: machine file " + file.string() + " has version " + std::to_string(v) +
                "; this Gaea reads version " + std::to_string(file_version));
  machine m;
  m.name = field<std::string>(j, "name", file, "");
  m.source = optional_field<std::string>(j, "source", "", file, "");
  m.nodes = field<std::int64_t>(j, "nodes", file, "");
  m.cores_per_node = field<std::int64_t>(j, "cores_per_node", file, "");
  m.threads_per_core = optional_field<std::int64_t>(j, "threads_per_core", 1, file, "");
  m.ranks_per_node = field<std::int64_t>(j, "ranks_per_node", file, "");
  m.intra = link_from(field<nlohmann::json>(j, "intra", file, ""), file, "intra");
  m.inter = link_from(field<nlohmann::json>(j, "inter", file, ""), file, "inter");
  m.hop_s = optional_field<double>(j, "hop_s", 0.0, file, "");
  m.torus_dims = optional_field<int>(j, "torus_dims", 0, file, "");
  m.copy_s_per_byte = field<double>(j, "copy_s_per_byte", file, "");
  m.add_s_per_byte = field<double>(j, "add_s_per_byte", file, "");
  m.pack_s_per_chunk = optional_field<double>(j, "pack_s_per_chunk", 0.0, file, "");
  m.dgemm_flops_per_core = field<double>(j, "dgemm_flops_per_core", file, "");
  m.memory_bytes_per_node = field<double>(j, "memory_bytes_per_node", file, "");
  m.progress_thread = optional_field<bool>(j, "progress_thread", true, file, "");
  m.network_atomics = optional_field<bool>(j, "network_atomics", false, file, "");
  if (j.contains("coll_calibration")) {
    m.coll_calibration = field<std::string>(j, "coll_calibration", file, "");
    const std::filesystem::path at =
        m.coll_calibration.is_absolute() ? m.coll_calibration : base_dir / m.coll_calibration;
    try {
      m.collectives = std::make_shared<const coll::estimator>(coll::estimator::load(at));
    } catch (const error& e) {
      throw error("gaea::model: machine file " + file.string() + ": coll_calibration: " + e.what());
    }
  }
  if (j.contains("setup")) {
    const nlohmann::json& s = j["setup"];
    setup_params& p = m.setup;
    p.endpoint_bytes =
        optional_field<double>(s, "endpoint_bytes", p.endpoint_bytes, file, "setup.");
    p.endpoint_s = optional_field<double>(s, "endpoint_s", p.endpoint_s, file, "setup.");
    p.rkey_bytes = optional_field<double>(s, "rkey_bytes", p.rkey_bytes, file, "setup.");
    p.rkey_s = optional_field<double>(s, "rkey_s", p.rkey_s, file, "setup.");
    p.region_s = optional_field<double>(s, "region_s", p.region_s, file, "setup.");
    p.exchange_s_per_rank =
        optional_field<double>(s, "exchange_s_per_rank", p.exchange_s_per_rank, file, "setup.");
  }
  try {
    m.check();
  } catch (const error& e) {
    throw error("gaea::model: machine file " + file.string() + ": " + e.what());
  }
  return m;
}

nlohmann::json to_json(const machine& m) {
  m.check();
  nlohmann::json j;
  j["kind"] = file_kind;
  j["version"] = file_version;
  j["name"] = m.name;
  j["source"] = m.source;
  j["nodes"] = m.nodes;
  j["cores_per_node"] = m.cores_per_node;
  j["threads_per_core"] = m.threads_per_core;
  j["ranks_per_node"] = m.ranks_per_node;
  j["intra"] = to_json(m.intra);
  j["inter"] = to_json(m.inter);
  j["hop_s"] = m.hop_s;
  j["torus_dims"] = m.torus_dims;
  j["copy_s_per_byte"] = m.copy_s_per_byte;
  j["add_s_per_byte"] = m.add_s_per_byte;
  j["pack_s_per_chunk"] = m.pack_s_per_chunk;
  j["dgemm_flops_per_core"] = m.dgemm_flops_per_core;
  j["memory_bytes_per_node"] = m.memory_bytes_per_node;
  j["progress_thread"] = m.progress_thread;
  j["network_atomics"] = m.network_atomics;
  if (!m.coll_calibration.empty()) j["coll_calibration"] = m.coll_calibration.string();
  j["setup"] = {{"endpoint_bytes", m.setup.endpoint_bytes},
                {"endpoint_s", m.setup.endpoint_s},
                {"rkey_bytes", m.setup.rkey_bytes},
                {"rkey_s", m.setup.rkey_s},
                {"region_s", m.setup.region_s},
                {"exchange_s_per_rank", m.setup.exchange_s_per_rank}};
  return j;
}

}  // namespace

machine load_machine(const std::filesystem::path& file) {
  const std::string text = read_input_file(file, "gaea::model: machine file");
  return from_json(detail::parse_json(text, file_named(file)), file, file.parent_path());
}

machine machine_from_json_text(const std::string& text, const std::string& what) {
  return from_json(detail::parse_json(text, file_named(what)), what,
                   std::filesystem::current_path());
}

std::string to_json_text(const machine& m) {
  return to_json(m).dump(2) + "\n";
}

void save_machine(const machine& m, const std::filesystem::path& file) {
  const std::string text = to_json_text(m);
  output_file out(file, "gaea::model: machine file");
  out.write(text);
  out.commit();
}

}  // namespace gaea::model
