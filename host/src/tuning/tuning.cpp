#include "itercl/tuning.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/embedded_files.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace tuning {

nlohmann::json parse(std::string_view text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw RuntimeError(where + ": the tuning database is not valid JSON: " + e.what());
  }
}

nlohmann::json builtin(std::string_view kernel) {
  const std::string file = std::string(kernel) + ".json";
  const auto& files = detail::embedded_tuning();
  const auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == file; });
  return it == files.end() ? nlohmann::json::object() : parse(it->text, "tuning/" + file);
}

nlohmann::json user_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string());
}

// The entry at `section`/`key` of `db` (or the top-level entry `section` when key is empty).
const nlohmann::json* entry(const nlohmann::json& db, const std::string& section, const std::string& key) {
  auto s = db.find(section);
  if (s == db.end() || !s->is_object()) return nullptr;
  if (key.empty()) return &*s;
  auto e = s->find(key);
  return e != s->end() && e->is_object() ? &*e : nullptr;
}

}  // namespace tuning

TunedParameters tuned_parameters(std::string_view kernel, const DeviceInfo& info) {
  std::vector<nlohmann::json> databases = {tuning::builtin(kernel)};
  if (const char* dir = std::getenv("ITERCL_TUNING_DIR"); dir && *dir)
    databases.push_back(tuning::user_file(std::filesystem::path(dir) / (std::string(kernel) + ".json")));

  const std::pair<std::string, std::string> levels[] = {
      {"default", ""}, {"types", info.type}, {"vendors", info.vendor + "/" + info.type}, {"devices", info.name}};
  TunedParameters tuned;
  for (const auto& [section, key] : levels) {
    for (const nlohmann::json& db : databases) {
      const nlohmann::json* e = tuning::entry(db, section, key);
      if (!e) continue;
      for (const auto& [field, value] : e->items())
        if (field != "tuned" && field != "why") tuned.values[field] = value;
      tuned.sources.push_back(key.empty() ? section : section + "/" + key);
    }
  }
  return tuned;
}

void store_tuned_parameters(const std::filesystem::path& folder, std::string_view kernel, const DeviceInfo& info,
                            const nlohmann::json& entry) {
  const std::filesystem::path path = folder / (std::string(kernel) + ".json");
  nlohmann::json db = std::filesystem::exists(path) ? tuning::user_file(path) : tuning::builtin(kernel);
  db["devices"][info.name] = entry;
  write_file_atomically(path, db.dump(2) + "\n");
}

}  // namespace itercl
