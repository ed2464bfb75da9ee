#include "itercl/metric.hpp"

#include <string>

#include "itercl/error.hpp"

namespace itercl {
namespace core {

struct MetricName {
  Metric metric;
  const char* name;
};
constexpr MetricName kMetrics[] = {{Metric::euclidean, "euclidean"},
                                   {Metric::sqeuclidean, "sqeuclidean"},
                                   {Metric::cityblock, "cityblock"},
                                   {Metric::minkowski, "minkowski"},
                                   {Metric::chebyshev, "chebyshev"},
                                   {Metric::cosine, "cosine"},
                                   {Metric::dot, "dot"}};

}  // namespace core

std::string_view metric_name(Metric m) {
  for (const auto& [metric, name] : core::kMetrics)
    if (metric == m) return name;
  return "?";
}

Metric parse_metric(std::string_view name) {
  std::string known;
  for (const auto& [metric, n] : core::kMetrics) {
    if (name == n) return metric;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  throw ParamError("metric", "expected one of " + known + "; got \"" + std::string(name) + "\"");
}

}  // namespace itercl
