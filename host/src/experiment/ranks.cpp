#include "experiment/ranks.hpp"

#include <unistd.h>

#include <cstdint>
#include <set>
#include <span>
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
  static const std::set<std::string> spread = {
      "kmeans", "smacof", "pagerank", "distance_histogram", "pair_counts", "pairwise_distances"};
  if (comm.several() && !spread.count(algorithm))
    throw InputError(
        "algorithm \"" + algorithm +
        "\" runs on one rank for now; K-Means, SMACOF, PageRank and the pairwise statistics run over several (" +
        std::to_string(comm.size()) + " ranks were started: run it without mpirun, or -np 1)");
}

void check_same_config(const nlohmann::json& as_run) {
  core::Comm& comm = core::world();
  if (!comm.several()) return;
  // The device may differ per rank (--device on each side of mpirun's ':'); nothing else may.
  nlohmann::json shared = as_run;
  shared.erase("device");
  // FNV-1a over the config as run, its keys sorted by nlohmann::json: the same bytes on every host.
  std::uint64_t digest = 14695981039346656037ULL;
  for (const unsigned char c : shared.dump()) digest = (digest ^ c) * 1099511628211ULL;
  const std::vector<std::uint64_t> all = comm.allgatherv<std::uint64_t>(std::span<const std::uint64_t>(&digest, 1));
  std::string differing;
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0]) differing += (differing.empty() ? "" : ", ") + std::to_string(r);
  if (!differing.empty())
    throw InputError("config: rank" + std::string(differing.find(',') == std::string::npos ? " " : "s ") + differing +
                     " of " + std::to_string(comm.size()) +
                     " started with another config than rank 0's (algorithm, precision, data, params or output "
                     "differ, after the command line's overrides); every rank must run the same one (mpirun A : B "
                     "gives each its own)");
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

void broadcast_matrix(Matrix& m) {
  core::Comm& comm = core::world();
  std::int64_t shape[2] = {m.rows(), m.cols()};
  comm.broadcast(shape);
  if (comm.rank() != 0) m.resize(shape[0], shape[1]);
  comm.broadcast_bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(double));
}

std::vector<DeviceShare> gather_shares(const std::vector<DeviceShare>& mine) {
  core::Comm& comm = core::world();
  if (!comm.several()) return mine;
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceShare& s : mine) {
    const Timings& t = s.timings;
    out.push_back({s.device, s.rectangles, s.pairs, t.kernel_s, t.transfer_s, t.host_s, t.wall_s, t.comm_s});
  }
  std::vector<DeviceShare> all;
  const std::vector<std::string> parts = comm.gather_bytes(out.dump());
  for (std::size_t r = 0; r < parts.size(); ++r)
    for (const auto& s : nlohmann::json::parse(parts[r]))
      all.push_back({.device = "rank " + std::to_string(r) + ": " + s[0].get<std::string>(),
                     .rectangles = s[1].get<int>(),
                     .pairs = s[2].get<double>(),
                     .timings = {s[3].get<double>(), s[4].get<double>(), s[5].get<double>(), s[6].get<double>(),
                                 s[7].get<double>()}});
  return all;
}

}  // namespace itercl::experiment
