// SMACOF's host side, no device needed: the labelled-matrix loader, input checks and their messages,
// V+, classical scaling against R's eurodist map, the memory check, and config errors.
#include <doctest/doctest.h>

#include <fstream>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/io.hpp"
#include "itercl/smacof.hpp"
#include "reference/smacof_reference.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_memory.hpp"
#include "smacof/smacof_steps.hpp"
#include "smacof/smacof_test_data.hpp"
#include "test_support.hpp"

using itercl::InputError;
using itercl::Matrix;
using itercl::ParamError;
using itercl::YesNo;
using nlohmann::json;
namespace smacof = itercl::smacof;

namespace smacof_host_tests {

Matrix eurodist() {
  return itercl::load_labelled_matrix(test::source_dir() / "datasets/dissimilarities/eurodist_21x21.csv").values;
}

// A small symmetric dissimilarity matrix with a zero diagonal.
Matrix small_delta() {
  Matrix d(3, 3);
  d << 0, 1, 2, 1, 0, 3, 2, 3, 0;
  return d;
}

}  // namespace smacof_host_tests

using smacof_host_tests::eurodist;
using smacof_host_tests::small_delta;

TEST_CASE("load_labelled_matrix reads eurodist: a header of names, a name column, quoted fields") {
  const auto m = itercl::load_labelled_matrix(test::source_dir() / "datasets/dissimilarities/eurodist_21x21.csv");
  REQUIRE(m.values.rows() == 21);
  REQUIRE(m.values.cols() == 21);
  REQUIRE(m.names.size() == 21);
  CHECK(m.names[0] == "Athens");
  CHECK(m.names[10] == "Hook of Holland");
  CHECK(m.names[20] == "Vienna");
  CHECK(m.values(0, 1) == 3313);    // Athens - Barcelona, the file's second field of row 1
  CHECK(m.values(20, 19) == 2105);  // Vienna - Stockholm
  CHECK(m.values.diagonal().isZero());
}

TEST_CASE("load_labelled_matrix: plain numbers, a header of names, quoted names, and errors by line") {
  test::TempDir tmp;
  auto write = [&](const char* name, const char* text) {
    std::ofstream(tmp / name) << text;
    return tmp / name;
  };
  auto plain = itercl::load_labelled_matrix(write("plain.txt", "# comment\n0 1\n1 0\n"));
  CHECK(plain.values == (Matrix(2, 2) << 0, 1, 1, 0).finished());
  CHECK(plain.names.empty());

  auto header = itercl::load_labelled_matrix(write("header.csv", "a,b\n0,2\n2,0\n"));
  CHECK(header.names == std::vector<std::string>{"a", "b"});
  CHECK(header.values(0, 1) == 2);

  auto quoted =
      itercl::load_labelled_matrix(write("q.csv", "\"\",\"x, y\",\"z\"\"\"\n\"x, y\",0,1.5\n\"z\"\"\",1.5,0\n"));
  CHECK(quoted.names == std::vector<std::string>{"x, y", "z\""});
  CHECK(quoted.values(1, 0) == 1.5);

  auto unnamed = itercl::load_labelled_matrix(write("names.csv", "p,0,4\nq,4,0\n"));
  CHECK(unnamed.names == std::vector<std::string>{"p", "q"});

  CHECK_THROWS_WITH_AS(itercl::load_labelled_matrix(write("ragged.csv", "0,1\n1,0,2\n")),
                       doctest::Contains("ragged.csv:2: expected 2 fields (as on line 1), found 3"), InputError);
  CHECK_THROWS_WITH_AS(itercl::load_labelled_matrix(write("word.csv", "a,0,1\nb,x,0\n")),
                       doctest::Contains("word.csv:2, column 2: 'x' is not a number"), InputError);
  CHECK_THROWS_WITH_AS(itercl::load_labelled_matrix(write("nan.csv", "0,nan\nnan,0\n")),
                       doctest::Contains("nan.csv:1, column 2: nan is not allowed"), InputError);
  CHECK_THROWS_WITH_AS(itercl::load_labelled_matrix(write("open.csv", "\"a,0\n")),
                       doctest::Contains("open.csv:1: a quoted field is not closed"), InputError);
  CHECK_THROWS_WITH_AS(itercl::load_labelled_matrix(write("empty.csv", "a,b\n")), doctest::Contains("no data"),
                       InputError);
}

