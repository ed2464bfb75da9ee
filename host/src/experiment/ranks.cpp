#include "experiment/ranks.hpp"

#include <unistd.h>

#include <vector>

#include "core/comm.hpp"
#include "itercl/error.hpp"

namespace itercl::experiment {

std::string read_device_field(ConfigObject& top) {
  const nlohmann::json* value = top.get("device");
  if (!value || !value->is_array()) return top.string("device", "");
  std::string joined;
  if (value->empty()) top.fail("device", "expected a spec or a non-empty list of specs (one per rank), got []");
  for (const auto& s : *value) {
    if (!s.is_string() || s.get<std::string>().empty() || s.get<std::string>().find(',') != std::string::npos)
      top.fail("device", "expected a list of device specs (\"gpu\", \"cpu\", \"0:1\"), got " + value->dump());
    joined += (joined.empty() ? "" : ",") + s.get<std::string>();
  }
  return joined;
}

void check_ranks(const std::string& algorithm) {
  const core::Comm& comm = core::world();
  if (comm.several() && algorithm != "kmeans" && algorithm != "smacof")
    throw InputError("algorithm \"" + algorithm + "\" runs on one rank for now; K-Means and SMACOF run over several (" +
                     std::to_string(comm.size()) + " ranks were started: run it without mpirun, or -np 1)");
}

std::string rank_device_spec(const std::string& spec) {
  const core::Comm& comm = core::world();
  std::string mine = spec;
  if (spec.find(',') != std::string::npos) {
    std::vector<std::string> specs;
    std::size_t at = 0;
    for (std::size_t comma; (comma = spec.find(',', at)) != std::string::npos; at = comma + 1)
      specs.push_back(spec.substr(at, comma - at));
    specs.push_back(spec.substr(at));
    if (static_cast<int>(specs.size()) != comm.size())
      throw InputError("device: a list gives one spec per rank: " + std::to_string(specs.size()) + " specs (" + spec +
                       ") for " + std::to_string(comm.size()) + (comm.size() == 1 ? " rank" : " ranks"));
    mine = specs[static_cast<std::size_t>(comm.rank())];
  }
  if (mine == "gpu" && comm.several()) {
    std::vector<DeviceInfo> gpus;
    for (const DeviceInfo& d : list_devices())
      if (d.type == "gpu") gpus.push_back(d);
    if (!gpus.empty()) return spread_over_gpus(gpus.front());
  }
  return mine;
}

std::string spread_over_gpus(const DeviceInfo& chosen) {
  const core::Comm& comm = core::world();
  if (!comm.several() || chosen.type != "gpu") return chosen.id();
  std::vector<DeviceInfo> gpus;
  for (const DeviceInfo& d : list_devices())
    if (d.type == "gpu") gpus.push_back(d);
  if (gpus.empty()) return chosen.id();
  return gpus[static_cast<std::size_t>(comm.local_rank()) % gpus.size()].id();
}

nlohmann::json ranks_json(const DeviceInfo& device) {
  core::Comm& comm = core::world();
  if (!comm.several()) return nullptr;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const nlohmann::json mine = {
      {"rank", comm.rank()}, {"name", device.name}, {"id", device.id()}, {"host", std::string(host)}};
  nlohmann::json devices = nlohmann::json::array();
  for (const std::string& part : comm.allgather_bytes(mine.dump())) devices.push_back(nlohmann::json::parse(part));
  return {{"ranks", comm.size()}, {"devices", devices}};
}

bool writes_results() { return core::world().rank() == 0; }

}  // namespace itercl::experiment
