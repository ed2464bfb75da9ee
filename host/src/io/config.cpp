#include "io/config.hpp"

#include "itercl/error.hpp"

namespace itercl {
namespace io {

const nlohmann::json& empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
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
                                 std::initializer_list<const char*> allowed) {
  const std::string value = string(key, fallback);
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return value;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(key, "expected one of " + list + "; got \"" + value + "\"");
}

std::optional<long long> ConfigObject::integer(const std::string& key) {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<long long>();
  // 3.0 is an integer to a user; 3.5 is not.
  if (v->is_number_float() && v->get<double>() == static_cast<double>(static_cast<long long>(v->get<double>())))
    return static_cast<long long>(v->get<double>());
  fail(key, "expected an integer, got " + v->dump());
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