TEST_CASE("checked_dissimilarities names the offending pair, and symmetrizes only when asked") {
  const std::vector<std::string> names = {"A", "B", "C"};
  Matrix d = small_delta();
  d(0, 2) = 2.5;
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(d, false, names),
                       doctest::Contains("(0 'A', 2 'C') is 2.5 but (2 'C', 0 'A') is 2: the matrix is not symmetric"),
                       InputError);
  const Matrix averaged = itercl::checked_dissimilarities(d, true, names);
  CHECK(averaged(0, 2) == 2.25);
  CHECK(averaged(2, 0) == 2.25);

  Matrix nearly = small_delta();
  nearly(1, 2) *= 1 + 1e-9;  // within scikit-learn's check_symmetric tolerance: accepted, averaged
  CHECK(itercl::checked_dissimilarities(nearly)(1, 2) == itercl::checked_dissimilarities(nearly)(2, 1));

  Matrix negative = small_delta();
  negative(0, 1) = negative(1, 0) = -1;
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(negative),
                       doctest::Contains("(0, 1) is -1; dissimilarities "
                                         "must be non-negative"),
                       InputError);
  Matrix nan = small_delta();
  nan(2, 1) = std::nan("");
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(nan), doctest::Contains("(2, 1) is nan; values must be finite"),
                       InputError);
  Matrix diagonal = small_delta();
  diagonal(1, 1) = 0.5;
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(diagonal),
                       doctest::Contains("(1, 1) is 0.5; the diagonal must "
                                         "be 0"),
                       InputError);
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(Matrix::Zero(2, 3)),
                       doctest::Contains("expected a square "
                                         "matrix, got 2 x 3"),
                       InputError);
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(Matrix::Zero(3, 3)), doctest::Contains("all zero"), InputError);
  CHECK_THROWS_WITH_AS(itercl::checked_dissimilarities(Matrix::Zero(1, 1)), doctest::Contains("at least 2 points"),
                       InputError);
}

TEST_CASE("weights: checks, and V+ satisfies the Moore-Penrose conditions and equals the reference's") {
  const Eigen::Index n = 9;
  Matrix w = test::random_matrix(n, n, 5).cwiseAbs();
  w = (w + w.transpose()).eval();
  w(0, 3) = w(3, 0) = 0;  // a missing dissimilarity
  const Matrix checked = smacof::checked_weights(w, n);
  CHECK(checked.diagonal().isZero());
  const Matrix p = smacof::v_pinv(checked);
  Matrix v = -checked;
  v.diagonal() = checked.rowwise().sum();
  CHECK((v * p * v - v).norm() <= 1e-10 * v.norm());
  CHECK((p * v * p - p).norm() <= 1e-10 * p.norm());
  CHECK((p * v - (p * v).transpose()).norm() <= 1e-10);
  CHECK((p - reference::v_pinv(checked)).norm() <= 1e-10 * p.norm());

  Matrix asymmetric = w;
  asymmetric(1, 2) += 1;
  CHECK_THROWS_WITH_AS(smacof::checked_weights(asymmetric, n), doctest::Contains("weights must be symmetric"),
                       ParamError);
  Matrix negative = w;
  negative(1, 2) = negative(2, 1) = -0.5;
  CHECK_THROWS_WITH_AS(smacof::checked_weights(negative, n), doctest::Contains("finite and non-negative"), ParamError);
  Matrix split = w;
  split.row(4).setZero();
  split.col(4).setZero();
  CHECK_THROWS_WITH_AS(smacof::checked_weights(split, n), doctest::Contains("point 4 is not connected"), ParamError);
  CHECK_THROWS_WITH_AS(smacof::checked_weights(w, n + 1), doctest::Contains("expected 10 x 10"), ParamError);
}

