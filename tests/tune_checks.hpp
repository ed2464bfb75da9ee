// The checks every tuner's report must pass (device tests): each family's test runs its tuner on a tiny
// problem and hands the report here.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "itercl/error.hpp"
#include "itercl/tune.hpp"
#include "test_support.hpp"

namespace test {

// Runs `kernel`'s tuner on `problem` with one timed repeat; checks that correct candidates were timed,
// that none was wrong on this device (`wrong`: the phrase a rejection for wrong output carries), that
// the best is the fastest correct one and that the entry carries it with the "tuned" metadata.
inline itercl::TuneReport check_tune(const std::string& kernel, const nlohmann::json& problem,
                                     const std::string& wrong) {
  itercl::TuneOptions options;
  options.problem = problem;
  options.repeats = 1;
  itercl::TuneReport r = itercl::tune(kernel, device(), options);
  REQUIRE(r.candidates.size() > 1);
  for (const auto& c : r.candidates) {
    CAPTURE(c.parameters.dump());
    CAPTURE(c.rejected);
    if (c.rejected.empty()) CHECK(c.median_ms > 0);
    CHECK(c.rejected.find(wrong) == std::string::npos);
  }
  const auto& best = r.candidates[r.best];
  CHECK(best.rejected.empty());
  for (const auto& c : r.candidates)
    if (c.rejected.empty()) CHECK(best.median_ms <= c.median_ms);
  for (const auto& [field, value] : best.parameters.items()) CHECK(r.entry[field] == value);
  CHECK(r.entry["tuned"]["candidates"] == r.candidates.size());
  CHECK(r.entry["tuned"]["median_ms"] == best.median_ms);
  return r;
}

// A problem field the tuner does not know, or a bad value, is an InputError naming it.
inline void check_tune_problem_error(const std::string& kernel, const nlohmann::json& problem,
                                     const std::string& message) {
  itercl::TuneOptions options;
  options.problem = problem;
  CHECK_THROWS_WITH_AS(itercl::tune(kernel, device(), options), doctest::Contains(message.c_str()), itercl::InputError);
}

}  // namespace test
