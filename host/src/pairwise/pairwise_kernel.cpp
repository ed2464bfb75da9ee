// The all-pairs kernel's tuning struct: names, checks, JSON, and its resolution from the tuning database
// (tuning/pairwise.json).
#include "pairwise/pairwise_kernel.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "itercl/error.hpp"
#include "tuning/kernel_fields.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace pairwise {

const char* const kVariants[] = {"naive", "tiled", "expanded"};

}  // namespace pairwise

void PairwiseKernel::validate() const {
  if (variant != "auto" && std::find(std::begin(pairwise::kVariants), std::end(pairwise::kVariants), variant) ==
                               std::end(pairwise::kVariants))
    throw ParamError("kernel.variant", "expected one of auto, naive, tiled, expanded; got \"" + variant + "\"");
  auto in_range = [](const char* field, int value, int high) {
    if (value < 0 || value > high)
      throw ParamError(std::string("kernel.") + field, "expected an integer from 1 to " + std::to_string(high) +
                                                           " (or 0 for the default), got " + std::to_string(value));
  };
  in_range("tile_rows", tile_rows, 1024);
  in_range("tile_cols", tile_cols, 1024);
  in_range("subtiles", subtiles, 16);
  in_range("cols_per_item", cols_per_item, 16);
  in_range("slice", slice, 4096);
}

namespace pairwise {

const std::vector<KernelField<PairwiseKernel>>& fields() {
  static const std::vector<KernelField<PairwiseKernel>> table = {{"variant", &PairwiseKernel::variant},
                                                                 {"tile_rows", &PairwiseKernel::tile_rows},
                                                                 {"tile_cols", &PairwiseKernel::tile_cols},
                                                                 {"subtiles", &PairwiseKernel::subtiles},
                                                                 {"cols_per_item", &PairwiseKernel::cols_per_item},
                                                                 {"slice", &PairwiseKernel::slice}};
  return table;
}

}  // namespace pairwise

void to_json(nlohmann::json& j, const PairwiseKernel& k) { j = kernel_fields_json(k, pairwise::fields()); }

void from_json(const nlohmann::json& j, PairwiseKernel& k) { read_kernel_fields(j, k, pairwise::fields()); }

std::ostream& operator<<(std::ostream& out, const PairwiseKernel& k) { return out << nlohmann::json(k).dump(); }

bool uses_inner_products(const PairwiseKernel& k, Metric metric) {
  return metric == Metric::cosine || metric == Metric::dot || k.variant == "expanded";
}

PairwiseKernel resolve_pairwise_kernel(PairwiseKernel k, const DeviceInfo& info, Metric metric, Precision precision,
                                       std::vector<std::string>& sources) {
  k.validate();
  const auto d = tuned_kernel<PairwiseKernel>("pairwise", info, sources, [](const PairwiseKernel& t) {
    t.validate();
    if (t.variant == "auto" || !t.tile_rows || !t.tile_cols || !t.subtiles || !t.cols_per_item || !t.slice)
      throw ParamError("pairwise", "needs variant, tile_rows, tile_cols, subtiles, cols_per_item and slice");
  });
  const bool expandable = metric == Metric::euclidean || metric == Metric::sqeuclidean;
  // A device tuned to expanded (on euclidean) still computes the other metrics, tiled.
  if (k.variant == "auto") k.variant = d.variant == "expanded" && !expandable ? "tiled" : d.variant;
  if (k.variant == "expanded" && !expandable)
    throw ParamError("kernel.variant", "expanded computes euclidean and sqeuclidean only, not " +
                                           std::string(metric_name(metric)) + "; use tiled");
  if (k.variant == "naive") {  // one entry per work-item: only the work-group shape applies
    if (k.subtiles > 1 || k.cols_per_item > 1 || k.slice)
      throw ParamError("kernel.variant",
                       "naive computes one entry per work-item and stages nothing: leave subtiles, "
                       "cols_per_item and slice unset");
    k.subtiles = k.cols_per_item = 1;
    k.slice = 0;
  }
  // The database's tile, fewer rows where the device's work-groups are smaller.
  if (!k.tile_rows)
    k.tile_rows = std::clamp<int>(static_cast<int>(info.max_work_group_size / static_cast<std::size_t>(d.tile_cols)), 1,
                                  d.tile_rows);
  if (!k.tile_cols) k.tile_cols = d.tile_cols;
  if (!k.subtiles) k.subtiles = d.subtiles;
  if (!k.cols_per_item) k.cols_per_item = d.cols_per_item;
  if (!k.slice && k.variant != "naive") k.slice = d.slice;

  const std::size_t items = static_cast<std::size_t>(k.tile_rows) * k.tile_cols;
  if (items > info.max_work_group_size)
    throw ParamError("kernel.tile_rows", "tile_rows x tile_cols = " + std::to_string(items) +
                                             " work-items exceed the device's maximum work-group of " +
                                             std::to_string(info.max_work_group_size));
  const std::size_t local =
      static_cast<std::size_t>(k.slice) *
      (static_cast<std::size_t>(k.tile_rows) * k.subtiles + static_cast<std::size_t>(k.tile_cols) * k.cols_per_item) *
      real_size(precision);
  if (local > info.local_memory)
    throw ParamError("kernel.slice", "a slice of " + std::to_string(k.slice) + " dimensions for a " +
                                         std::to_string(k.tile_rows * k.subtiles) + " x " +
                                         std::to_string(k.tile_cols * k.cols_per_item) + " tile needs " +
                                         std::to_string(local) + " bytes of local memory; the device has " +
                                         std::to_string(info.local_memory));
  return k;
}

std::string pairwise_options(const PairwiseKernel& k, Metric metric, Precision precision) {
  const bool expanded = k.variant == "expanded";
  const char* accumulate = "ACC_DOT";
  const char* finish = "FINISH_NONE";
  switch (metric) {
    case Metric::euclidean:
      accumulate = expanded ? "ACC_DOT" : "ACC_SQDIFF";
      finish = expanded ? "FINISH_EXPANDED_SQRT" : "FINISH_SQRT";
      break;
    case Metric::sqeuclidean:
      accumulate = expanded ? "ACC_DOT" : "ACC_SQDIFF";
      finish = expanded ? "FINISH_EXPANDED_SQ" : "FINISH_NONE";
      break;
    case Metric::cityblock:
      accumulate = "ACC_ABSDIFF";
      break;
    case Metric::minkowski:
      accumulate = "ACC_POWDIFF";
      finish = "FINISH_ROOT";
      break;
    case Metric::chebyshev:
      accumulate = "ACC_MAXDIFF";
      break;
    case Metric::cosine:
      finish = "FINISH_COSINE";
      break;
    case Metric::dot:
      break;
  }
  std::ostringstream o;
  o << "-D REAL=" << precision_name(precision) << " -D ACCUMULATE=" << accumulate << " -D FINISH=" << finish
    << " -D TILE_R=" << k.tile_rows << " -D TILE_C=" << k.tile_cols;
  if (k.variant != "naive")
    o << " -D SUBTILES=" << k.subtiles << " -D COLS_PER_ITEM=" << k.cols_per_item << " -D SLICE=" << k.slice;
  return o.str();
}

}  // namespace itercl
