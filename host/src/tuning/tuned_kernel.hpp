// The tuning database's values for one kernel family as that family's kernel struct (internal): every
// family's resolve starts here, so a bad entry reads the same everywhere.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/error.hpp"
#include "itercl/tuning.hpp"

namespace itercl {

// The merged entries of tuning/<family>.json for this device as a K (its from_json rejects unknown
// fields); `check` throws ParamError for a field the family needs but the entries lack or give wrong.
// `sources` receives the entries used. A bad entry is a RuntimeError naming the family and the entries.
template <class K, class Check>
K tuned_kernel(std::string_view family, const DeviceInfo& info, std::vector<std::string>& sources, Check check) {
  const TunedParameters tuned = tuned_parameters(family, info);
  sources = tuned.sources;
  K k;
  try {
    from_json(tuned.values, k);
    check(k);
  } catch (const ParamError& e) {
    throw RuntimeError("tuning database, " + std::string(family) + " entries " + nlohmann::json(sources).dump() + ": " +
                       e.what());
  }
  return k;
}

}  // namespace itercl
