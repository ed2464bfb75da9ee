// Tuned kernel parameters per device: a JSON database, one file per kernel family (tuning/<kernel>.json,
// built into the library), looked up from general to specific.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"

namespace itercl {

struct TunedParameters {
  nlohmann::json values = nlohmann::json::object();  // the merged tuning fields
  std::vector<std::string> sources;                  // entries applied, general to specific
};

// The per-user tuning folder, where `itercl tune` stores by default and runs look: by the XDG base
// directory convention $XDG_CONFIG_HOME/itercl/tuning, else ~/.config/itercl/tuning (tuned values are
// settings of this machine, like a config: not a cache to delete, not data a run reads as input). None
// when $ITERCL_NO_USER_TUNING is set (to anything but "0"; the tests set it, so that what a user tuned
// cannot change their outcome) or neither variable gives a folder.
std::optional<std::filesystem::path> user_tuning_dir();

// $ITERCL_TUNING_DIR (`--tuning DIR` on the command line), when set and not empty.
std::optional<std::filesystem::path> tuning_dir_override();

// The parameters for `kernel` on this device: the entries "default", "types/<type>",
// "vendors/<vendor>/<type>" and "devices/<name>" merged in that order, each overriding the fields it
// names. At each level three databases are consulted, each overriding the one before: the built-in
// one, the user's folder (user_tuning_dir()/<kernel>.json; its entries are named "user:<entry>" in
// `sources`, e.g. "user:devices/<name>"), and $ITERCL_TUNING_DIR/<kernel>.json. Metadata keys of an entry ("tuned": how
// `itercl tune` measured it; "why": the evidence behind a hand-set value) are not tuning fields and are left out.
// Throws RuntimeError if a database file is not valid JSON.
TunedParameters tuned_parameters(std::string_view kernel, const DeviceInfo& info);

// Stores `entry` as devices/<info.name> of <folder>/<kernel>.json, creating the file or updating it;
// written atomically. A new file starts from the built-in database (a copy of the repository's
// tuning/<kernel>.json, to replace it) or, with start_from_builtin false, empty (an overlay, as the
// user's folder: it then names only what was tuned here).
void store_tuned_parameters(const std::filesystem::path& folder, std::string_view kernel, const DeviceInfo& info,
                            const nlohmann::json& entry, bool start_from_builtin = true);

}  // namespace itercl
