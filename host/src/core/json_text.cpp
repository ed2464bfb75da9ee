#include "core/json_text.hpp"

#include <set>
#include <string>
#include <vector>

#include "itercl/error.hpp"

namespace itercl::core {

// Where the parser is in a JSON text, as a config's field path ("params.kernel.work_group_size",
// "groups[2].name"), and the keys each open object holds so far. It bounds the nesting, since
// nlohmann::json's dump and comparisons recurse (a config 100,000 deep overflowed the stack), and
// refuses a key repeated in one object, which nlohmann::json would keep as "last wins" (RFC 8259 leaves
// it undefined; a config that names a field twice has one value nobody meant).
class ParsePlace {
 public:
  explicit ParsePlace(const std::string& source) : source_(source) {}

  // Called by nlohmann::json::parse at each event; throws InputError for a repeated key or a nesting
  // beyond kMaxJsonDepth.
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (levels_.size() == kMaxJsonDepth) {
          std::string at = path();
          if (at.size() > 60) at = at.substr(0, 60) + "...";
          throw InputError(source_ + ": objects and arrays nested deeper than " + std::to_string(kMaxJsonDepth) +
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

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
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

}  // namespace itercl::core
