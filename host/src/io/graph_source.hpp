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
};
GraphInput read_graph(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description);

// One value per node of `g`, by node index, from a JSON object {"<node id>": value, ...} or a file of
// "node value" lines (CSV or whitespace, a header allowed). Nodes not named get 0 (as networkx's
// personalization dict). Empty if the field is absent.
std::vector<double> read_node_values(ConfigObject& section, const std::string& field, const std::filesystem::path& base,
                                     const Graph& g);

}  // namespace itercl
