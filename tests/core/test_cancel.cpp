// Cancel through the progress callback (itercl/progress.hpp) everywhere it is called: K-Means between
// iterations, the pair-space runs between rectangles, tune between candidates, bench between cases and
// inside them.
// Each stops where the callback threw, with that exception and no result. (PageRank's and SMACOF's are
// beside their resident objects' tests.)
#include <doctest/doctest.h>

#include <fstream>

#include "itercl/bench.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans.hpp"
#include "itercl/pair_histogram.hpp"
#include "itercl/pairwise.hpp"
#include "test_support.hpp"
#include "tune/tuners.hpp"

namespace cancel_tests {

// A callback counting its calls that throws Cancelled at call `at`.
struct CancelAt {
  int at, calls = 0;
  itercl::ProgressCallback callback() {
    return [this](const itercl::ProgressEvent&) {
      if (++calls == at) throw itercl::Cancelled();
    };
  }
};

TEST_SUITE_BEGIN("cancel");

TEST_CASE("K-Means: cancelled at the 3rd iteration") {
  // Gaussian noise without clusters: 8 centroids take many iterations to settle.
  const itercl::Matrix X = test::random_matrix(2000, 2, 3);
  itercl::KMeansParams p;
  p.n_clusters = 8;
  p.init = itercl::KMeansInit::random;
  p.n_init = 2;
  p.tol = 0;
  CancelAt cancel{.at = 3};
  p.progress = cancel.callback();
  CHECK_THROWS_AS(itercl::KMeans(test::device(), p).fit(X), itercl::Cancelled);
  CHECK(cancel.calls == 3);
}

TEST_CASE("pairwise and pair histograms: cancelled as the 3rd rectangle starts") {
  const itercl::Matrix X = test::random_matrix(256, 3, 5);
  itercl::PairwiseParams pw;
  pw.block_rows = pw.block_cols = 64;  // 10 rectangles over the upper triangle
  CancelAt a{.at = 3};
  pw.progress = a.callback();
  itercl::PairwiseDistances distances({test::device()}, X, nullptr, pw);
  CHECK_THROWS_AS(distances.matrix(), itercl::Cancelled);
  CHECK(a.calls == 3);

  itercl::PairHistogramParams ph;
  ph.binning = itercl::Binning::uniform(10, 0, 5);
  ph.block = 64;
  ph.kernel.work_group_size = 64;  // the database's group may be larger than the block (256 on the H200)
  CancelAt b{.at = 3};
  ph.progress = b.callback();
  CHECK_THROWS_AS(itercl::PairHistogram({test::device()}, X, ph).run(), itercl::Cancelled);
  CHECK(b.calls == 3);
}

TEST_CASE("tune: cancelled as the 2nd candidate starts; it is not recorded as rejected") {
  itercl::TuneReport report;
  report.kernel = "kmeans";
  itercl::TuneOptions options;
  CancelAt cancel{.at = 2};
  options.progress = cancel.callback();
  int evaluated = 0;
  auto evaluate = [&](itercl::TuneCandidate& c) {
    ++evaluated;
    c.median_ms = 1;
  };
  itercl::add_candidate(report, options, 3, {{"name", "first"}}, evaluate);
  CHECK_THROWS_AS(itercl::add_candidate(report, options, 3, {{"name", "second"}}, evaluate), itercl::Cancelled);
  CHECK(evaluated == 1);
  CHECK(report.candidates.size() == 1);
}

// A suite of three K-Means cases of 2 iterations each.
std::filesystem::path kmeans_suite(const test::TempDir& dir) {
  const nlohmann::json suite = {
      {"name", "cancelled"},
      {"devices", {test::device().info().id()}},
      {"warmup", 0},
      {"repeat", 1},
      {"experiment",
       {{"algorithm", "kmeans"},
        {"data", {{"generator", "uniform"}, {"n_features", 2}, {"random_state", 1}}},
        {"params", {{"n_clusters", 3}, {"init", "random"}, {"n_init", 1}, {"max_iter", 2}, {"tol", 0}}}}},
      {"groups", {{{"name", "sizes"}, {"vary", {{"data.n_samples", {100, 200, 300}}}}}}}};
  std::ofstream(dir / "suite.json") << suite.dump();
  return dir / "suite.json";
}

TEST_CASE("bench: cancelled as the 2nd case starts, writing no results") {
  test::TempDir dir;
  itercl::BenchOptions options;
  options.output = dir / "out" / "cancelled.json";
  options.peers = false;
  int finished = 0, cases = 0, iterations = 0;
  options.log = [&](const std::string&) { ++finished; };
  options.progress = [&](const itercl::ProgressEvent& e) {
    if (e.step != "case") {
      ++iterations;
    } else if (++cases == 2) {
      throw itercl::Cancelled();
    }
  };
  CHECK_THROWS_AS(itercl::run_bench_file(kmeans_suite(dir), options), itercl::Cancelled);
  CHECK(cases == 2);
  CHECK(iterations == 2);  // the first case's two iterations reached the callback
  CHECK(finished == 1);
  CHECK_FALSE(std::filesystem::exists(options.output));
}

TEST_CASE("bench: cancelled inside a case, at its 2nd iteration, writing no results") {
  test::TempDir dir;
  itercl::BenchOptions options;
  options.output = dir / "out" / "cancelled.json";
  options.peers = false;
  int finished = 0, calls = 0;
  options.log = [&](const std::string&) { ++finished; };
  options.progress = [&](const itercl::ProgressEvent& e) {
    ++calls;
    if (e.step == "iteration" && e.iteration == 2) throw itercl::Cancelled();
  };
  CHECK_THROWS_AS(itercl::run_bench_file(kmeans_suite(dir), options), itercl::Cancelled);
  CHECK(calls == 3);     // the case's start, its 1st and its 2nd iteration
  CHECK(finished == 0);  // not recorded as a failed case: the bench stopped
  CHECK_FALSE(std::filesystem::exists(options.output));
}

TEST_SUITE_END();

}  // namespace cancel_tests
