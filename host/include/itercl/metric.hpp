// Distance metrics, as scipy.spatial.distance names and defines them; `dot` is the plain inner product
// (not a distance). Shared by the all-pairs kernels and SMACOF's dissimilarities from vectors.
#pragma once

#include <string_view>

namespace itercl {

enum class Metric { euclidean, sqeuclidean, cityblock, minkowski, chebyshev, cosine, dot };
std::string_view metric_name(Metric m);
Metric parse_metric(std::string_view name);  // throws ParamError("metric", ...)

}  // namespace itercl
