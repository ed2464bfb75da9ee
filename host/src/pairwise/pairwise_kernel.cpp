// The all-pairs kernel's parameters: checks, JSON, their resolution from the tuning database
// (tuning/pairwise.json) and the -D options they build cl/pairwise.cl with.
#include "pairwise/pairwise_kernel.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "itercl/error.hpp"
#include "pairwise/pairwise_knn.hpp"
#include "tuning/kernel_checks.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace pairwise {

// The bounds validate() holds the tuning fields to, before any device is known (resolve then checks the
// device's work-group and local memory): a tile side of up to 1024 work-items (the largest work-group of
// NVIDIA's and AMD's GPUs), up to 16 subtiles and 16 columns a work-item (cl/pairwise.cl holds their
// accumulators in registers), slices of up to 4096 dimensions.
constexpr int kMaxTileSide = 1024;
constexpr int kMaxRegisterBlock = 16;
constexpr int kMaxSlice = 4096;

}  // namespace pairwise

void PairwiseKernel::validate() const {
  // The distances' tile and form knn's, the same five fields under two prefixes.
  const auto check_tile = [](const std::string& prefix, int rows, int cols, int sub, int per_item, int slice_) {
    check_tuning_value(prefix + "tile_rows", rows, pairwise::kMaxTileSide);
    check_tuning_value(prefix + "tile_cols", cols, pairwise::kMaxTileSide);
    check_tuning_value(prefix + "subtiles", sub, pairwise::kMaxRegisterBlock);
    check_tuning_value(prefix + "cols_per_item", per_item, pairwise::kMaxRegisterBlock);
    check_tuning_value(prefix + "slice", slice_, pairwise::kMaxSlice);
  };
  check_choice("kernel.variant", variant, pairwise::kDistanceVariants);
  check_tile("kernel.", tile_rows, tile_cols, subtiles, cols_per_item, slice);
  check_choice("kernel.knn", knn, pairwise::kKnnForms);
  check_tile("kernel.knn_", knn_tile_rows, knn_tile_cols, knn_subtiles, knn_cols_per_item, knn_slice);
}

void to_json(nlohmann::json& j, const PairwiseKernel& k) {
  j = kernel_fields_json(k, pairwise::fields<PairwiseKernel>());
}

void from_json(const nlohmann::json& j, PairwiseKernel& k) {
  read_kernel_fields(j, k, pairwise::fields<PairwiseKernel>());
}

std::ostream& operator<<(std::ostream& out, const PairwiseKernel& k) { return out << nlohmann::json(k).dump(); }

