// PageRank on real data and the seed's own example: the Balanced CSR kernels on Figure 8 (the partial
// sums template P), and web-NotreDame in every format against each other and the reference.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "reference/pagerank_reference.hpp"
#include "test_support.hpp"

namespace pagerank_tests {

using itercl::Graph;
using itercl::InLinks;

TEST_SUITE_BEGIN("pagerank");

TEST_CASE("BSR kernels on the seed's Figure 8: whole rows summed in place, page 3's pieces through P") {
  // The A that seed 004's Figure 8 layout implies (1-based rows of in-links), on 14 nodes: the printed A is
  // garbled in the text, the layout is self-consistent (see tests/pagerank/test_pagerank_formats.cpp).
  const std::vector<std::vector<int>> rows = {
      {2, 3}, {1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14}, {3, 8}, {2, 3, 5, 6, 14}};
  Graph g;
  g.n_nodes = 14;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (int j : rows[i]) g.src.push_back(j - 1), g.dst.push_back(static_cast<std::int32_t>(i));
  const InLinks L = itercl::in_links(g);
  const itercl::pagerank::BsrLayout bsr = itercl::pagerank::build_bsr(L, 8);
  REQUIRE(bsr.n_rows == 5);

  std::vector<double> z(15);
  for (std::size_t j = 0; j < 14; ++j) z[j] = 1.0 / static_cast<double>(j + 2);
  z[14] = 0;
  auto sum_of = [&](std::initializer_list<int> ids) {  // 1-based, as the figure prints them
    double s = 0;
    for (int j : ids) s += z[static_cast<std::size_t>(j - 1)];
    return s;
  };

  const itercl::Device& device = test::device();
  device.require(itercl::Precision::f64);
  const cl::Context& context = device.context();
  cl::CommandQueue& queue = device.queue();
  cl::Buffer slots(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bsr.slots.size() * 4,
                   const_cast<std::int32_t*>(bsr.slots.data()));
  cl::Buffer zb(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, z.size() * 8, z.data());
  std::vector<double> s(14, 0.0);
  cl::Buffer sb(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, s.size() * 8, s.data());
  cl::Buffer pages(context, CL_MEM_READ_WRITE, 5 * 2 * 4), sums(context, CL_MEM_READ_WRITE, 5 * 2 * 8);
  cl::Kernel rows_kernel = device.kernel("pagerank_bsr.cl", "-D REAL=double", "fixed_width_sparse_row");
  itercl::set_args(rows_kernel, 5, 8, slots, zb, sb, pages, sums);
  queue.enqueueNDRangeKernel(rows_kernel, cl::NullRange, cl::NDRange(5));
  std::vector<std::int32_t> p(10);
  std::vector<double> partial(10);
  queue.enqueueReadBuffer(pages, CL_TRUE, 0, 40, p.data());
  queue.enqueueReadBuffer(sums, CL_TRUE, 0, 80, partial.data());
  // P: BSR rows 2-4 (1-based) hold page 3 (0-based 2) and its pieces' sums; the others are empty.
  CHECK(p == std::vector<std::int32_t>{-1, -1, 2, -1, 2, -1, 2, -1, -1, -1});
  CHECK(partial[2] == doctest::Approx(sum_of({1, 2, 3, 4, 5, 6})));
  CHECK(partial[4] == doctest::Approx(sum_of({7, 8, 9, 10, 11, 13})));
  CHECK(partial[6] == doctest::Approx(sum_of({14})));

  cl::Kernel merge = device.kernel("pagerank_bsr.cl", "-D REAL=double", "partial_rank_sum");
  itercl::set_args(merge, 5, pages, sums, sb);
  queue.enqueueNDRangeKernel(merge, cl::NullRange, cl::NDRange(5));
  queue.enqueueReadBuffer(sb, CL_TRUE, 0, s.size() * 8, s.data());
  CHECK(s[0] == doctest::Approx(sum_of({2, 3})));
  CHECK(s[1] == doctest::Approx(sum_of({1})));
  CHECK(s[2] == doctest::Approx(sum_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14})));
  CHECK(s[3] == doctest::Approx(sum_of({3, 8})));
  CHECK(s[4] == doctest::Approx(sum_of({2, 3, 5, 6, 14})));
  for (std::size_t i = 5; i < 14; ++i) CHECK(s[i] == 0);
}

TEST_CASE("web-NotreDame: every format agrees to 1e-9 in L1 in double, and with the reference") {
  const auto path = test::shared_dataset("graphs/web-NotreDame.tar.gz");
  if (!path) return;
  itercl::GraphLoadOptions counts_line;  // its first line, "325729 1497134", is node and edge counts
  counts_line.header = true;
  const Graph g = itercl::load_graph(*path, counts_line);
  const InLinks links = itercl::in_links(g);
  // networkx's rule stops at ||dx||_1 < n tol, 0.33 here for tol = 1e-6 (2 iterations): a tol of
  // 1e-12 makes the formats iterate to ||dx||_1 < 3.3e-7 instead.
  const auto ref = reference::pagerank(g, 0.85, 300, 1e-12);
  REQUIRE(ref.converged);
  itercl::PageRankParams params;
  params.precision = itercl::Precision::f64;
  params.tol = 1e-12;
  params.max_iter = 300;
  std::vector<std::vector<double>> ranks;
  for (const char* format : {"csr_scalar", "csr_vector", "hybrid", "bsr"}) {
    const std::string name = format;
    CAPTURE(name);
    params.kernel = {.format = format};
    const auto r = itercl::PageRank(test::device(), params).fit(links);
    CHECK(r.converged);
    CHECK(r.n_iter == ref.n_iter);
    CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(itercl::Precision::f64));
    for (const auto& other : ranks) CHECK(reference::l1_distance(r.ranks, other) <= 1e-9);
    ranks.push_back(r.ranks);
  }
  // ELLPACK would pad 325,729 rows to the longest (10,721 in-links): refused, with the reason.
  params.kernel = {.format = "ell"};
  CHECK_THROWS_WITH_AS(itercl::PageRank(test::device(), params).fit(links),
                       doctest::Contains("to the longest (10721 in-links)"), itercl::ParamError);
}

TEST_SUITE_END();

}  // namespace pagerank_tests
