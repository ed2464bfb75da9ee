// PageRank's formats in one table, and PageRankKernel's resolution for a device and graph, its -D options
// and its JSON field table (internal).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"
#include "itercl/timing.hpp"
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

class SpmvFormat;

// Builds a format's layout of the in-links and uploads it (pagerank_spmv.hpp's make_spmv_format).
using MakeFormat = std::unique_ptr<SpmvFormat> (*)(const Device& device, const Problem& problem,
                                                   const PageRankKernel& kernel, const std::string& options,
                                                   Timings& upload);
std::unique_ptr<SpmvFormat> make_csr_format(const Device&, const Problem&, const PageRankKernel&, const std::string&,
                                            Timings&);
std::unique_ptr<SpmvFormat> make_csr_adaptive_format(const Device&, const Problem&, const PageRankKernel&,
                                                     const std::string&, Timings&);
std::unique_ptr<SpmvFormat> make_ell_format(const Device&, const Problem&, const PageRankKernel&, const std::string&,
                                            Timings&);
std::unique_ptr<SpmvFormat> make_bsr_format(const Device&, const Problem&, const PageRankKernel&, const std::string&,
                                            Timings&);
std::unique_ptr<SpmvFormat> make_hybrid_format(const Device&, const Problem&, const PageRankKernel&, const std::string&,
                                               Timings&);

// The tuner's values of a format's own field and the node orders it times (the order where it was measured
// to matter: csr_adaptive; the rest keep the input's).
inline constexpr int kTunedVectorSizes[] = {2, 8, 32};
inline constexpr int kTunedBsrWidths[] = {16, 32, 64, 128};
inline constexpr std::string_view kInputOrder[] = {"none"};
inline constexpr std::string_view kBothOrders[] = {"none", "degree"};

// One storage format (docs/pagerank.md): the kernel file holding its sums over in-links (the update is
// pagerank.cl for all) and their entry points in the order one sum runs them, the class that builds its
// layout, the tuning fields it reads besides work_group_size, its -D rule, where the graph may be built,
// whether it runs over MPI ranks, and the tuner's candidates. The config checks, resolve, the factory,
// the tuner, the runner, the tests, the CLI's help and Python (pagerank_formats()) read this table, so
// that a format is one entry here, one kernel and one class. No format needs more of a device than
// OpenCL 1.2 (csr_adaptive's local memory is checked against the device when it is built).
struct Format {
  std::string_view name;
  const char* file;
  std::array<const char*, 2> entries;  // nullptr: one kernel only
  MakeFormat make;
  std::array<std::string_view, 2> fields = {};  // PageRankKernel's JSON names; empty: none
  bool links_per_item = false;                  // -D LINKS_PER_ITEM (csr_adaptive's row blocks)
  bool device_build = false;                    // graph_build "device" serves it: it reads the in-link CSR as built
  const char* not_over_ranks = nullptr;         // why it does not run over MPI ranks; nullptr: it does
  // Tuned by `itercl tune pagerank`, with the values of fields[0] (`tuned_member`, that field's member;
  // nullptr: none swept) and the node orders it times. hybrid is not: part of its sum runs on the host,
  // outside the OpenCL event times every candidate is compared by.
  bool tuned = false;
  int PageRankKernel::*tuned_member = nullptr;
  std::span<const int> tuned_values = {};
  std::span<const std::string_view> tuned_orders = {};
};
inline constexpr Format kFormatTable[] = {
    {.name = "csr_scalar",
     .file = "pagerank_csr.cl",
     .entries = {"csr_scalar"},
     .make = make_csr_format,
     .device_build = true,
     .tuned = true,
     .tuned_orders = kInputOrder},
    {.name = "csr_vector",
     .file = "pagerank_csr.cl",
     .entries = {"csr_vector"},
     .make = make_csr_format,
     .fields = {"vector_size"},
     .device_build = true,
     .tuned = true,
     .tuned_member = &PageRankKernel::vector_size,
     .tuned_values = kTunedVectorSizes,
     .tuned_orders = kInputOrder},
    {.name = "csr_adaptive",
     .file = "pagerank_csr.cl",
     .entries = {"csr_adaptive", "csr_adaptive_pieces"},
     .make = make_csr_adaptive_format,
     .links_per_item = true,
     .device_build = true,
     .tuned = true,
     .tuned_orders = kBothOrders},
    {.name = "ell",
     .file = "pagerank_ell.cl",
     .entries = {"ell"},
     .make = make_ell_format,
     .fields = {"ell_max_fill"},
     .not_over_ranks = "ell pads every row of the graph to the longest, and a rank's graph keeps all n rows (those "
                       "of the other ranks empty): each rank would store n x width slots",
     .tuned = true,
     .tuned_orders = kInputOrder},
    {.name = "hybrid",
     .file = "pagerank_ell.cl",
     .entries = {"ell_rows", "scatter_rows"},
     .make = make_hybrid_format,
     .fields = {"hybrid_k", "hybrid_rho"}},
    {.name = "bsr",
     .file = "pagerank_bsr.cl",
     .entries = {"fixed_width_sparse_row", "partial_rank_sum"},
     .make = make_bsr_format,
     .fields = {"bsr_width"},
     .tuned = true,
     .tuned_member = &PageRankKernel::bsr_width,
     .tuned_values = kTunedBsrWidths,
     .tuned_orders = kInputOrder},
};

// The table's entry of a resolved format; ParamError("kernel.format") listing the formats for another name.
const Format& format(std::string_view name);

// Whether `f` reads the tuning field of JSON name `field`.
inline bool reads(const Format& f, std::string_view field) { return f.fields[0] == field || f.fields[1] == field; }

// `value` must be "auto" or one of the formats; ParamError(field) listing them.
void check_format(std::string_view field, const std::string& value);

// A tuning field the format would ignore is a mistake in the config, not a no-op.
void check_fields_apply(const PageRankKernel& k);

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
inline const char* kernel_file(const std::string& name) { return format(name).file; }

}  // namespace itercl::pagerank
