// PageRankKernel's resolution for a device and graph, its -D options, its JSON field table, and the
// kernel file of each format (internal).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::pagerank {

struct DeviceCsr;

// What the kernel's resolution and build depend on: the graph (mean row length for csr_vector's lanes,
// the row lengths for hybrid's k) and the precision of the vectors. `csr`: the offsets and sources
// already on the device where it built them (device_graph.hpp; `links` then holds no sources).
struct Problem {
  const InLinks& links;
  Precision precision;
  const DeviceCsr* csr = nullptr;
};

// `value` must be "auto" or one of the formats; ParamError(field) listing them. The one list of
// formats, for PageRankKernel::validate and the config's params.format.
void check_format(std::string_view field, const std::string& value);

// A tuning field the format would ignore is a mistake in the config, not a no-op.
void check_fields_apply(const PageRankKernel& k);

// Whether graph_build "device" serves `format`: the CSR formats, which read the in-links as built.
bool builds_on_device(const std::string& format);

// Fills in every zero / "auto" field of `k` for this device (tuning/pagerank.json) and graph, and checks
// the rest. `sources` receives the database entries used. Of the graph it reads the row lengths alone
// (`offsets`, the in-link row pointer, in any node order): a graph held in parts over ranks resolves
// from its row pointer without its links.
PageRankKernel resolve(PageRankKernel k, const DeviceInfo& info, std::span<const std::int64_t> offsets,
                       std::vector<std::string>& sources);
inline PageRankKernel resolve(PageRankKernel k, const DeviceInfo& info, const Problem& problem,
                              std::vector<std::string>& sources) {
  return resolve(std::move(k), info, problem.links.offsets, sources);
}

// csr_adaptive's row blocks hold up to this many links per work-item (-D LINKS_PER_ITEM): each
// work-item keeps as many gathers in flight, and a block of short rows still fits local memory (4 KB
// per 256 work-items in float).
constexpr int kAdaptiveLinksPerItem = 4;

// Whether a graph of `n_links` needs 64-bit link offsets (-D OFFSET=long, cl/pagerank_links.clh): when
// its links, with a csr_adaptive block past the last, pass 2^31 - 1. ITERCL_PAGERANK_WIDE_OFFSETS=1 asks
// for them on any graph: the tests' way to run the 64-bit paths on a graph CI can hold.
bool needs_wide_offsets(std::int64_t n_links);

// The -D options every PageRank kernel file is built with (the format picks the file, not an option):
// WEIGHTED only for a weighted graph, so an unweighted one runs the kernels without a value array, and
// OFFSET=long only for wide offsets, so a graph below 2^31 links keeps its 4-byte offsets.
std::string defines(const PageRankKernel& k, Precision precision, bool weighted, bool wide_offsets);
inline std::string defines(const PageRankKernel& k, const Problem& problem) {
  return defines(k, problem.precision, problem.links.weighted(), needs_wide_offsets(problem.links.n_links()));
}
// Whether `options` (defines()) chose 64-bit offsets: the one record of that choice, so that a rank's
// engine, holding a part of the links, uploads its offsets as rank 0's options compiled them.
bool wide_offsets(const std::string& options);

// The JSON names of PageRankKernel's members, for to_json and from_json.
const std::vector<KernelField<PageRankKernel>>& fields();

// The file holding a resolved format's sums over in-links (the update is pagerank.cl for all).
const char* kernel_file(const std::string& format);

}  // namespace itercl::pagerank
