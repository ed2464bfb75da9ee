// delta cut into device buffers of whole slices (smacof_parts.hpp): the cut's arithmetic on small random
// cases, and at N = 300,000 on the H200 as its driver describes it, where every buffer's offsets pass 2^31
// (no such run fits this machine); the memory check that then refuses only what exceeds the device's
// memory, naming the ranks that would fit; packed storage cut over ranks (whole slices a rank), and chosen
// where full storage does not fit; the rectangles of a rank's rows read to its buffers.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_memory.hpp"
#include "smacof/smacof_parts.hpp"
#include "smacof/smacof_ranks.hpp"
#include "smacof/smacof_test_data.hpp"

namespace smacof_parts_tests {

namespace smacof = itercl::smacof;
using itercl::InputError;
using itercl::Matrix;
using itercl::ParamError;
using itercl::yes_no;
using itercl::YesNo;

// Every property the kernels and uploads rely on: the buffers hold the slices 0 .. slices - 1 in order,
// whole, their columns one after another; each within the cap; each as full as the cap allows; the first
// and last value of every buffer at offsets 0 and values - 1, both layouts.
void check_cut(const smacof::DeltaLayout& l, int slices, std::uint64_t real, std::uint64_t cap) {
  REQUIRE_FALSE(l.parts.empty());
  int next_slice = 0;
  std::uint64_t next_column = 0;
  const std::uint64_t slice_bytes = l.per_slice * l.column_values * real;
  for (const smacof::DeltaPart& p : l.parts) {
    CHECK(p.slice_first == next_slice);
    CHECK(p.slices >= 1);
    CHECK(p.column_first == next_column);
    CHECK(p.columns <= static_cast<std::uint64_t>(p.slices) * l.per_slice);
    CHECK(l.values(p) * real <= cap);
    if (&p != &l.parts.back()) CHECK((p.slices + 1) * slice_bytes > cap);  // no room for one more slice
    if (p.columns > 0)
      for (bool along_rows : {false, true}) {
        smacof::DeltaLayout m = l;
        m.along_rows = along_rows;
        CHECK(m.offset(p, 0, p.column_first) == 0);
        CHECK(m.offset(p, l.column_values - 1, p.column_first + p.columns - 1) == l.values(p) - 1);
      }
    next_slice += p.slices;
    next_column += p.columns;
  }
  CHECK(next_slice == slices);
  CHECK(next_column == l.columns);
}

TEST_SUITE_BEGIN("smacof");

TEST_CASE("delta's cut into buffers: whole slices in order, each within the cap, caps not a multiple of a column") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t columns = 1 + rng() % 400, column_values = 1 + rng() % 400, real = rng() % 2 ? 4 : 8;
    const std::uint64_t cap = column_values * real + rng() % (columns * column_values * real + 1);
    const std::uint64_t least = smacof::least_slices(columns, column_values, real, cap);
    REQUIRE(least >= 1);
    // The fewest slices that fit: their slices fit one allocation, one fewer do not.
    auto slice_bytes = [&](std::uint64_t slices) { return (columns + slices - 1) / slices * column_values * real; };
    CHECK(slice_bytes(least) <= cap);
    if (least > 1) CHECK(slice_bytes(least - 1) > cap);
    const int slices = static_cast<int>(least + rng() % (columns + 1 - least) + rng() % 3);  // some beyond columns
    CAPTURE(columns);
    CAPTURE(column_values);
    CAPTURE(cap);
    CAPTURE(slices);
    check_cut(smacof::delta_layout(columns, column_values, slices, real, cap, false), slices, real, cap);
  }
  // No cap to speak of: one buffer; a column larger than the cap: no number of slices fits.
  CHECK(smacof::delta_layout(301, 301, 8, 4, std::uint64_t{1} << 40, false).parts.size() == 1);
  CHECK(smacof::least_slices(301, 301, 4, 301 * 4 - 1) == 0);
}

