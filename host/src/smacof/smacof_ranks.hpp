// SMACOF over several MPI ranks (internal): each rank holds a block of rows of the dissimilarities
// (core::first_row's balanced split), built on its device from the vectors or read as its rows of a
// file, never the whole matrix. Per iteration each rank computes its rows of the Guttman transform and
// its part of the stress, and the ranks gather both (SmacofDevice, RowBlock). Every rank resolves the
// kernel for the whole problem, so the rows of each iterate are computed by the same operations in the
// same order as on one device: the embedding and the iterations are one process's, the stress differs
// only by the order of its additions (tolerance::ranks_stress). Packed storage (from vectors only) gives
// each rank a range of the slices instead, every row's values of some k's: the ranks add their parts of
// every row, so the embedding differs from one process's by that order too (tolerance::ranks_packed).
// Weights and a classical start from dissimilarities need the whole matrix and are refused (ParamError).
#pragma once

#include "core/comm.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_device.hpp"

namespace itercl::smacof {

// The parameters that cannot run over ranks: a classical start unless from euclidean vectors.
void check_ranks_params(const SmacofParams& p, bool from_vectors, Metric metric);

// This rank's rows [first, first + rows) of the N x N dissimilarities, read by `read` a bounded rectangle at a
// time straight to the device (never the block whole on the host), checked and symmetric
// (checked_dissimilarity_rows). Every rank calls it.
SmacofResult fit_rows_over_ranks(core::Comm& comm, const Device& device, const SmacofParams& p, const Rectangle& read,
                                 Eigen::Index first, Eigen::Index rows, Eigen::Index n);

// Every rank passes all the vectors and builds its rows of delta from them.
SmacofResult fit_vectors_over_ranks(core::Comm& comm, const Device& device, const SmacofParams& p,
                                    const RowsView& vectors, Metric metric);

// Rows [first, first + rows.rows()) x columns [first_column, first_column + rows.cols()) of an N x N
// dissimilarity matrix checked as checked_dissimilarities checks the whole, given `columns`, the
// transposed rectangle (its rows [first_column, ...) x columns [first, ...)): returns (rows + columns^T) / 2,
// the same values as the whole matrix's (D + D^T) / 2. `any_positive` is set when the rows hold a positive
// value (the whole matrix must have one).
Matrix checked_dissimilarity_rows(const Matrix& rows, const Matrix& columns, Eigen::Index first,
                                  Eigen::Index first_column, bool symmetrize, const std::vector<std::string>& names,
                                  bool& any_positive);

}  // namespace itercl::smacof
