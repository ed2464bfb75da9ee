// The checks every build of in-links makes of edge arrays, on the host or the device (internal).
#pragma once

#include <cstddef>
#include <cstdint>

#include "itercl/graph.hpp"

namespace itercl::core {

// InputError unless src and dst have one length and n_nodes >= 0 (their count is 64-bit: a graph may pass
// 2^31 links).
void check_edge_counts(const EdgesView& g);

// InputError naming edge e as outside 0 .. n_nodes - 1.
[[noreturn]] void throw_bad_edge(const EdgesView& g, std::size_t e);

// The bits a node id needs (at least 1): a link's sort key is (destination << bits) | source.
int node_bits(std::int32_t n_nodes);

}  // namespace itercl::core
