#include "io/config.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

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
  return parse_config_text(text.str(), source);
}

// Where the parser is in a JSON text, as a config's field path ("params.kernel.work_group_size",
// "groups[2].name"), and the keys each open object holds so far. It bounds the nesting, since
// nlohmann::json's dump and comparisons recurse (a config 100,000 deep overflowed the stack), and
// refuses a key repeated in one object, which nlohmann::json would keep as "last wins" (RFC 8259 leaves
// it undefined; a config that names a field twice has one value nobody meant).
class ParsePlace {
 public:
  explicit ParsePlace(const std::string& source) : source_(source) {}

  // Called by nlohmann::json::parse at each event; throws InputError for a repeated key or a nesting
  // beyond kMaxConfigDepth.
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (levels_.size() == kMaxConfigDepth) {
          std::string at = path();
          if (at.size() > 60) at = at.substr(0, 60) + "...";
          throw InputError(source_ + ": objects and arrays nested deeper than " + std::to_string(kMaxConfigDepth) +
                           " levels (at " + at + "); a config needs a few");
        }
        levels_.emplace_back();
        levels_.back().array = event == Event::array_start;
        if (levels_.size() > 1) levels_.back().name = levels_[levels_.size() - 2].begin_element();
        break;
      case Event::key: {
        Level& object = levels_.back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second)
          throw InputError(source_ + ": " + path() + ": the key appears twice in one object; give each key once");
        break;
      }
      case Event::value:
        if (!levels_.empty()) levels_.back().begin_element();
        break;
      case Event::object_end:
      case Event::array_end:
        levels_.pop_back();
        break;
    }
    return true;
  }

  // The place of the value being read: its key or index in each open object or array.
  std::string path() const {
    std::string p;
    for (std::size_t i = 1; i < levels_.size(); ++i) p += levels_[i].name;
    if (!levels_.empty()) p += levels_.back().element_name();
    if (!p.empty() && p.front() == '.') p.erase(0, 1);
    return p.empty() ? "the top level" : p;
  }

 private:
  // An open object or array.
  struct Level {
    bool array = false;
    std::string name;       // ".key" or "[index]": this level in its parent
    std::string key;        // objects: the key last read
    std::size_t items = 0;  // arrays: the elements begun
    std::set<std::string> keys;

    // The element being read: ".key", or "[index]" in an array.
    std::string element_name() const { return array ? "[" + std::to_string(items) + "]" : "." + key; }
    // Its name, as it begins (an array counts it).
    std::string begin_element() {
      std::string name = element_name();
      if (array) ++items;
      return name;
    }
  };

  const std::string& source_;
  std::vector<Level> levels_;
};

nlohmann::json parse_config_text(const std::string& text, const std::string& source) {
  ParsePlace place(source);
  const nlohmann::json::parser_callback_t track = [&place](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json& parsed) {
    return place(depth, event, parsed);
  };
  try {
    return nlohmann::json::parse(text, track, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source + ": not valid JSON: " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {  // 406: a number beyond double's range (1e999)
    throw InputError(source + ": " + place.path() +
                     ": a number beyond the range of double (about +-1.8e308): " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source + ": not valid JSON: " + e.what());
  }
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
