// The communicator of one rank (no mpirun): collectives leave values as they are; rows split over ranks; a
// caller's communicator refused without MPI.
#include <doctest/doctest.h>

#include <vector>

#include "core/comm.hpp"
#include "itercl/error.hpp"
#include "itercl/mpi.hpp"

namespace core_tests {

TEST_CASE("rows split over ranks cover every row once, differing by at most one") {
  for (std::size_t n : {0, 1, 2, 5, 7, 3001}) {
    for (int p : {1, 2, 3, 8}) {
      CHECK(itercl::core::first_row(n, 0, p) == 0);
      CHECK(itercl::core::first_row(n, p, p) == n);
      for (int r = 0; r < p; ++r) {
        const std::size_t rows = itercl::core::first_row(n, r + 1, p) - itercl::core::first_row(n, r, p);
        CHECK(rows >= n / static_cast<std::size_t>(p));
        CHECK(rows <= n / static_cast<std::size_t>(p) + 1);
      }
    }
  }
  // No overflow of n r for n near 2^63.
  const std::size_t big = std::size_t{1} << 62;
  CHECK(itercl::core::first_row(big, 1, 4) == big / 4);
}

TEST_CASE("one rank: the collectives return this rank's values") {
  itercl::core::Comm one;
  CHECK(one.size() == 1);
  CHECK_FALSE(one.several());
  std::vector<double> v{1.5, 2.5};
  one.allreduce_sum(v);
  CHECK(v == std::vector<double>{1.5, 2.5});
  const std::vector<int> mine{3, 4};
  CHECK(one.allgatherv<int>(mine) == mine);
  CHECK(one.gatherv<int>(mine) == mine);
  CHECK(one.scatterv<int>(mine, {2}) == mine);
  CHECK(one.alltoallv<int>(mine, {2}) == mine);
  std::vector<std::int32_t> counts{5, 0, 7};
  one.allreduce_sum(std::span<std::int32_t>(counts));
  CHECK(counts == std::vector<std::int32_t>{5, 0, 7});
  double x = 7;
  one.broadcast(x);
  CHECK(x == 7);
  CHECK(one.seconds() == 0);
  const itercl::core::Comm::RowsPlace place = one.place_rows(42);
  CHECK(place.first == 0);
  CHECK(place.total == 42);
}

TEST_CASE("a caller's communicator needs MPI, initialised by the caller") {
  // This process never initialised MPI (no mpirun, no mpi4py): a clear error, not a crash in MPI.
  CHECK_THROWS_WITH_AS(itercl::Ranks(0), doctest::Contains("MPI"), itercl::RuntimeError);
}

}  // namespace core_tests
