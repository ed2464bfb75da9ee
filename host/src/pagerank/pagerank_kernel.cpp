// PageRankKernel: the format and its tuning, checked, converted to and from JSON, and resolved from the
// tuning database (tuning/pagerank.json) and the graph.
#include "pagerank/pagerank_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "tuning/kernel_checks.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {

const std::vector<std::string>& pagerank_formats() {
  static const std::vector<std::string> formats = [] {
    std::vector<std::string> names;
    for (const pagerank::Format& f : pagerank::kFormatTable) names.emplace_back(f.name);
    return names;
  }();
  return formats;
}

namespace pagerank {

const Format& format(std::string_view name) {
  for (const Format& f : kFormatTable)
    if (f.name == name) return f;
  throw ParamError("kernel.format",
                   "expected one of " + choice_list(pagerank_formats()) + "; got \"" + std::string(name) + "\"");
}

void check_format(std::string_view field, const std::string& value) { check_choice(field, value, pagerank_formats()); }

bool power_of_two(int v) { return v > 0 && std::has_single_bit(static_cast<unsigned>(v)); }

// ell_max_fill's default (docs/pagerank.md): at 10 padded slots per link ELLPACK already reads ten
// index words for each one CSR reads; a graph past it (every power-law graph here) is refused, and
// build_ell's message points to hybrid or bsr.
constexpr double kEllMaxFill = 10;

// The names of the formats `pred` holds for, for the messages that say where a misplaced field applies.
template <class Pred>
std::string formats_where(Pred pred) {
  std::string out;
  for (const Format& f : kFormatTable)
    if (pred(f)) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

void check_fields_apply(const PageRankKernel& k) {
  const Format& f = format(k.format);
  const std::pair<std::string_view, bool> set[] = {{"vector_size", k.vector_size != 0},
                                                   {"bsr_width", k.bsr_width != 0},
                                                   {"hybrid_k", k.hybrid_k != 0},
                                                   {"hybrid_rho", k.hybrid_rho != 0},
                                                   {"ell_max_fill", k.ell_max_fill != 0}};
  for (const auto& [field, is_set] : set) {
    const std::string_view name = field;
    if (is_set && !reads(f, name))
      throw ParamError(
          "kernel." + std::string(name),
          "applies to format " + formats_where([&](const Format& g) { return reads(g, name); }) + ", not " + k.format);
  }
  if (k.graph_build == "device" && !f.device_build)
    throw ParamError("kernel.graph_build", "\"device\" applies to the CSR formats (" +
                                               formats_where([](const Format& g) { return g.device_build; }) +
                                               "), not " + k.format);
}

}  // namespace pagerank

void PageRankKernel::validate() const {
  pagerank::check_format("kernel.format", format);
  check_choice("kernel.reorder", reorder, {"none", "degree"});
  check_choice("kernel.graph_build", graph_build, {"host", "device"});
  if (work_group_size != 0 && !pagerank::power_of_two(work_group_size))
    throw ParamError("kernel.work_group_size",
                     "expected a power of two (or 0 for the default), got " + std::to_string(work_group_size));
  if (vector_size != 0 && !pagerank::power_of_two(vector_size))
    throw ParamError("kernel.vector_size",
                     "expected a power of two (or 0 for the default), got " + std::to_string(vector_size));
  if (bsr_width != 0 && bsr_width < 4)
    throw ParamError("kernel.bsr_width",
                     "expected an integer >= 4 (or 0 for the default), got " + std::to_string(bsr_width));
  if (hybrid_k < 0)
    throw ParamError("kernel.hybrid_k", "expected an integer >= 1 (or \"auto\"), got " + std::to_string(hybrid_k));
  if (hybrid_rho != 0 && !(hybrid_rho > 0))
    throw ParamError("kernel.hybrid_rho",
                     "expected a number > 0 (or 0 for the default), got " + number_text(hybrid_rho));
  if (ell_max_fill != 0 && !(ell_max_fill >= 1))
    throw ParamError("kernel.ell_max_fill",
                     "expected a number >= 1 (or 0 for the default), got " + number_text(ell_max_fill));
  if (format != "auto") pagerank::check_fields_apply(*this);
}

namespace pagerank {

const std::vector<KernelField<PageRankKernel>>& fields() {
  static const std::vector<KernelField<PageRankKernel>> table = {{"format", &PageRankKernel::format},
                                                                 {"reorder", &PageRankKernel::reorder},
                                                                 {"graph_build", &PageRankKernel::graph_build},
                                                                 {"work_group_size", &PageRankKernel::work_group_size},
                                                                 {"vector_size", &PageRankKernel::vector_size},
                                                                 {"bsr_width", &PageRankKernel::bsr_width},
                                                                 {"hybrid_k", &PageRankKernel::hybrid_k, true},
                                                                 {"hybrid_rho", &PageRankKernel::hybrid_rho},
                                                                 {"ell_max_fill", &PageRankKernel::ell_max_fill}};
  return table;
}

}  // namespace pagerank

void to_json(nlohmann::json& j, const PageRankKernel& k) { j = kernel_fields_json(k, pagerank::fields()); }

void from_json(const nlohmann::json& j, PageRankKernel& k) { read_kernel_fields(j, k, pagerank::fields()); }

std::ostream& operator<<(std::ostream& out, const PageRankKernel& k) { return out << nlohmann::json(k).dump(); }

namespace pagerank {

PageRankKernel resolve(PageRankKernel k, const DeviceInfo& info, std::span<const std::int64_t> offsets,
                       std::vector<std::string>& sources) {
  k.validate();
  // The database names a default for every format's fields; each applies when its format runs.
  const auto db = tuned_kernel<PageRankKernel>("pagerank", info, sources, [](PageRankKernel t) {
    check_entry(t, fields(), "pagerank",
                {"format", "reorder", "graph_build", "work_group_size", "bsr_width", "hybrid_rho"});
    PageRankKernel{.format = t.format}.validate();
    t.format = "auto";  // the other formats' fields are checked as values, not as misplaced
    t.validate();
  });
  if (k.format == "auto") k.format = db.format;
  if (k.reorder == "auto") k.reorder = db.reorder;
  // The database's graph_build is for its own format; another format builds on the host.
  const Format& f = format(k.format);
  if (k.graph_build == "auto") k.graph_build = f.device_build ? db.graph_build : "host";
  check_fields_apply(k);

  // A power of two (validate) within the device's maximum is within its largest power of two.
  check_device_work_group("kernel.work_group_size", k.work_group_size, info);
  const auto largest = static_cast<int>(std::bit_floor(static_cast<unsigned>(info.max_work_group_size)));
  if (k.work_group_size == 0) k.work_group_size = std::min(db.work_group_size, largest);
  if (reads(f, "vector_size")) {
    if (k.vector_size == 0) k.vector_size = db.vector_size;
    // Bell and Garland's rule (CUSP): the smallest power of two covering the mean row, 2 to 32.
    if (k.vector_size == 0) {
      std::int64_t rows = 0;
      for (std::size_t i = 0; i + 1 < offsets.size(); ++i) rows += offsets[i + 1] > offsets[i];
      const std::int64_t links = offsets.empty() ? 0 : offsets.back();
      const std::int64_t mean = rows ? (links + rows - 1) / rows : 1;
      k.vector_size =
          static_cast<int>(std::clamp<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(mean)), 2, 32));
    }
    if (k.vector_size > k.work_group_size)
      throw ParamError("kernel.vector_size", std::to_string(k.vector_size) +
                                                 " work-items per row exceed the work-group of " +
                                                 std::to_string(k.work_group_size));
  }
  if (reads(f, "bsr_width") && k.bsr_width == 0) k.bsr_width = db.bsr_width;
  if (reads(f, "hybrid_k") && k.hybrid_k == 0) {
    if (k.hybrid_rho == 0) k.hybrid_rho = db.hybrid_rho;
    k.hybrid_k = auto_hybrid_k(offsets, k.hybrid_rho);
  }
  if (reads(f, "ell_max_fill") && k.ell_max_fill == 0) k.ell_max_fill = kEllMaxFill;
  return k;
}

// A csr_adaptive block's work-items index up to a block past the last link: at most this many links per
// block (kAdaptiveLinksPerItem per work-item, at most 1,024 work-items on the devices here; more is
// refused by the device's limit first).
constexpr std::int64_t kLinksPastTheEnd = std::int64_t{kAdaptiveLinksPerItem} * 4096;

bool needs_wide_offsets(std::int64_t n_links) {
  const char* forced = std::getenv("ITERCL_PAGERANK_WIDE_OFFSETS");
  return (forced && std::string_view(forced) == "1") ||
         n_links + kLinksPastTheEnd > std::numeric_limits<std::int32_t>::max();
}

std::string defines(const PageRankKernel& k, Precision precision, bool weighted, bool wide_offsets) {
  Defines d(precision);
  if (format(k.format).links_per_item) d.add("LINKS_PER_ITEM", kAdaptiveLinksPerItem);
  if (weighted) d.add("WEIGHTED", 1);
  if (wide_offsets) d.add("OFFSET", "long");
  return d.str();
}

bool wide_offsets(const std::string& options) { return options.find("-D OFFSET=long") != std::string::npos; }

}  // namespace pagerank
}  // namespace itercl
