// Reading experiment configs field by field (internal). Every error names the config file and the
// field's path ("examples/s1.json: params.n_clusters: expected an integer, got \"ten\""), and fields
// nobody read are errors, so a typo cannot pass silently.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/error.hpp"

namespace itercl {

class ConfigObject {
 public:
  // `source`: the config file (for messages); `path`: this object's place in it ("params"; "" at the top).
  ConfigObject(const nlohmann::json& object, std::string source, std::string path);

  bool has(const std::string& key) const { return object_->contains(key); }
  // The raw value, marked as read; nullptr if absent.
  const nlohmann::json* get(const std::string& key);

  std::optional<std::string> string(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string_view>& allowed);
  // An integer within [low, high], range-checked before any conversion; else an error naming the field,
  // the value as written and the range.
  std::optional<long long> integer(const std::string& key, long long low = std::numeric_limits<long long>::min(),
                                   long long high = std::numeric_limits<long long>::max());
  std::optional<double> number(const std::string& key);
  std::optional<bool> boolean(const std::string& key);
  // A path resolved against `base` (the config file's folder) unless absolute.
  std::optional<std::filesystem::path> path(const std::string& key, const std::filesystem::path& base);
  // A nested object; an absent key gives an empty one.
  ConfigObject object(const std::string& key);

  // Throws for every field that was not read.
  void finish() const;

  std::string where(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  const std::string& source() const { return source_; }

 private:
  const nlohmann::json* object_;
  std::string source_, path_;
  std::set<std::string> read_;
};

namespace io {

// "" for a regular file; else what the path is ("is a directory", "is a FIFO (named pipe)", "does not exist", ...).
std::string describe_path_kind(const std::filesystem::path& path);

// A JSON config (comments allowed) read from `file` by core::parse_json_text: a path that is no regular
// file, and everything that function refuses, are InputErrors naming the file.
// `what`: "config file", "suite", ... for the messages.
nlohmann::json parse_config(const std::filesystem::path& file, const std::string& what);

}  // namespace io

// Runs `f`, turning a ParamError from a library call into an InputError that names the config field
// (`section`.field) in `source`.
template <class F>
decltype(auto) with_field_prefix(const std::string& source, const std::string& section, F&& f) {
  try {
    return f();
  } catch (const ParamError& e) {
    throw InputError(source + ": " + (section.empty() ? "" : section + ".") + e.field() + ": " + e.detail());
  }
}

}  // namespace itercl