TEST_CASE("classical scaling of eurodist gives R's cmdscale map, up to rotation") {
  // R: cmdscale(eurodist) puts Athens at (2290.27468, 1798.80293), eigenvalues 19538377 and 11856555;
  // the pairwise distances of that map (numpy.linalg.eigh gives the same) are rotation-free checks.
  const Matrix x = smacof::classical_scaling(eurodist(), 2);
  const Matrix d = reference::distances(x);
  CHECK(d(0, 18) == doctest::Approx(1724.6579790270673).epsilon(1e-9));  // Athens - Rome
  CHECK(d(11, 19) == doctest::Approx(3354.765944821704).epsilon(1e-9));  // Lisbon - Stockholm
  CHECK(d(17, 2) == doctest::Approx(266.42531540725855).epsilon(1e-9));  // Paris - Brussels
  CHECK(d(8, 9) == doctest::Approx(2968.8990958640024).epsilon(1e-9));   // Gibraltar - Hamburg
  CHECK(x.col(0).squaredNorm() == doctest::Approx(19538377.08954285).epsilon(1e-9));
  CHECK(x.col(1).squaredNorm() == doctest::Approx(11856555.33400111).epsilon(1e-9));
  CHECK(std::abs(x(0, 0)) == doctest::Approx(2290.27468).epsilon(1e-8));
}

TEST_CASE("classical scaling of vectors is classical scaling of their euclidean distances") {
  for (Eigen::Index features : {3, 40}) {  // fewer and more features than points
    CAPTURE(features);
    const Matrix v = test::random_matrix(25, features, 7 + features, 2.0, 5.0);
    const Matrix from_vectors = smacof::classical_scaling_of_vectors(v, 2);
    const Matrix from_distances = smacof::classical_scaling(reference::distances(v), 2);
    CHECK((from_vectors - from_distances).norm() <= 1e-9 * from_distances.norm());
  }
}

TEST_CASE("the memory check says which N fits, with packed storage and in float") {
  itercl::DeviceInfo info;
  info.name = "small";
  info.global_memory = std::uint64_t{1} << 30;
  info.max_allocation = std::uint64_t{1} << 28;
  itercl::SmacofKernel k{.variant = "naive"};
  const smacof::Problem problem{.n = 10000, .dim = 2, .precision = itercl::Precision::f64};
  std::string message;
  try {
    smacof::check_memory(info, k, problem);
  } catch (const InputError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("device 'small'") != std::string::npos);
  CHECK(message.find("with packed storage (params.kernel.packed = true)") != std::string::npos);
  CHECK(message.find("in precision float") != std::string::npos);
  // The N it names is the largest that passes.
  const auto at = message.find("At most N = ") + 12;
  const Eigen::Index fits = std::stoll(message.substr(at));
  CHECK(fits > 1000);
  auto with_n = [&](Eigen::Index n) {
    smacof::Problem p = problem;
    p.n = n;
    return p;
  };
  CHECK_NOTHROW(smacof::check_memory(info, k, with_n(fits)));
  CHECK_THROWS_AS(smacof::check_memory(info, k, with_n(fits + 1)), InputError);
  k.packed = YesNo::yes;
  CHECK_NOTHROW(smacof::check_memory(info, k, with_n(fits + 1)));
}

TEST_CASE("SMACOF parameters and kernel tuning are checked with the field named") {
  itercl::SmacofParams p;
  p.n_components = 0;
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("n_components: expected an integer from 1 to 32, got 0"),
                       ParamError);
  p = {};
  p.eps = -1;
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("eps: expected a number >= 0"), ParamError);
  p = {};
  p.init = itercl::SmacofInit::classical;
  p.n_init = 3;
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("n_init: 3 runs from the same classical start"), ParamError);
  p = {};
  p.init = itercl::SmacofInit::given;
  p.init_embedding = Matrix::Ones(4, 2);
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("init: all points coincide"), ParamError);
  CHECK_THROWS_WITH_AS(itercl::SmacofKernel{.variant = "tiled"}.validate(), doctest::Contains("kernel.variant"),
                       ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.variant = "naive", .slices = 4}.validate()),
                       doctest::Contains("only the fused variants split"), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.variant = "fused_rows", .packed = YesNo::yes}.validate()),
                       doctest::Contains("packed storage is read down the columns"), ParamError);
  itercl::SmacofKernel k;
  CHECK_THROWS_WITH_AS(from_json(json{{"packd", true}}, k), doctest::Contains("kernel.packd: unknown field"),
                       ParamError);
  from_json(json{{"variant", "colmajor"}, {"packed", true}}, k);
  CHECK(k.variant == "colmajor");
  CHECK(k.packed == YesNo::yes);
  // Storage left to the device is "auto", both ways.
  from_json(json{{"packed", "auto"}}, k);
  CHECK(k.packed == YesNo::automatic);
  CHECK(json(k)["packed"] == "auto");
  CHECK_THROWS_WITH_AS(from_json(json{{"packed", "yes"}}, k),
                       doctest::Contains("kernel.packed: expected true, false or \"auto\", got \"yes\""), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.variant = "naive", .rows_per_item = 2}.validate()),
                       doctest::Contains("kernel.rows_per_item: only the fused variants"), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.rows_per_item = 17}.validate()),
                       doctest::Contains("kernel.rows_per_item: expected an integer from 1 to 16"), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.packed = YesNo::no, .symmetric = YesNo::yes}.validate()),
                       doctest::Contains("kernel.symmetric: computes each pair once over packed storage"), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.variant = "local_x", .symmetric = YesNo::yes}.validate()),
                       doctest::Contains("kernel.symmetric: computes each pair once in variant fused"), ParamError);
  CHECK_THROWS_WITH_AS((itercl::SmacofKernel{.symmetric = YesNo::yes, .rows_per_item = 2}.validate()),
                       doctest::Contains("kernel.rows_per_item: the symmetric pass computes one row"), ParamError);
  CHECK_THROWS_WITH_AS(
      itercl::check_dissimilarity_metric(itercl::parse_metric("cosine")),
      doctest::Contains("metric: dissimilarities from vectors are euclidean, sqeuclidean or cityblock"), ParamError);
}

