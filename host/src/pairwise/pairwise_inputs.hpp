// The all-pairs inputs as the devices hold them (internal): the metric as computed, the values' range
// checked, centred, rounded to the device's precision and packed column-major, and the per-vector values
// of the inner-product forms.
#pragma once

#include <vector>

#include "itercl/pairwise.hpp"
#include "itercl/rows.hpp"

namespace itercl::pairwise {

// Whether distances stay the same when both inputs are shifted alike (all but cosine and dot).
bool translation_invariant(Metric m);

// The largest |value| whose accumulated terms stay finite in `precision` over `dim` dimensions; throws
// InputError naming `name` otherwise.
void check_range(double largest, Eigen::Index dim, const char* name, Metric metric, double p, Precision precision);

// minkowski with p = 1 or 2 is cityblock or euclidean: the same values without pow's cost and rounding.
Metric effective_metric(const PairwiseParams& p);

struct Inputs {
  std::vector<unsigned char> x, y, xaux, yaux;  // in the device's precision, x and y column-major
};

// X (and Y, unless null) in the device's precision. Translation-invariant metrics see the data centred on
// X's mean before the rounding: distances do not change, their rounding error shrinks with the magnitudes
// (and the expanded form's cancellation with them). One pass over the caller's values, whatever their
// type: no intermediate copy. Throws InputError for values whose sums overflow.
Inputs pack_inputs(const RowsView& X, const RowsView* Y, Metric metric, double p, Precision precision);

// Adds the per-vector values of the inner-product forms (1 / |v| for cosine, |v|^2 otherwise) from the
// values as the device holds them. Throws InputError for an all-zero row under cosine.
void add_aux_values(Inputs& in, Eigen::Index n1, Eigen::Index n2, Eigen::Index dim, bool two_inputs, Metric metric,
                    Precision precision);

// The same per-vector values for rows already packed on the device (column-major, n x dim): |v|^2 summed
// there in the device's precision; for cosine they are read back (n values), checked for all-zero rows
// and sent as 1 / |v|.
cl::Buffer device_aux_values(const Device& device, const cl::Buffer& columns, Eigen::Index n, Eigen::Index dim,
                             Metric metric, Precision precision, const char* name);

}  // namespace itercl::pairwise
