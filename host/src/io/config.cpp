#include "io/config.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "core/json_text.hpp"
#include "io/output_set.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace io {

const nlohmann::json& empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
}

std::string describe_path_kind(const std::filesystem::path& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) {  // ENOENT or ENOTDIR, or a link to nothing
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec)))
      return "is a symbolic link to " + std::filesystem::read_symlink(path, ec).string() + ", which does not exist";
    return "does not exist";
  }
  // Any other error is the real cause, not a missing file.
  if (ec == std::errc::too_many_symbolic_link_levels) return "is a loop of symbolic links";
  if (ec) return "cannot be examined (" + ec.message() + ")";
  if (std::filesystem::is_directory(st)) return "is a directory";
  if (std::filesystem::is_fifo(st)) return "is a FIFO (named pipe)";
  if (std::filesystem::is_character_file(st)) return "is a character device";
  if (std::filesystem::is_block_file(st)) return "is a block device";
  if (std::filesystem::is_socket(st)) return "is a socket";
  if (!std::filesystem::is_regular_file(st)) return "is not a regular file";
  return "";
}

nlohmann::json parse_config(const std::filesystem::path& file, const std::string& what) {
  const std::string source = file.string();
  if (const std::string kind = describe_path_kind(file); !kind.empty())
    throw InputError(source + ": cannot open the " + what + ": the path " + kind + "; expected a JSON file");
  if (OutputSet* run = OutputSet::active()) run->note_input(file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(source + ": cannot open the " + what);
  std::ostringstream text;
  text << in.rdbuf();
  return core::parse_json_text(text.str(), source);
}

}  // namespace io

ConfigObject::ConfigObject(const nlohmann::json& object, std::string source, std::string path)
    : object_(&object), source_(std::move(source)), path_(std::move(path)) {
  if (!object.is_object())
    throw InputError(source_ + ": " + (path_.empty() ? "the config" : path_) + ": expected a JSON object, got " +
                     object.dump());
}

void ConfigObject::fail(const std::string& key, const std::string& message) const {
  throw InputError(source_ + ": " + where(key) + ": " + message);
}

const nlohmann::json* ConfigObject::get(const std::string& key) {
  read_.insert(key);
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &*it;
}

std::optional<std::string> ConfigObject::string(const std::string& key) {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) fail(key, "expected a string, got " + v->dump());
  return v->get<std::string>();
}

std::string ConfigObject::string(const std::string& key, const std::string& fallback) {
  return string(key).value_or(fallback);
}

std::string ConfigObject::choice(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string_view>& allowed) {
  const std::string value = string(key, fallback);
  std::string list;
  for (const std::string_view a : allowed) {
    if (value == a) return value;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(key, "expected one of " + list + "; got \"" + value + "\"");
}

std::optional<long long> ConfigObject::integer(const std::string& key, long long low, long long high) {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  const std::string range = "expected an integer from " + std::to_string(low) + " to " + std::to_string(high);
  // Checked before any conversion: an unsigned beyond long long, or a float beyond it, is reported as
  // written, never wrapped (18446744073709551615 is not -1) nor truncated.
  long long value = 0;
  if (v->is_number_unsigned()) {
    const auto u = v->get<unsigned long long>();
    if (u > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
      fail(key, v->dump() + " is out of range: " + range);
    value = static_cast<long long>(u);
  } else if (v->is_number_integer()) {
    value = v->get<long long>();
  } else if (v->is_number_float()) {
    // 3.0 is an integer to a user; 3.5 is not. 2^63 is the first double beyond long long.
    const double d = v->get<double>();
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
      fail(key, v->dump() + " is out of range: " + range);
    if (d != std::trunc(d)) fail(key, "expected an integer, got " + v->dump());
    value = static_cast<long long>(d);
  } else {
    fail(key, "expected an integer, got " + v->dump());
  }
  if (value < low || value > high) fail(key, v->dump() + " is out of range: " + range);
  return value;
}

std::optional<double> ConfigObject::number(const std::string& key) {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) fail(key, "expected a number, got " + v->dump());
  return v->get<double>();
}

std::optional<bool> ConfigObject::boolean(const std::string& key) {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
  return v->get<bool>();
}

std::optional<std::filesystem::path> ConfigObject::path(const std::string& key, const std::filesystem::path& base) {
  const auto s = string(key);
  if (!s) return std::nullopt;
  if (s->empty()) fail(key, "expected a file path, got an empty string");
  const std::filesystem::path p(*s);
  return p.is_absolute() ? p : base / p;
}

ConfigObject ConfigObject::object(const std::string& key) {
  const auto* v = get(key);
  return ConfigObject(v ? *v : io::empty_object(), source_, where(key));
}

void ConfigObject::finish() const {
  for (const auto& [key, value] : object_->items()) {
    if (read_.count(key)) continue;
    std::string known;
    for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
    throw InputError(source_ + ": " + where(key) + ": unknown field" +
                     (known.empty() ? "" : " (expected one of: " + known + ")"));
  }
}

}  // namespace itercl
