// The "data" section of a config for algorithms whose input is a graph, and per-node values keyed by
// the input's node ids (internal).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "itercl/graph.hpp"

namespace itercl {

// Either a file {"path", "format", "header"} or a generator {"generator": "rmat" | "barabasi_albert",
// ...}, plus {"self_loops", "duplicates"} for which edges become links. `description` receives the
// source, the counts and the load time.
struct GraphInput {
  Graph graph;
  LinkOptions links;
  // Lines for the run's summary on how a file's first line was read: skipped as a header, or read as an
  // edge that looks like node and edge counts. Empty otherwise.
  std::string notes;
};
// Part r of P of a graph's edges: [m r / P, m (r + 1) / P) of its m (core::first_row).
struct GraphPart {
  int index = 0, parts = 1;
};
// `part`: a generator that draws any edge on its own (drawn_in_parts) draws this part of the edges
// alone, `graph` then holding them with the whole graph's n_nodes (`description`'s counts are the
// whole graph's); a file or another generator ignores it (read it on one rank).
GraphInput read_graph(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description,
                      GraphPart part = {});
// Whether `data` names a generator that can draw a part of the edges (R-MAT).
bool drawn_in_parts(ConfigObject& data);

// One value per node of `g`, by node index, from a JSON object {"<node id>": value, ...} or a file of
// "node value" lines (CSV or whitespace, a header allowed). Nodes not named get 0 (as networkx's
// personalization dict). Empty if the field is absent.
std::vector<double> read_node_values(ConfigObject& section, const std::string& field, const std::filesystem::path& base,
                                     const Graph& g);

}  // namespace itercl