TEST_CASE("SMACOF config errors name the field before any device is selected") {
  test::TempDir tmp;
  std::ofstream(tmp / "d.csv") << "0,1,2\n1,0,3\n2,3,0\n";
  std::ofstream(tmp / "asym.csv") << "a,b\n0,1\n2,0\n";
  itercl::RunOverrides no_device;
  no_device.device = "itercl-tests-no-such-device";
  auto error = [&](json config, const std::string& expected) {
    CHECK_THROWS_WITH_AS(itercl::run_experiment(config, "cfg.json", tmp.path, no_device),
                         doctest::Contains(expected.c_str()), InputError);
  };
  const json good = {{"algorithm", "smacof"},
                     {"data", {{"kind", "dissimilarities"}, {"path", "d.csv"}}},
                     {"params", {{"random_state", 0}}}};
  json c = good;
  c["data"].erase("kind");
  error(c, "cfg.json: data.kind: missing: expected \"dissimilarities\" or \"vectors\"");
  c = good;
  c["data"]["path"] = "asym.csv";
  error(c, "cfg.json: data.path: dissimilarities: (0 'a', 1 'b') is 1 but (1 'b', 0 'a') is 2");
  c = good;
  c["data"]["symmetrise"] = true;
  error(c, "cfg.json: data.symmetrise: unknown field");
  c = good;
  c["data"] = {{"kind", "vectors"}, {"metric", "cosine"}, {"path", "d.csv"}};
  error(c,
        "cfg.json: data.metric: dissimilarities from vectors are euclidean, sqeuclidean or cityblock; got \"cosine\"");
  c = good;
  c["params"]["weights"] = {{1, 1}, {1, 1}};
  error(c, "cfg.json: params.weights: expected 3 x 3 (one per pair), got 2 x 2");
  c = good;
  c["params"]["init"] = {{0, 0}, {1, 1}};
  error(c, "cfg.json: params.init: has 2 rows for 3 points");
  c = good;
  c["params"]["kernel"] = {{"variant", "fast"}};
  error(c, "cfg.json: params.kernel.variant: expected one of auto, naive, local_x, colmajor, fused, fused_rows");
  c = good;
  c["params"]["n_component"] = 2;
  error(c, "cfg.json: params.n_component: unknown field");
}

TEST_CASE("SMACOF's description: the seed's flop count, and the tuner's problem is valid input") {
  CHECK(smacof::iteration_flops(4, 2) == (8 * 2 * 4 + 7 * 4 + 3 * 2 + 1) * 4);
  const auto problem = smacof::tune_problem(20, 3, 5, 1);
  CHECK(problem.x0.rows() == 20);
  CHECK(problem.x0.cols() == 3);
  CHECK(itercl::checked_dissimilarities(problem.delta) == problem.delta);  // exactly symmetric, zero diagonal
  CHECK(smacof::reference_tolerance(itercl::Precision::f32) == 2 * tolerance::smacof(itercl::Precision::f32));
}

