// 2-body statistics of seed 000 on the device: the spatial distance histogram of all pairs i < j
// (numpy.histogram's bins and range, or explicit edges), the radial distribution function g(r) derived
// from it, and pair counts within radii (the 2-point correlation's counts); in a periodic box with the
// minimum-image convention if one is given. Counts are exact 64-bit integers.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "itercl/mpi.hpp"
#include "itercl/pairwise.hpp"
#include "itercl/progress.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// The histogram kernel's variant and tuning (cl/pair_histogram.cl). Unset fields ("auto", 0:
// itercl/kernel_choice.hpp) take the tuned value for the device (tuning/pair_histogram.json,
// itercl/tuning.hpp).
struct PairHistogramKernel {
  // "naive" (global atomics per pair), "tiled" (a block of points in local memory, global atomics),
  // "private_hist" (a histogram per work-group in local memory, merged by a second kernel),
  // "private_hist_balanced" (plus the load-balanced intra-block pairs of seed 000, section IV-E), or
  // "auto": the database's variant (private_hist_balanced by default), tiled where a private histogram
  // does not fit local memory.
  std::string variant = "auto";
  // Uniform bins: "guarded" (a pair's floor((d - lo) / width) taken as it is unless the rounding could
  // put it across an edge, the thresholds read only then) or "corrected" (every pair's floor corrected
  // against the thresholds, as numpy does); both give numpy's bucket. "auto": the database's.
  std::string uniform_check = "auto";
  // Explicit edges or radii evenly spaced within a few ulps: "place" (the bucket from the distance's
  // place among them, as uniform bins find it) or "lookup" (the cells' lookup that uneven edges take); both
  // give numpy's bucket. "auto": the database's.
  std::string even_edges = "auto";
  int work_group_size = 0;      // points per staged block (the seed's B)
  int global_counter_bits = 0;  // 64 (cl_khr_int64_base_atomics) or 32; 0: 64 where the device has it
  // Private variants: copies of the group's histogram in local memory, a power of two up to the
  // work-group (each work-item its own: no atomics); 0: the database's, halved until they fit.
  int replicas = 0;
  // Copies of the edge table (thresholds and lookup cells) staged in local memory, a power of two up to
  // the work-group, each work-item reading copy t % table_copies; 0: the database's, halved until they fit.
  int table_copies = 0;
  // Tiled and private variants: a rectangle's columns are split among work-groups until its launch has
  // this many work-groups per compute unit (1: a group per anchor block wherever the rectangle has one a
  // unit); 0: the database's.
  int groups_per_unit = 0;

  void validate() const;  // throws ParamError("kernel.<field>", ...)
};
void to_json(nlohmann::json& j, const PairHistogramKernel& k);
void from_json(const nlohmann::json& j, PairHistogramKernel& k);
std::ostream& operator<<(std::ostream& out, const PairHistogramKernel& k);

// The buckets: numpy.histogram's `bins` equal bins over `range` (the last bin closed), explicit
// increasing `edges` (n + 1 of them for n bins, the last bin closed), or `radii` (pair_counts: the
// pairs with distance <= each radius).
struct Binning {
  enum class Kind { uniform, edges, radii };
  Kind kind = Kind::uniform;
  int bins = 10;
  double lo = 0, hi = 1;      // uniform
  std::vector<double> edges;  // edges, or the radii

  static Binning uniform(int bins, double lo, double hi) { return {Kind::uniform, bins, lo, hi, {}}; }
  static Binning explicit_edges(std::vector<double> e) { return {Kind::edges, 0, 0, 0, std::move(e)}; }
  static Binning radii(std::vector<double> r) { return {Kind::radii, 0, 0, 0, std::move(r)}; }
  int buckets() const;
  std::vector<double> bucket_edges() const;  // uniform: numpy's linspace(lo, hi, bins + 1); else the given
  void validate() const;                     // throws ParamError naming bins, range, edges or radii
};

struct PairHistogramParams {
  Binning binning;
  std::vector<double> box;  // side lengths of a periodic box, one per coordinate; empty: not periodic
  Precision precision = Precision::f32;
  PairHistogramKernel kernel;
  Eigen::Index block = 0;  // side of the pair space's rectangles; 0: by the counters' limits and devices
  // Several processes (MPI ranks) sharing one histogram: this one counts only its part, rectangle k of the
  // pair space when k % parts == part, and the caller adds the counts of all parts. The default sizes
  // rectangles for the devices of all parts (about 8 each).
  int part = 0, parts = 1;
  ProgressCallback progress{};  // told as each rectangle of the pair space starts (step "rectangle")

  void validate(Eigen::Index dim) const;
};

struct PairHistogramResult {
  std::vector<std::uint64_t> counts;        // per bucket; for radii, the pairs within each radius (cumulative)
  std::vector<double> edges;                // the bucket edges (radii: the radii)
  double pairs = 0;                         // n (n - 1) / 2, every pair looked at
  PairHistogramKernel kernel;               // resolved (for the first device)
  std::vector<std::string> tuning_sources;  // the tuning database entries used (for the first device)
  std::string build_options;
  Eigen::Index block = 0;
  std::vector<DeviceShare> shares;
  Timings upload, total;
};

class PairHistogram {
 public:
  // Uploads the points (rows, any number of coordinates; 1-3 is typical) to each device and builds the
  // kernels. Throws InputError for data or parameters the devices cannot take.
  PairHistogram(const std::vector<Device>& devices, const Matrix& points, PairHistogramParams params);
  ~PairHistogram();
  PairHistogram(PairHistogram&&) noexcept;
  PairHistogram& operator=(PairHistogram&&) noexcept;

  PairHistogramResult run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Over the ranks of `ranks` (itercl/mpi.hpp): every rank calls it with its own rows of the points (all
// ranks' rows in rank order are the points) and the same params (part and parts are set here). The ranks
// gather the points, each counts its part of the pair space on its devices, as `itercl run` over as many
// ranks, and every rank gets the counts of all (exact), with its own devices' shares and timings.
PairHistogramResult pair_histogram_over_ranks(const Ranks& ranks, const std::vector<Device>& devices,
                                              const Matrix& points, PairHistogramParams params);

// g(r) of a histogram over `edges` of the pairs of n points in volume V, in `dim` dimensions: each bin's
// count over the count an ideal gas of the same density gives, n (n - 1) / 2 times the shell's volume / V.
std::vector<double> radial_distribution(const std::vector<std::uint64_t>& counts, const std::vector<double>& edges,
                                        Eigen::Index n, double volume, Eigen::Index dim);

}  // namespace itercl
