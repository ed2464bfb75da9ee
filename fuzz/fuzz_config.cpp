// libFuzzer target: the config reader: JSON with comments, numbers beyond double, and every typed
// accessor a runner uses (integers range-checked before conversion, numbers, strings, paths, objects).
#include "core/json_text.hpp"
#include "fuzz_support.hpp"
#include "io/config.hpp"

namespace {

// Every field read every way a runner might: each accessor either returns a value or throws InputError.
void read_every_way(const nlohmann::json& object, const std::string& where, int depth) {
  if (depth > 8) return;
  for (const auto& item : object.items()) {
    const std::string key = item.key();
    const nlohmann::json& value = item.value();
    itercl::ConfigObject o(object, "fuzz.json", where);
    itercl_fuzz::run([&] { o.integer(key); });
    itercl_fuzz::run([&] { o.integer(key, 0, std::numeric_limits<int>::max()); });
    itercl_fuzz::run([&] { o.number(key); });
    itercl_fuzz::run([&] { o.boolean(key); });
    itercl_fuzz::run([&] { o.string(key); });
    itercl_fuzz::run([&] { o.path(key, "/fuzz"); });
    if (value.is_object()) read_every_way(value, where.empty() ? key : where + "." + key, depth + 1);
  }
  itercl::ConfigObject o(object, "fuzz.json", where);
  itercl_fuzz::run([&] { o.finish(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] {
    const nlohmann::json config = itercl::core::parse_json_text(text, "fuzz.json");
    if (config.is_object()) read_every_way(config, "", 0);
  });
}
