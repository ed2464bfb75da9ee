// All-pairs distances D[i, j] = F(X[i], Y[j]) (seed 001) on one device or several at once (seed 003):
// the pair space is cut into rectangles that stream to a sink (memory, a .npy file, a reduction) while
// the next one computes. With one input only pairs i < j are computed and D is symmetric.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/device_rows.hpp"
#include "itercl/matrix.hpp"
#include "itercl/metric.hpp"
#include "itercl/progress.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// The all-pairs kernel's variant and tuning (cl/pairwise.cl). Unset fields ("auto", 0:
// itercl/kernel_choice.hpp) take the tuned value for the device (tuning/pairwise.json, itercl/tuning.hpp)
// and metric; PairwiseDistances::kernel() reports the values used.
struct PairwiseKernel {
  // "naive" (one entry per work-item, the reference), "tiled" (seed 001's tiles, subtiles and slices),
  // "expanded" (tiled over inner products: |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, euclidean and
  // sqeuclidean only; GEMM-like, faster, with the cancellation error of that form), or "auto".
  std::string variant = "auto";
  // form knn, with each row's selection fused into the distance computation (euclidean and sqeuclidean, in
  // the expanded form; cl/pairwise_knn.cl): "fused" (the tiles' register blocks, any dimension), "rows"
  // (each work-item's rows held in registers, the columns broadcast: few dimensions); or "tiles" (the
  // tiles of `variant` written out, then reduced), or "auto".
  std::string knn = "auto";
  int tile_rows = 0;      // r: work-items along the rows of a tile
  int tile_cols = 0;      // c: work-items along its columns
  int subtiles = 0;       // s: subtiles of r rows per tile, their accumulators held in registers
  int cols_per_item = 0;  // columns per work-item (1 is the seed's tile shape)
  int slice = 0;          // d': dimensions staged in local memory at a time
  // Their own tile, the same five numbers: the lists of nearest so far take registers that the distances'
  // tile does not need. fused: knn_subtiles and knn_cols_per_item multiples of 4. rows: knn_tile_rows
  // work-items a group, knn_tile_cols 1, knn_subtiles rows a work-item, knn_cols_per_item columns a step
  // (a power of two), knn_slice unused. 0: the database's (for the form it names), else the form's own
  // default (fused 32 x 8 of 4 x 8, slice 8; rows 128 work-items of 2 rows, 4 columns a step).
  int knn_tile_rows = 0, knn_tile_cols = 0, knn_subtiles = 0, knn_cols_per_item = 0, knn_slice = 0;

  void validate() const;  // checks that need no device; throws ParamError("kernel.<field>", ...)
};
void to_json(nlohmann::json& j, const PairwiseKernel& k);
void from_json(const nlohmann::json& j, PairwiseKernel& k);  // unknown fields are ParamErrors
std::ostream& operator<<(std::ostream& out, const PairwiseKernel& k);

struct PairwiseParams {
  Metric metric = Metric::euclidean;
  double p = 2;  // minkowski's order, any p > 0 (p < 1 is allowed, as scipy allows it)
  Precision precision = Precision::f32;
  PairwiseKernel kernel;
  // Rectangle of the pair space computed and streamed at a time; 0: the whole output if it fits the
  // device's memory budget, else the largest square that does (several devices: smaller, so that each
  // gets many). With one input rectangles are square (block_cols is ignored).
  Eigen::Index block_rows = 0, block_cols = 0;
  // Several processes (MPI ranks) sharing one pair space: this one computes only its part, rectangle k
  // when k % parts == part, and the caller merges the parts (reductions: merge_reduced_parts). The
  // default rectangles are sized for the devices of all parts (about 8 each).
  int part = 0, parts = 1;
  ProgressCallback progress{};  // told as each rectangle of the pair space starts (step "rectangle")

  void validate() const;  // throws ParamError naming the field
};

// One computed rectangle D[row0 : row0 + rows, col0 : col0 + cols], in the device's precision,
// row-major with leading dimension `ld`. With one input, a rectangle off the diagonal (row0 < col0)
// stands for its mirror image too; a rectangle on the diagonal holds both triangles already.
struct PairTile {
  Eigen::Index row0, col0, rows, cols, ld;
  bool symmetric;  // one input: D[j, i] = D[i, j]
  Precision precision;
  const void* data;

  double operator()(Eigen::Index r, Eigen::Index c) const {
    const std::size_t k = static_cast<std::size_t>(r * ld + c);
    return precision == Precision::f32 ? static_cast<const float*>(data)[k] : static_cast<const double*>(data)[k];
  }
};

// Receives every rectangle once, from the thread of the device that computed it: rectangles can
// arrive concurrently and in any order, so a sink writes disjoint places or locks.
using PairSink = std::function<void(const PairTile&)>;

struct DeviceShare {
  std::string device;  // "name (P:D)", and "#k" for a second worker on the same device
  int rectangles = 0;
  double pairs = 0;  // entries of D computed (mirrored ones not counted)
  Timings timings;   // its kernels, its transfers, the sink's time on its thread, its wall time
};