TEST_CASE("delta at N = 300,000 in float on the H200: buffers within one allocation, offsets past 2^31") {
  const itercl::DeviceInfo info = smacof_test_data::h200();
  const std::uint64_t n = 300000, real = 4, int_max = std::numeric_limits<std::int32_t>::max();
  std::vector<std::string> sources;
  const smacof::Problem problem{.n = static_cast<Eigen::Index>(n), .dim = 2, .precision = itercl::Precision::f32};
  for (bool packed : {false, true}) {
    CAPTURE(packed);
    const itercl::SmacofKernel k =
        smacof::resolve({.variant = "fused", .packed = yes_no(packed)}, info, problem, sources);
    const std::uint64_t columns = packed ? n / 2 : n;
    // 360 GB full, 180 GB packed: resolve raised the slices so that each fits 34.9 GiB.
    CHECK(static_cast<std::uint64_t>(k.slices) >= smacof::least_slices(columns, n, real, info.max_allocation));
    CHECK((k.slices & (k.slices - 1)) == 0);
    // One process (the whole matrix) and a rank of two (150,000 rows, full storage).
    for (std::uint64_t rows : packed ? std::vector<std::uint64_t>{n} : std::vector<std::uint64_t>{n, n / 2}) {
      CAPTURE(rows);
      const smacof::DeltaLayout l = smacof::delta_layout(columns, rows, k.slices, real, info.max_allocation, false);
      check_cut(l, k.slices, real, info.max_allocation);
      CHECK(l.parts.size() >= (columns * rows * real + info.max_allocation - 1) / info.max_allocation);
      for (const smacof::DeltaPart& p : l.parts) {
        // The last value's offset in the buffer passes 2^31 values: int offsets would wrap.
        CHECK(l.values(p) - 1 > int_max);
        // The kernel's offsets, as cl/smacof.cl computes them in ulong for the buffer's last value.
        const std::uint64_t c0 = static_cast<std::uint64_t>(p.slice_first) * l.per_slice;
        const std::uint64_t j = p.column_first + p.columns - 1, r = rows - 1;
        CHECK((j - c0) * rows + r == l.values(p) - 1);       // down the columns, or (k - 1 - c0) * N + i packed
        CHECK(r * p.columns + (j - c0) == l.values(p) - 1);  // along the rows
      }
    }
  }
}

TEST_CASE("the memory check refuses only what exceeds the device's memory, and names the ranks that fit") {
  const itercl::DeviceInfo info = smacof_test_data::h200();
  std::vector<std::string> sources;
  auto problem = [](Eigen::Index n) { return smacof::Problem{.n = n, .dim = 2, .precision = itercl::Precision::f32}; };
  auto largest_fitting = [&](bool packed, bool symmetric = false) {
    Eigen::Index lo = 1000, hi = 1000000;
    while (hi - lo > 1) {
      const Eigen::Index mid = lo + (hi - lo) / 2;
      const itercl::SmacofKernel k =
          smacof::resolve({.variant = "fused", .packed = yes_no(packed), .symmetric = yes_no(packed && symmetric)},
                          info, problem(mid), sources);
      bool fits = true;
      try {
        smacof::check_memory(info, k, problem(mid));
      } catch (const InputError&) {
        fits = false;
      }
      (fits ? lo : hi) = mid;
    }
    return lo;
  };
  // One H200 in float: delta may take the whole of its memory, N^2 or N^2 / 2 values of 4 bytes less the
  // embeddings' few MB (one allocation held N = 96,860 full, 136,981 packed). 193,714 and 273,949 here.
  const Eigen::Index full = largest_fitting(false), packed = largest_fitting(true);
  const double memory = static_cast<double>(info.global_memory);
  CHECK(full <= std::sqrt(memory / 4));
  CHECK(full >= 0.999 * std::sqrt(memory / 4));
  CHECK(packed <= std::sqrt(memory / 2));
  CHECK(packed >= 0.999 * std::sqrt(memory / 2));
  // Each pair once adds its window sums, n / 256 rows of 2 values for each of 256 work-items' n / 2 + 255
  // rows: 2/256 of packed delta's bytes, so N about 0.4% lower.
  const Eigen::Index symmetric = largest_fitting(true, true);
  CHECK(symmetric < packed);
  CHECK(static_cast<double>(symmetric) >= 0.995 * std::sqrt(memory / 2 / (1 + 2.0 / 256)));
  // N = 300,000 needs 3 H200s in full storage (360 GB), and the message says so.
  const itercl::SmacofKernel k =
      smacof::resolve({.variant = "fused", .packed = YesNo::no}, info, problem(300000), sources);
  CHECK(smacof::ranks_that_fit(info, k, problem(300000)) == 3);
  CHECK(smacof::block_bytes(k, problem(300000), 150000) > info.global_memory);
  CHECK(smacof::block_bytes(k, problem(300000), 100000) <= info.global_memory);
  CHECK_THROWS_WITH_AS(smacof::check_memory(info, k, problem(300000)), doctest::Contains("at least 3 ranks"),
                       InputError);
  // The seed's variants still read delta from one buffer: refused past one allocation, pointed to fused.
  const itercl::SmacofKernel naive =
      smacof::resolve({.variant = "naive", .packed = YesNo::no}, info, problem(150000), sources);
  CHECK_THROWS_WITH_AS(smacof::check_memory(info, naive, problem(150000)),
                       doctest::Contains("more with variant fused (several buffers)"), InputError);
  // Slices given too few for one allocation each are refused with the least that fit.
  CHECK_THROWS_WITH_AS(
      smacof::resolve({.variant = "fused", .packed = YesNo::no, .slices = 2}, info, problem(150000), sources),
      doctest::Contains("at least 3"), ParamError);
}

