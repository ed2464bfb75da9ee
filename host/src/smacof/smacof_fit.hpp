// The SMACOF runs over a device holding the dissimilarities (internal; smacof.cpp), for
// SmacofDissimilarities and the runs over ranks, and the input checks both make.
#pragma once

#include "itercl/smacof.hpp"
#include "smacof/smacof_device.hpp"

namespace itercl::smacof {

// The checks every run makes, on one device or over ranks (smacof_dissimilarities.cpp): `largest` keeps
// float's stress finite; a given start has N rows; vectors are finite, not all one point, and in range.
void check_range(double largest, Eigen::Index n, Precision p, const char* what);
void check_init(const SmacofParams& p, Eigen::Index n);
void check_vectors(const RowsView& vectors, Metric metric, const SmacofParams& p);
Problem vectors_problem(const SmacofParams& p, Eigen::Index n, Eigen::Index features, Metric metric, bool weighted);

// p.n_init runs from p.init (`classical`: the classical start, for init == classical); the lowest final
// stress wins.
SmacofResult fit_on(SmacofDevice& device, const SmacofParams& p, Eigen::Index n, const Matrix& classical);

}  // namespace itercl::smacof