struct PairwiseRun {
  PairwiseKernel kernel;                    // resolved (for the first device)
  std::vector<std::string> tuning_sources;  // the tuning database entries used (for the first device)
  std::string build_options;
  Eigen::Index block_rows = 0, block_cols = 0;
  double pairs = 0;  // distinct entries computed: n (n - 1) / 2 + n for one input, n1 n2 for two
  std::vector<DeviceShare> shares;
  Timings upload;  // inputs to every device
  Timings total;   // the rectangles' kernels and transfers summed over devices; wall of the whole run
};

// D reduced on the device, rectangle by rectangle, so that only the reduced values reach the host (issue
// 5). With one input the self-pair i == j is left out, as pdist does.
struct PairwiseReduction {
  // "row_min", "row_max" (per row of D: the value and its column), "row_sum", "knn" (per row: the k
  // smallest values and their columns, ascending) or "threshold" (every pair with D <= threshold).
  std::string form = "row_min";
  int k = 1;             // knn: 1 to 64, at most the candidates per row (n2, or n - 1 for one input)
  double threshold = 0;  // threshold: any finite value

  void validate() const;  // throws ParamError("form" / "k" / "threshold", ...)
};

struct NearPair {
  std::int64_t i, j;
  double d;
};

// Equal values: the lower column wins, so the result does not depend on rectangles or devices (sums
// excepted, which each rectangle adds in the device's precision).
struct ReducedDistances {
  Eigen::Index width = 0;             // values per row: 1 (row_*), k (knn), 0 (threshold)
  std::vector<double> values;         // rows x width, row-major: min, max, sum, or the k nearest
  std::vector<std::int64_t> indices;  // the same shape: their columns (empty for row_sum)
  std::vector<NearPair> pairs;        // threshold: sorted by (i, j); one input: i < j only
};

class PairwiseDistances {
 public:
  // Uploads X (and Y: nullptr means Y = X, one input) to each device and builds the kernel. Several
  // devices (or the same device twice) share the rectangles dynamically. Throws InputError for data
  // or parameters the devices cannot take.
  PairwiseDistances(const std::vector<Device>& devices, const Matrix& X, const Matrix* Y, PairwiseParams params);
  // The same from the caller's rows in place, float or double (itercl/rows.hpp): read once, straight
  // into the device's layout and precision, never copied into a double Matrix.
  PairwiseDistances(const std::vector<Device>& devices, const RowsView& X, const RowsView* Y, PairwiseParams params);
  // The same from rows already on `device` (itercl/device_rows.hpp; Y of X's precision and columns):
  // repacked there, never through the host. Translation-invariant metrics see them less X's first row
  // rather than its mean. Throws ParamError for a buffer of another context or too small.
  PairwiseDistances(const Device& device, const DeviceRows& X, const DeviceRows* Y, PairwiseParams params);
  ~PairwiseDistances();
  PairwiseDistances(PairwiseDistances&&) noexcept;
  PairwiseDistances& operator=(PairwiseDistances&&) noexcept;

  // Computes every rectangle and hands it to `sink`. Rethrows the first error of any device or sink.
  PairwiseRun run(const PairSink& sink);

  // The whole matrix in host memory (n1 x n2), both triangles filled for one input.
  Matrix matrix(PairwiseRun* run = nullptr);

  // D reduced on the devices after each rectangle's distances, merged on the host.
  ReducedDistances reduce(const PairwiseReduction& reduction, PairwiseRun* run = nullptr);

  const PairwiseKernel& kernel() const;
  const std::string& build_options() const;
  Eigen::Index rows() const;
  Eigen::Index cols() const;
  bool symmetric() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The reductions of several parts of one pair space (PairwiseParams::part), each over all `rows`,
// merged as one process merges its rectangles: min, max and the k nearest exactly one process's (equal
// values: the lower column), the pairs within the threshold sorted, the sums added in the parts' order.
ReducedDistances merge_reduced_parts(const PairwiseReduction& reduction, Eigen::Index rows,
                                     const std::vector<ReducedDistances>& parts);

class Ranks;  // itercl/mpi.hpp

// This rank's rows of D over the ranks of `ranks` (itercl/mpi.hpp): every rank calls it with its own rows
// of X (all ranks' rows in rank order are X; a rank may have none), the same Y (nullptr: X with itself)
// and the same params (part and parts are set here). The ranks gather X, each computes its part of the
// pair space on its devices as `itercl run` over as many ranks does, and every entry goes to the rank
// that holds its row: `rows` x `cols` (this rank's rows of X; Y's rows, or all of X's), row-major, in
// the device's precision (f32 for Precision::f32, else f64), bit for bit one process's rows of D. `run`
// is this rank's part (its devices' shares and timings; the exchange in total.comm_s). Throws
// InputError naming the rank whose X or Y differs from the others' in columns, dtype or (Y) rows.
struct RankRowsOfDistances {
  Eigen::Index rows = 0, cols = 0;
  std::vector<float> f32;
  std::vector<double> f64;
  PairwiseRun run;
};
RankRowsOfDistances pairwise_rows_over_ranks(const Ranks& ranks, const std::vector<Device>& devices, const RowsView& X,
                                             const RowsView* Y, PairwiseParams params);

// scipy's pdist order: the index of pair (i, j), i < j, in the condensed upper triangle of n points.
inline std::size_t condensed_index(std::size_t n, std::size_t i, std::size_t j) {
  return n * i - i * (i + 1) / 2 + (j - i - 1);
}

}  // namespace itercl