TEST_CASE("packed storage over ranks: balanced ranges of whole slices, each cut as one process cuts them") {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 2000; ++trial) {
    const int slices = 1 + static_cast<int>(rng() % 40), ranks = 1 + static_cast<int>(rng() % 8);
    const std::uint64_t columns = static_cast<std::uint64_t>(slices) + rng() % 300, column_values = 1 + rng() % 300;
    const std::uint64_t real = rng() % 2 ? 4 : 8, per_slice = (columns + slices - 1) / slices;
    const std::uint64_t cap = per_slice * column_values * real * (1 + rng() % 4) + rng() % 100;
    CAPTURE(slices);
    CAPTURE(ranks);
    CAPTURE(columns);
    CAPTURE(cap);
    const smacof::DeltaLayout whole = smacof::delta_layout(columns, column_values, slices, real, cap, false);
    int next_slice = 0;
    std::uint64_t next_column = 0;
    for (int r = 0; r < ranks; ++r) {
      const smacof::SliceRange share = smacof::rank_slices(slices, r, ranks);
      // In rank order, whole slices, as equal as can be: a rank has none only when slices < ranks.
      CHECK(share.first == next_slice);
      CHECK(share.count >= slices / ranks);
      CHECK(share.count <= (slices + ranks - 1) / ranks);
      const smacof::DeltaLayout mine = smacof::delta_layout(columns, column_values, slices, real, cap, false, share);
      CHECK(mine.per_slice == whole.per_slice);
      int held = 0;
      for (const smacof::DeltaPart& part : mine.parts) {
        CHECK(part.slice_first == share.first + held);
        CHECK(part.column_first == next_column);
        CHECK(mine.values(part) * real <= cap);
        held += part.slices;
        next_column += part.columns;
      }
      CHECK(held == share.count);
      next_slice += share.count;
    }
    CHECK(next_slice == slices);
    CHECK(next_column == columns);  // the ranks' columns are the whole storage's, once each
  }
  CHECK(smacof::rank_slices(2, 0, 3).count == 0);
}

