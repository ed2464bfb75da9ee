// Tuned kernel parameters per device: a JSON database, one file per kernel family (tuning/<kernel>.json,
// built into the library), looked up from general to specific.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"

namespace itercl {

struct TunedParameters {
  nlohmann::json values = nlohmann::json::object();  // the merged tuning fields
  std::vector<std::string> sources;                  // entries applied, general to specific
};

// The parameters for `kernel` on this device: the entries "default", "types/<type>",
// "vendors/<vendor>/<type>" and "devices/<name>" merged in that order, each overriding the fields it
// names. Entries in $ITERCL_TUNING_DIR/<kernel>.json (what `itercl tune` wrote) override the built-in
// database's. Metadata keys of an entry ("tuned": how `itercl tune` measured it; "why": the evidence
// behind a hand-set value) are not tuning fields and are left out.
// Throws RuntimeError if a database file is not valid JSON.
TunedParameters tuned_parameters(std::string_view kernel, const DeviceInfo& info);

// Stores `entry` as devices/<info.name> of <folder>/<kernel>.json, creating the file (from the built-in
// database) or updating it; written atomically.
void store_tuned_parameters(const std::filesystem::path& folder, std::string_view kernel, const DeviceInfo& info,
                            const nlohmann::json& entry);

}  // namespace itercl
