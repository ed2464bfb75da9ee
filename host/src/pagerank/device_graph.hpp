// PageRank's in-link graph built on the device from edge arrays (internal): kernel.graph_build "device".
#pragma once

#include <cstdint>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/graph.hpp"
#include "itercl/timing.hpp"

namespace itercl::pagerank {

// The CSR formats' arrays and the out-degrees where the device built them: read instead of uploading the
// host's.
struct DeviceCsr {
  cl::Buffer offsets, sources, out_degree;
};

// The graph as in_links, then renumbered by degree_order where `degree_order` (pagerank_formats.hpp) would
// have it: the same rows in the same order, with the same counts. The host side holds everything but the
// sources (links.sources is empty; links.n_links() counts them from the offsets); `order` is the degree
// order (empty without it).
struct DeviceGraph {
  InLinks links;
  DeviceCsr csr;
  std::vector<std::int32_t> order;
};

// Uploads the edge arrays, then sorts, drops and renumbers on the device (cl/graph_build.cl,
// cl/radix_sort.cl); the phases "upload", "graph_build" and "reorder". Throws InputError as in_links.
DeviceGraph build_on_device(const Device& device, const EdgesView& edges, const LinkOptions& options, bool degree_order,
                            Timings& upload);

}  // namespace itercl::pagerank