TEST_CASE("the slices' rule over ranks: one rank's is the rule of one device, P ranks' an equal share each") {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned units = 1 + rng() % 200;
    const int groups = 1 + static_cast<int>(rng() % 32), ranks = 1 + static_cast<int>(rng() % 8);
    const Eigen::Index row_groups = 1 + static_cast<Eigen::Index>(rng() % 2000);
    const Eigen::Index columns = 1 + static_cast<Eigen::Index>(rng() % 200000);
    const std::uint64_t least = rng() % 3 ? 1 + rng() % 64 : 0;
    CAPTURE(units);
    CAPTURE(groups);
    CAPTURE(ranks);
    CAPTURE(row_groups);
    CAPTURE(columns);
    CAPTURE(least);
    const int one = smacof::auto_slices(units, groups, row_groups, columns);
    std::uint64_t raised = 1;
    while (raised < least) raised *= 2;
    CHECK(smacof::auto_slices_over(units, groups, row_groups, columns, least, 1) ==
          (static_cast<std::uint64_t>(one) < least ? std::min<Eigen::Index>(raised, columns) : one));
    const int over = smacof::auto_slices_over(units, groups, row_groups, columns, least, ranks);
    if (over < columns) CHECK(over % ranks == 0);
    if (least <= static_cast<std::uint64_t>(columns)) CHECK(static_cast<std::uint64_t>(over) >= least);
  }
}

TEST_CASE("full storage over ranks: slices until each rank's block fills its device") {
  // N = 65,536 on H200s (16 groups of 256 a compute unit): one device's 256 row groups need 9 slices, the
  // 2,048-column cap 32; 4 ranks' 64 row groups need 33, so 64 (a power of two); 2 ranks' 128 need 17: 32.
  const itercl::DeviceInfo info = smacof_test_data::h200();
  std::vector<std::string> sources;
  smacof::Problem problem{.n = 65536, .dim = 2, .precision = itercl::Precision::f32, .features = 4};
  for (const auto& [ranks, slices] : {std::pair{1, 32}, std::pair{2, 32}, std::pair{4, 64}, std::pair{8, 128}}) {
    CAPTURE(ranks);
    problem.ranks = ranks;
    const itercl::SmacofKernel k = smacof::resolve({.packed = YesNo::no}, info, problem, sources);
    CHECK(k.work_group_size == 256);
    CHECK(k.groups_per_unit == 16);
    CHECK(k.slices == slices);
    // Packed storage splits the slices among the ranks instead: as many as one device's for each share.
    CHECK(smacof::resolve({.packed = YesNo::yes}, info, problem, sources).slices ==
          smacof::auto_slices_over(info.compute_units, 16, 256, 32768, 1, ranks));
  }
}

TEST_CASE("N = 300,000 in float over 2 H200s: packed storage by default, each rank holding half of it") {
  const itercl::DeviceInfo info = smacof_test_data::h200();
  const std::uint64_t n = 300000, real = 4, int_max = std::numeric_limits<std::int32_t>::max();
  std::vector<std::string> sources;
  smacof::Problem problem{.n = 300000, .dim = 2, .precision = itercl::Precision::f32, .features = 4};
  // One H200: neither storage fits (360 GB full, 180 GB packed); the message names the ranks of each. The
  // storage is packed from the device's packed_from (32,768) on.
  const itercl::SmacofKernel one = smacof::resolve({}, info, problem, sources);
  CHECK(one.packed == YesNo::yes);
  CHECK_THROWS_WITH_AS(smacof::check_memory(info, one, problem),
                       doctest::Contains("at least 3 ranks (100000 rows each) with full storage, or 2 with packed"),
                       InputError);
  CHECK(smacof::packed_ranks_that_fit(info, one, problem) == 2);
  // Two: full storage's 150,000 rows do not fit a rank, so "auto" storage is packed: 128 slices (of at most
  // 2,048 columns: each rank's 75,000 need 64), 64 a rank.
  problem.ranks = 2;
  const itercl::SmacofKernel k = smacof::resolve({}, info, problem, sources);
  CHECK(k.packed == YesNo::yes);
  CHECK(k.variant == "fused");
  CHECK(k.slices == 128);
  CHECK(smacof::packed_rank_bytes(k, problem) <= info.global_memory);
  CHECK_NOTHROW(smacof::check_rank_memory(info, k, problem, 1, 0));
  const std::uint64_t packed_bytes = n * (n / 2) * real;
  for (int r = 0; r < 2; ++r) {
    const smacof::DeltaLayout l =
        smacof::delta_layout(n / 2, n, k.slices, real, info.max_allocation, false, smacof::rank_slices(k.slices, r, 2));
    std::uint64_t held = 0;
    for (const smacof::DeltaPart& p : l.parts) {
      CHECK(l.values(p) * real <= info.max_allocation);
      CHECK(l.values(p) - 1 > int_max);  // the kernel's offsets are ulong
      held += l.values(p) * real;
    }
    // 90 GB of the 180, give or take the columns by which 128 slices of 1,172 pass 150,000.
    const std::uint64_t slice_bytes = l.per_slice * n * real;
    CHECK(held + slice_bytes > packed_bytes / 2);
    CHECK(held < packed_bytes / 2 + slice_bytes);
  }
  // Three: full storage fits (100,000 rows a rank) and stays, as the 4-GPU runs measured it (the device's
  // packed_from is one device's); pinned full on two it is refused, naming both storages.
  problem.ranks = 3;
  CHECK(smacof::resolve({}, info, problem, sources).packed == YesNo::no);
  problem.ranks = 2;
  const itercl::SmacofKernel full = smacof::resolve({.packed = YesNo::no}, info, problem, sources);
  CHECK_THROWS_WITH_AS(smacof::check_rank_memory(info, full, problem, 0, 150000),
                       doctest::Contains("Run on at least 3 ranks (100000 rows each) with full storage, or 2 with"),
                       InputError);
  // One H200 at N = 250,000: full storage (250 GB) does not fit, packed (125 GB) does, and "auto" takes it.
  problem = {.n = 250000, .dim = 2, .precision = itercl::Precision::f32};
  const itercl::SmacofKernel single = smacof::resolve({}, info, problem, sources);
  CHECK(single.packed == YesNo::yes);
  CHECK_NOTHROW(smacof::check_memory(info, single, problem));
}