TEST_CASE("running out of host memory says what was being allocated, how much, and how much there is") {
  // The memory available changes under a running test: only the part before it is fixed.
  CHECK_THROWS_WITH_AS(
      itercl::allocate_host("V+ of the weights", std::uint64_t{3} << 30, []() -> int { throw std::bad_alloc(); }),
      doctest::Contains("out of host memory for V+ of the weights: 3221225472 bytes (3.22 GB) asked for, "),
      itercl::RuntimeError);
}

TEST_CASE(
    "auto slices: a power of two that fills the compute units, none shorter than 64 columns nor longer than 2,048") {
  // The configuration the slices were measured with (fused, full storage, 128 work-items, one row each,
  // 16 groups per compute unit): the unrounded rule gave 64, 17, 9 and 5 slices, the powers of two
  // measured fastest are these, and at 65,536 the 2,048 columns a slice at most give 32.
  const itercl::DeviceInfo info = smacof_test_data::h200();
  struct Want {
    Eigen::Index n;
    int full, packed, two_rows;  // packed: half the columns, the same row groups; two rows: half the row groups
  };
  const Want want[] = {{4096, 64, 32, 64}, {16384, 32, 32, 64}, {32768, 16, 16, 32}, {65536, 32, 16, 32}};
  const itercl::SmacofKernel measured{
      .variant = "fused", .packed = YesNo::no, .work_group_size = 128, .groups_per_unit = 16, .rows_per_item = 1};
  for (const auto& [n, slices, packed_slices, two_rows_slices] : want) {
    CAPTURE(n);
    std::vector<std::string> sources;
    const smacof::Problem problem{.n = n, .dim = 2, .precision = itercl::Precision::f32};
    const itercl::SmacofKernel k = smacof::resolve(measured, info, problem, sources);
    CHECK(k.slices == slices);
    itercl::SmacofKernel packed_kernel = measured;
    packed_kernel.packed = YesNo::yes;
    CHECK(smacof::resolve(packed_kernel, info, problem, sources).slices == packed_slices);
    itercl::SmacofKernel two_rows = measured;
    two_rows.rows_per_item = 2;
    CHECK(smacof::resolve(two_rows, info, problem, sources).slices == two_rows_slices);
    // Slices given are kept, whatever their parity.
    CHECK(smacof::resolve(itercl::SmacofKernel{.slices = 17}, info, problem, sources).slices == 17);
  }
  // Against the rule written out: the least power of two reaching the wanted groups and slices of at most
  // 2,048 columns, capped at the largest power of two of at least 64 columns each.
  for (unsigned units : {1u, 16u, 132u})
    for (Eigen::Index row_groups : {1, 3, 128, 1000})
      for (Eigen::Index columns : {10, 64, 100, 4096, 65536, 300000}) {
        const int got = smacof::auto_slices(units, 16, row_groups, columns);
        CAPTURE(units);
        CAPTURE(row_groups);
        CAPTURE(columns);
        CHECK((got & (got - 1)) == 0);
        CHECK(got * 64 <= std::max<Eigen::Index>(columns, 64));
        const bool full = static_cast<Eigen::Index>(got) * row_groups >= static_cast<Eigen::Index>(units) * 16;
        CHECK((full || 2 * got * 64 > columns));  // short of full only where 64 columns a slice stops it
        CHECK((got * 2048 >= columns || 2 * got * 64 > columns));
        CHECK((got == 1 || static_cast<Eigen::Index>(got / 2) * row_groups < static_cast<Eigen::Index>(units) * 16 ||
               static_cast<Eigen::Index>(got / 2) * 2048 < columns));
      }
}