namespace pairwise {

template <>
const std::vector<KernelField<PairwiseKernel>>& fields<PairwiseKernel>() {
  static const std::vector<KernelField<PairwiseKernel>> table = {
      {"variant", &PairwiseKernel::variant},
      {"tile_rows", &PairwiseKernel::tile_rows},
      {"tile_cols", &PairwiseKernel::tile_cols},
      {"subtiles", &PairwiseKernel::subtiles},
      {"cols_per_item", &PairwiseKernel::cols_per_item},
      {"slice", &PairwiseKernel::slice},
      {"knn", &PairwiseKernel::knn},
      {"knn_tile_rows", &PairwiseKernel::knn_tile_rows},
      {"knn_tile_cols", &PairwiseKernel::knn_tile_cols},
      {"knn_subtiles", &PairwiseKernel::knn_subtiles},
      {"knn_cols_per_item", &PairwiseKernel::knn_cols_per_item},
      {"knn_slice", &PairwiseKernel::knn_slice}};
  return table;
}

const DistanceVariant& distance_variant(std::string_view name) {
  for (const DistanceVariant& v : kDistanceTable)
    if (v.name == name) return v;
  throw ParamError("kernel.variant",
                   "expected one of " + choice_list(kDistanceVariants) + "; got \"" + std::string(name) + "\"");
}

const KnnForm& knn_form(std::string_view name) {
  for (const KnnForm& f : kKnnTable)
    if (f.name == name) return f;
  throw ParamError("kernel.knn", "expected one of " + choice_list(kKnnForms) + "; got \"" + std::string(name) + "\"");
}

bool uses_inner_products(const PairwiseKernel& k, Metric metric) {
  return metric == Metric::cosine || metric == Metric::dot || distance_variant(k.variant).expanded;
}

PairwiseKernel resolve(PairwiseKernel k, const DeviceInfo& info, const DistanceProblem& problem,
                       std::vector<std::string>& sources) {
  k.validate();
  const auto d = tuned_kernel<PairwiseKernel>("pairwise", info, sources, [](const PairwiseKernel& t) {
    t.validate();
    check_entry(t, fields<PairwiseKernel>(), "pairwise",
                {"variant", "knn", "tile_rows", "tile_cols", "subtiles", "cols_per_item", "slice"});
  });
  const bool expandable = problem.metric == Metric::euclidean || problem.metric == Metric::sqeuclidean;
  // Asked for by name: a variant of direct sums, whose knn search is then not fused in the expanded form.
  const bool direct_sums = k.variant != "auto" && !distance_variant(k.variant).expanded;
  // A device tuned to an expanded variant (on euclidean) still computes the other metrics, tiled (its
  // register tile in direct sums).
  if (k.variant == "auto") {
    k.variant = d.variant;
    if (distance_variant(k.variant).expanded && !expandable)
      for (const DistanceVariant& v : kDistanceTable)
        if (v.register_tile && !v.expanded) {
          k.variant = v.name;
          break;
        }
  }
  const DistanceVariant& variant = distance_variant(k.variant);
  if (variant.expanded && !expandable)
    throw ParamError("kernel.variant", k.variant + " computes euclidean and sqeuclidean only, not " +
                                           std::string(metric_name(problem.metric)) + "; use tiled");
  if (!variant.register_tile) {  // one entry per work-item: only the work-group shape applies
    if (k.subtiles > 1 || k.cols_per_item > 1 || k.slice)
      throw ParamError("kernel.variant", k.variant +
                                             " computes one entry per work-item and stages nothing: leave subtiles, "
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
  if (!k.slice && variant.register_tile) k.slice = d.slice;

  check_device_work_group("kernel.tile_rows x tile_cols", static_cast<long long>(k.tile_rows) * k.tile_cols, info);
  resolve_knn(k, d, expandable && !direct_sums, problem, info);
  const std::size_t local =
      static_cast<std::size_t>(k.slice) *
      (static_cast<std::size_t>(k.tile_rows) * k.subtiles + static_cast<std::size_t>(k.tile_cols) * k.cols_per_item) *
      real_size(problem.precision);
  if (local > info.local_memory)
    throw ParamError("kernel.slice", "a slice of " + std::to_string(k.slice) + " dimensions for a " +
                                         std::to_string(k.tile_rows * k.subtiles) + " x " +
                                         std::to_string(k.tile_cols * k.cols_per_item) + " tile needs " +
                                         std::to_string(local) + " bytes of local memory; the device has " +
                                         std::to_string(info.local_memory));
  return k;
}

std::string defines(const PairwiseKernel& k, const DistanceProblem& problem) {
  const bool expanded = distance_variant(k.variant).expanded;
  const char* accumulate = "ACC_DOT";
  const char* finish = "FINISH_NONE";
  switch (problem.metric) {
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
  Defines o(problem.precision);
  o.add("ACCUMULATE", accumulate).add("FINISH", finish).add("TILE_R", k.tile_rows).add("TILE_C", k.tile_cols);
  if (distance_variant(k.variant).register_tile)
    o.add("SUBTILES", k.subtiles).add("COLS_PER_ITEM", k.cols_per_item).add("SLICE", k.slice);
  return o.str();
}

}  // namespace pairwise
}  // namespace itercl
