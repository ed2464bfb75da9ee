// An experiment over several MPI ranks (internal): which algorithms run so, each rank's device, and
// what the results file records of the ranks. With one rank (a plain run, or mpirun -np 1) every
// function here leaves the run as it was.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/config.hpp"
#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "itercl/pairwise.hpp"

namespace itercl::experiment {

// The config's "device": a spec, or a list of specs (one per rank), returned joined by commas.
std::string read_device_field(ConfigObject& top);

// Refuses, with several ranks, an algorithm that runs on one rank only (InputError).
void check_ranks(const std::string& algorithm);

// Ends every rank with an InputError (exit 2) naming the ranks whose config as run (overrides applied; the
// device aside) differs from rank 0's: each rank's digest gathered on all (a collective; nothing with one
// rank). Ranks started with different configs had hung (float against double) or answered wrongly.
void check_same_config(const nlohmann::json& as_run);

// This rank's spec of `spec`: a comma-separated list gives one spec per rank (exactly one per rank);
// with several ranks, "gpu" means this rank's own GPU (its local rank modulo the GPUs of its host).
std::string rank_device_spec(const std::string& spec);
// With several ranks, a GPU chosen by "auto" (or "gpu") becomes this rank's own GPU of the same host.
std::string spread_over_gpus(const DeviceInfo& chosen);

// {"ranks": P, "devices": [{rank, name, id, host}, ...]} gathered from every rank (a collective:
// every rank calls it, after its share of the run); null with one rank.
nlohmann::json ranks_json(const DeviceInfo& device);

// Whether this rank writes the results file and the extra files: rank 0 only.
bool writes_results();

// Rank 0's matrix on every rank (a collective; the other ranks pass any, it is resized).
void broadcast_matrix(Matrix& m);

// Every rank's device shares of a pair space, on rank 0 (a collective; the other ranks get theirs back),
// each device named "rank R: ..." with several ranks.
std::vector<DeviceShare> gather_shares(const std::vector<DeviceShare>& mine);

}  // namespace itercl::experiment
