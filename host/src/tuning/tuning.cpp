#include "itercl/tuning.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/embedded_files.hpp"
#include "core/json_text.hpp"
#include "core/replace_file.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace tuning {

// Read as a config is (a user's overlay is a file like one): nesting, repeated keys and numbers checked.
nlohmann::json parse(std::string_view text, const std::string& where) {
  try {
    return core::parse_json_text(std::string(text), where);
  } catch (const InputError& e) {
    throw RuntimeError(std::string("the tuning database ") + e.what());
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

// What an entry says about itself rather than a kernel field: why it holds, which card(s) it was measured
// on, what the tuner found.
bool is_entry_note(std::string_view field) { return field == "why" || field == "measured_on" || field == "tuned"; }

// The entry at `section`/`key` of `db` (or the top-level entry `section` when key is empty).
const nlohmann::json* entry(const nlohmann::json& db, const std::string& section, const std::string& key) {
  auto s = db.find(section);
  if (s == db.end() || !s->is_object()) return nullptr;
  if (key.empty()) return &*s;
  auto e = s->find(key);
  return e != s->end() && e->is_object() ? &*e : nullptr;
}

}  // namespace tuning

std::optional<std::filesystem::path> user_tuning_dir() {
  if (const char* off = std::getenv("ITERCL_NO_USER_TUNING"); off && *off && std::string_view(off) != "0")
    return std::nullopt;
  // XDG: a relative $XDG_CONFIG_HOME is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg && std::filesystem::path(xdg).is_absolute())
    return std::filesystem::path(xdg) / "itercl" / "tuning";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "itercl" / "tuning";
  return std::nullopt;
}

std::optional<std::filesystem::path> tuning_dir_override() {
  if (const char* dir = std::getenv("ITERCL_TUNING_DIR"); dir && *dir) return std::filesystem::path(dir);
  return std::nullopt;
}

TunedParameters tuned_parameters(std::string_view kernel, const DeviceInfo& info) {
  const std::string file = std::string(kernel) + ".json";
  // Each database with the prefix its entries carry in `sources`, the later overriding the earlier.
  std::vector<std::pair<nlohmann::json, std::string>> databases = {{tuning::builtin(kernel), ""}};
  if (const auto user = user_tuning_dir()) databases.emplace_back(tuning::user_file(*user / file), "user:");
  if (const auto dir = tuning_dir_override()) databases.emplace_back(tuning::user_file(*dir / file), "");

  const std::pair<std::string, std::string> levels[] = {
      {"default", ""}, {"types", info.type}, {"vendors", info.vendor + "/" + info.type}, {"devices", info.name}};
  TunedParameters tuned;
  for (const auto& [section, key] : levels) {
    for (const auto& [db, prefix] : databases) {
      const nlohmann::json* e = tuning::entry(db, section, key);
      if (!e) continue;
      for (const auto& [field, value] : e->items())
        if (!tuning::is_entry_note(field)) tuned.values[field] = value;
      tuned.sources.push_back(prefix + (key.empty() ? section : section + "/" + key));
    }
  }
  return tuned;
}

void store_tuned_parameters(const std::filesystem::path& folder, std::string_view kernel, const DeviceInfo& info,
                            const nlohmann::json& entry, bool start_from_builtin) {
  const std::filesystem::path path = folder / (std::string(kernel) + ".json");
  nlohmann::json db = std::filesystem::exists(path) ? tuning::user_file(path)
                      : start_from_builtin          ? tuning::builtin(kernel)
                                                    : nlohmann::json::object();
  db["devices"][info.name] = entry;
  core::replace_file(path, db.dump(2) + "\n");
}

}  // namespace itercl
