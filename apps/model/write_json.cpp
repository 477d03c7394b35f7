// gaea-model's JSON outputs, written the one way Gaea writes files (gaea::output_file).
#include "commands.hpp"
#include "gaea/base/output_file.hpp"

namespace gaea_model {

void write_json(const std::string& file, const nlohmann::json& j, const std::string& what) {
  if (file.empty()) return;
  gaea::output_file out(file, what);
  out.write(j.dump(2) + "\n");
  out.commit();
}

}  // namespace gaea_model
