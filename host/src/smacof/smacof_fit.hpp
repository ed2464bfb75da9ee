// The SMACOF runs over a device holding the dissimilarities (internal; smacof.cpp), for
// SmacofDissimilarities.
#pragma once

#include "itercl/smacof.hpp"
#include "smacof/smacof_device.hpp"

namespace itercl::smacof {

// p.n_init runs from p.init (`classical`: the classical start, for init == classical); the lowest final
// stress wins.
SmacofResult fit_on(SmacofDevice& device, const SmacofParams& p, Eigen::Index n, const Matrix& classical);

}  // namespace itercl::smacof
