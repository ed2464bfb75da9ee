// JSON text read strictly (internal): the config reader (io), the tuning database (tuning) and a suite's
// records (bench) all read their JSON through this one parser, so each refuses the same mistakes.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace itercl::core {

// How deep objects and arrays may nest (serde_json's default limit): far more than any config needs,
// and shallow enough for nlohmann::json's recursive dump and comparisons.
inline constexpr std::size_t kMaxJsonDepth = 128;

// `text` as JSON (comments allowed). Invalid JSON, a nesting deeper than kMaxJsonDepth, a key repeated in
// one object and a number beyond double's range (1e999) are InputErrors naming `source` (and, for the key
// and the number, the field's path).
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

}  // namespace itercl::core