TEST_CASE("auto storage: packed from the device's packed_from on, unless asked otherwise or read along the rows") {
  const itercl::DeviceInfo info = smacof_test_data::h200();
  std::vector<std::string> sources;
  auto resolved = [&](itercl::SmacofKernel k, Eigen::Index n) {
    return smacof::resolve(std::move(k), info, {.n = n, .dim = 2, .precision = itercl::Precision::f32}, sources);
  };
  // The H200's entry: packed storage, each pair once, from N = 32,768 on, one row per work-item
  // (benchmarks/results/nvidia-h200/smacof-symmetric-ring/, call 9); full below.
  const itercl::SmacofKernel h200 = resolved({}, 65536);
  CHECK(h200.packed == YesNo::yes);
  CHECK(h200.symmetric == YesNo::yes);
  CHECK(h200.packed_from == 32768);
  CHECK(h200.rows_per_item == 1);
  CHECK(json(h200)["packed"] == true);
  CHECK(resolved({}, 32767).packed == YesNo::no);
  CHECK(resolved({}, 32768).packed == YesNo::yes);
  // A storage asked for is kept; a threshold asked for replaces the device's.
  CHECK(resolved({.packed = YesNo::no}, 65536).packed == YesNo::no);
  CHECK(resolved({.packed = YesNo::yes}, 100).packed == YesNo::yes);
  CHECK(resolved({.packed_from = 100}, 100).packed == YesNo::yes);
  CHECK(resolved({.packed_from = 100}, 99).packed == YesNo::no);
  // fused_rows reads full storage only: auto never packs for it.
  CHECK(resolved({.variant = "fused_rows"}, 65536).packed == YesNo::no);
  // The seed's variants read packed storage too, and take no rows per work-item.
  const itercl::SmacofKernel naive = resolved({.variant = "naive", .packed_from = 100}, 65536);
  CHECK(naive.packed == YesNo::yes);
  CHECK(naive.rows_per_item == 0);
  // A GPU without an entry of its own takes the GPU type's threshold (measured on the H200 and an H100);
  // a CPU keeps full storage.
  itercl::DeviceInfo other = info;
  other.name = "Some GPU";
  CHECK(smacof::resolve({}, other, {.n = 65536, .dim = 2}, sources).packed == YesNo::yes);
  CHECK(smacof::resolve({}, other, {.n = 16384, .dim = 2}, sources).packed == YesNo::no);
  other.type = "cpu";
  CHECK(smacof::resolve({}, other, {.n = 65536, .dim = 2}, sources).packed == YesNo::no);
}

TEST_CASE("symmetric pass: GPUs compute each pair once over packed storage with fused, where its ring fits") {
  const itercl::DeviceInfo h200 = smacof_test_data::h200();
  std::vector<std::string> sources;
  const smacof::Problem problem{.n = 65536, .dim = 2, .precision = itercl::Precision::f32};
  auto resolved = [&](itercl::SmacofKernel k, const itercl::DeviceInfo& info) {
    return smacof::resolve(std::move(k), info, problem, sources);
  };
  const itercl::SmacofKernel packed = resolved({.packed = YesNo::yes}, h200);
  CHECK(packed.symmetric == YesNo::yes);
  CHECK(packed.rows_per_item == 1);
  CHECK(json(packed)["symmetric"] == true);
  CHECK(resolved({.packed = YesNo::no}, h200).symmetric == YesNo::no);                       // full storage: every pair
  CHECK(resolved({.packed = YesNo::yes, .rows_per_item = 2}, h200).symmetric == YesNo::no);  // rows asked for
  CHECK(resolved({.packed = YesNo::yes, .symmetric = YesNo::no}, h200).symmetric == YesNo::no);
  // CPUs keep every ordered pair (tuning/smacof.json's default).
  itercl::DeviceInfo cpu = h200;
  cpu.name = "Some CPU";
  cpu.type = "cpu";
  CHECK(resolved({.variant = "fused", .packed = YesNo::yes}, cpu).symmetric == YesNo::no);
  CHECK(resolved({.variant = "fused", .packed = YesNo::yes, .symmetric = YesNo::yes}, cpu).symmetric == YesNo::yes);
  // The ring (4 copies of 512 rows of 2 floats for 256 work-items) and the scratch within local memory.
  CHECK(smacof::symmetric_local_bytes(packed, problem) == (4 * 512 * 2 + 2 * 256) * 4);
  itercl::DeviceInfo small = h200;
  small.local_memory = 4096;
  CHECK(resolved({.packed = YesNo::yes}, small).symmetric == YesNo::no);
  CHECK_THROWS_WITH_AS(resolved({.packed = YesNo::yes, .symmetric = YesNo::yes}, small),
                       doctest::Contains("kernel.symmetric: needs packed storage, variant fused, one row per"),
                       ParamError);
}