TEST_CASE("a rank's rows of the dissimilarities are checked and averaged as the whole matrix's") {
  // Every split of a random asymmetric 7 x 7 matrix (the rows a rank holds, the same columns it reads),
  // whole or as a rectangle of some of its columns (how a rank reads them to its device), gives exactly
  // the values of checked_dissimilarities' (D + D^T) / 2, and any_positive of its values.
  Matrix d = Matrix::Random(7, 7).cwiseAbs();
  d.diagonal().setZero();
  const Matrix whole = itercl::checked_dissimilarities(d, true);
  for (Eigen::Index first = 0; first < 7; ++first)
    for (Eigen::Index rows = 0; first + rows <= 7; ++rows)
      for (Eigen::Index column = 0; column < 7; ++column)
        for (Eigen::Index columns : {Eigen::Index{7} - column, Eigen::Index{1}}) {
          CAPTURE(first);
          CAPTURE(rows);
          CAPTURE(column);
          CAPTURE(columns);
          bool any = false;
          const Matrix mine =
              smacof::checked_dissimilarity_rows(d.block(first, column, rows, columns),
                                                 d.block(column, first, columns, rows), first, column, true, {}, any);
          CHECK(mine == whole.block(first, column, rows, columns));
          CHECK(any == (mine.array() > 0).any());
        }
  // Without symmetrize the asymmetry is found from either row of the pair, named as the row holds it.
  bool any = false;
  CHECK_THROWS_WITH_AS(smacof::checked_dissimilarity_rows(d.middleRows(5, 2), d.middleCols(5, 2), 5, 0, false, {}, any),
                       doctest::Contains(("(5, 0) is " + itercl::number_text(d(5, 0)) + " but (0, 5) is").c_str()),
                       InputError);
  // A rectangle's pairs are named by their place in the whole matrix.
  CHECK_THROWS_WITH_AS(
      smacof::checked_dissimilarity_rows(d.block(5, 1, 2, 3), d.block(1, 5, 3, 2), 5, 1, false, {}, any),
      doctest::Contains(("(5, 1) is " + itercl::number_text(d(5, 1)) + " but (1, 5) is").c_str()), InputError);
}

TEST_SUITE_END();

}  // namespace smacof_parts_tests
