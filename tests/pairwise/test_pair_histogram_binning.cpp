// device_binning: which rule the device bins by, and the thresholds it reads, against the rule written
// out: evenly spaced edges and radii (within a few ulps) take the uniform rule, with thresholds exactly
// equivalent to comparing the correctly rounded root with each edge; anything else keeps the lookup.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "pairwise/pair_histogram_binning.hpp"

namespace pair_histogram_binning_tests {

using itercl::Binning;
using itercl::Precision;
using itercl::pairwise::device_binning;

std::vector<double> decimal_radii() {  // 0.05, 0.1, .. 1.0 as typed: evenly spaced only within rounding
  std::vector<double> r;
  for (int k = 1; k <= 20; ++k) r.push_back(k * 0.05);
  return r;
}

// Threshold t decides "d2 >= t exactly when sqrt(d2) > r" (strict: d = r counts within r) in precision T.
template <class T>
void check_above(double t, double r) {
  const auto x = static_cast<T>(t), e = static_cast<T>(r);
  CHECK(static_cast<double>(x) == t);
  CHECK(std::sqrt(x) > e);
  CHECK(std::sqrt(std::nextafter(x, T(0))) <= e);
}

TEST_CASE("device binning: evenly spaced radii take the uniform rule, edges 0 and the radii") {
  const std::vector<double> radii = decimal_radii();
  for (Precision prec : {Precision::f32, Precision::f64}) {
    CAPTURE(itercl::precision_name(prec));
    const auto d = device_binning(Binning::radii(radii), prec, true);
    CHECK(d.rule == Binning::Kind::uniform);
    REQUIRE(d.frame.size() == 3);
    CHECK(d.frame[0] == 0.0);
    CHECK(d.frame[1] == 1.0);
    CHECK(d.frame[2] == doctest::Approx(20.0));
    REQUIRE(d.table.size() == 22);  // 20 buckets' least d2, the least beyond the last radius, the greatest within
    CHECK(d.table[0] == 0.0);
    for (std::size_t m = 1; m <= 20; ++m) {
      CAPTURE(m);
      if (prec == Precision::f32)
        check_above<float>(d.table[m], radii[m - 1]);
      else
        check_above<double>(d.table[m], radii[m - 1]);
    }
    // The greatest d2 within the last radius, the value just below the least beyond it.
    if (prec == Precision::f32)
      CHECK(std::nextafter(static_cast<float>(d.table[21]), 2.0f) == static_cast<float>(d.table[20]));
    else
      CHECK(std::nextafter(d.table[21], 2.0) == d.table[20]);
  }
}

TEST_CASE("device binning: evenly spaced explicit edges take the uniform rule, as uniform bins do") {
  std::vector<double> edges;
  for (int k = 0; k <= 16; ++k) edges.push_back(-0.5 + k * 0.125);
  const auto even = device_binning(Binning::explicit_edges(edges), Precision::f32, true);
  const auto bins = device_binning(Binning::uniform(16, -0.5, 1.5), Precision::f32, true);
  CHECK(even.rule == Binning::Kind::uniform);
  CHECK(bins.rule == Binning::Kind::uniform);
  CHECK(even.frame == bins.frame);
  CHECK(even.table == bins.table);  // the same edges exactly: the same thresholds
}

TEST_CASE("device binning: uneven edges and radii, and a single radius, keep the lookup") {
  std::vector<double> radii = decimal_radii();
  // One radius moved by 64 ulps of float: beyond the uniform rule's margin in float and in double.
  radii[7] += 64 * std::numeric_limits<float>::epsilon();
  for (Precision prec : {Precision::f32, Precision::f64}) {
    CAPTURE(itercl::precision_name(prec));
    const auto moved = device_binning(Binning::radii(radii), prec, true);
    CHECK(moved.rule == Binning::Kind::radii);
    CHECK(moved.table.size() == 20 + 320);  // the thresholds, then 16 cells a bucket
    const auto first = device_binning(Binning::radii({0.3, 0.5, 0.7}), prec, true);  // the first bucket wider
    CHECK(first.rule == Binning::Kind::radii);
    const auto one = device_binning(Binning::radii({0.5}), prec, true);
    CHECK(one.rule == Binning::Kind::radii);
    CHECK(one.table.size() == 1);
    const auto edges = device_binning(Binning::explicit_edges({0, 1, 2, 4}), prec, true);
    CHECK(edges.rule == Binning::Kind::edges);
    CHECK(edges.table.size() == 5 + 64);
  }
  // Within the margin in float, beyond it in double: each precision decides for itself.
  radii = decimal_radii();
  radii[7] += 2 * std::numeric_limits<float>::epsilon() * 0.4;
  CHECK(device_binning(Binning::radii(radii), Precision::f32, true).rule == Binning::Kind::uniform);
  CHECK(device_binning(Binning::radii(radii), Precision::f64, true).rule == Binning::Kind::radii);
}

TEST_CASE("device binning: by the lookup, evenly spaced edges and radii keep the cells; uniform bins their place") {
  const auto radii = device_binning(Binning::radii(decimal_radii()), Precision::f32, false);
  CHECK(radii.rule == Binning::Kind::radii);
  CHECK(radii.table.size() == 20 + 320);
  std::vector<double> edges;
  for (int k = 0; k <= 16; ++k) edges.push_back(-0.5 + k * 0.125);
  CHECK(device_binning(Binning::explicit_edges(edges), Precision::f32, false).rule == Binning::Kind::edges);
  CHECK(device_binning(Binning::uniform(16, -0.5, 1.5), Precision::f32, false).rule == Binning::Kind::uniform);
}

// Every d2 of a cell, as the kernel finds its bucket from the cell's start: within `steps` of the start.
// The pairs' buckets by the thresholds written out (edges: the last lower edge <= d2; radii: the first
// radius's threshold >= d2), over 64 points of each cell and its ends.
void check_steps(const Binning& b, Precision prec) {
  const auto d = device_binning(b, prec, false);
  const int buckets = b.buckets(), thresholds = b.kind == Binning::Kind::radii ? buckets : buckets + 2;
  const int cells = static_cast<int>(d.table.size()) - thresholds;
  REQUIRE(cells > 0);
  int most = 0;
  for (int c = 0; c < cells; ++c) {
    const int start = static_cast<int>(d.table[thresholds + c]);
    for (int i = 0; i <= 64; ++i) {
      const double d2 = d.frame[0] + (c + i / 64.0) / d.frame[2];
      int bucket = 0;
      if (b.kind == Binning::Kind::radii)
        while (bucket < buckets - 1 && d2 > d.table[bucket]) ++bucket;
      else
        while (bucket < buckets - 1 && d2 >= d.table[bucket + 1]) ++bucket;
      CHECK(start <= bucket);
      most = std::max(most, bucket - start);
    }
  }
  CHECK(most <= d.steps);
  CHECK(d.steps <= most + 2);  // the rounding's slack adds a threshold below the cell and one above, here
}

TEST_CASE("device binning: the lookup's steps bound every cell's, for even, uneven and logarithmic radii and edges") {
  std::vector<double> uneven = decimal_radii(), log_radii, edges;
  for (std::size_t k = 0; k < uneven.size(); k += 3) uneven[k] += 0.01;
  for (int k = 0; k < 20; ++k) log_radii.push_back(0.001 * std::pow(1000.0, k / 19.0));
  for (int k = 0; k <= 50; ++k) edges.push_back(0.5 + k * k * 0.01);
  for (Precision prec : {Precision::f32, Precision::f64}) {
    CAPTURE(itercl::precision_name(prec));
    check_steps(Binning::radii(decimal_radii()), prec);
    check_steps(Binning::radii(uneven), prec);
    check_steps(Binning::radii(log_radii), prec);
    check_steps(Binning::explicit_edges(edges), prec);
    // 16 cells a bucket: one step for radii as even as these, many near 0 for logarithmic ones
    CHECK(device_binning(Binning::radii(decimal_radii()), prec, false).steps == 1);
    CHECK(device_binning(Binning::radii(uneven), prec, false).steps == 1);
    CHECK(device_binning(Binning::radii(log_radii), prec, false).steps > 4);
  }
}

// The guard, 64 eps (max(|lo|, |hi|) inv_width + bins), against a quarter of a bucket: in float about
// 16,400 bins over [0, hi] reach it (64 eps 2 bins = 1/4), in double none of any size the kernel takes.
TEST_CASE("device binning: the uniform rule walks the thresholds only where x may be off by half a bucket") {
  using itercl::pairwise::uniform_walk;
  auto walks = [](int bins, double lo, double hi, Precision p) {
    return uniform_walk(device_binning(Binning::uniform(bins, lo, hi), p, true), bins, p);
  };
  CHECK_FALSE(walks(256, 0, std::sqrt(3.0), Precision::f32));
  CHECK_FALSE(walks(16000, 0, 1, Precision::f32));
  CHECK(walks(17000, 0, 1, Precision::f32));
  CHECK(walks(40000, 0, 7 * std::sqrt(3.0), Precision::f32));
  CHECK_FALSE(walks(1 << 24, 0, 1, Precision::f64));
  // a span far from 0 needs the walk with fewer bins: lo's magnitude is in the guard
  CHECK_FALSE(walks(256, 0, 1, Precision::f32));
  CHECK(walks(256, 1000, 1001, Precision::f32));
  // the lookup's rules take no place
  CHECK_FALSE(uniform_walk(device_binning(Binning::radii({0.5, 0.7, 2.0}), Precision::f32, true), 3, Precision::f32));
}

}  // namespace pair_histogram_binning_tests
