// Graph loaders: SNAP and plain edge lists, Matrix Market, gzip and tar, their error messages, and
// the quirks of the four real graphs in ../shared/datasets/graphs. Inputs are written here byte by
// byte (the tar headers by hand from the POSIX layout), so a loader bug cannot hide behind a writer.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "itercl/error.hpp"
#include "itercl/graph.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using itercl::Graph;
using itercl::GraphLoadOptions;
using itercl::GraphLoadReport;
using itercl::load_graph;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace io_tests {

// gzip in memory through zlib's deflate with a gzip wrapper (windowBits 16 + 15).
std::string gzip_bytes(const std::string& data) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// One ustar member: a 512-byte header (name, octal mode/uid/gid/size/mtime, checksum, type flag,
// "ustar\0" "00"), then the data padded to 512 bytes.
std::string tar_member(const std::string& name, const std::string& data, char type = '0') {
  std::string h(512, '\0');
  auto put = [&](std::size_t at, const std::string& s) { h.replace(at, s.size(), s); };
  auto octal = [](std::size_t v, int width) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*zo", width - 1, v);
    return std::string(buf);
  };
  put(0, name);
  put(100, octal(0644, 8));
  put(108, octal(0, 8));
  put(116, octal(0, 8));
  put(124, octal(data.size(), 12));
  put(136, octal(0, 12));
  put(148, std::string(8, ' '));
  h[156] = type;
  put(257, std::string("ustar\0", 6) + "00");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  put(148, octal(sum, 7) + std::string(1, '\0'));
  std::string padded = data;
  padded.append((512 - data.size() % 512) % 512, '\0');
  return h + padded;
}
std::string tar_end() { return std::string(1024, '\0'); }

// Edges as "label -> label" pairs, so tests read in the input's ids.
std::multiset<std::pair<std::int64_t, std::int64_t>> edges(const Graph& g) {
  std::multiset<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t e = 0; e < g.src.size(); ++e) out.insert({g.label(g.src[e]), g.label(g.dst[e])});
  return out;
}

TEST_CASE("SNAP edge lists: comments, tabs, CRLF, non-contiguous ids numbered and mapped back, gzip") {
  test::TempDir dir;
  const std::string text =
      "# Directed graph: toy.txt\r\n# FromNodeId\tToNodeId\r\n30\t1412\r\n30\t7\r\n\r\n7\t30\r\n1412\t1412\r\n";
  GraphLoadReport report;
  const Graph g = load_graph(test::write_file(dir, "toy.txt", text), {}, &report);
  CHECK(g.n_nodes == 3);
  CHECK(g.labels == std::vector<std::int64_t>{7, 30, 1412});
  CHECK(edges(g) == decltype(edges(g)){{30, 1412}, {30, 7}, {7, 30}, {1412, 1412}});
  CHECK(g.index_of(1412) == 2);
  CHECK_FALSE(g.index_of(8).has_value());
  CHECK(report.format == "edgelist");
  CHECK(report.header.empty());
  CHECK_FALSE(report.weighted);
  CHECK(g.weights.empty());

  const Graph z = load_graph(test::write_file(dir, "toy.txt.gz", gzip_bytes(text)));
  CHECK(z.labels == g.labels);
  CHECK(z.src == g.src);
  CHECK(z.dst == g.dst);

  // Contiguous 0-based ids need no label table; sparse huge ids go through the sorted list.
  const Graph dense = load_graph(test::write_file(dir, "dense.txt", "0 1\n1 2\n2 0\n"));
  CHECK(dense.labels.empty());
  CHECK(dense.label(2) == 2);
  const Graph sparse = load_graph(test::write_file(dir, "sparse.txt", "-5 9000000000\n9000000000 3\n"));
  CHECK(sparse.labels == std::vector<std::int64_t>{-5, 3, 9000000000});
  CHECK(edges(sparse) == decltype(edges(sparse)){{-5, 9000000000}, {9000000000, 3}});
}

// Issue 34: "N M" followed by exactly M edges among ids below N was taken for node and edge counts, and a
// real edge was lost; networkx's read_edgelist reads it as an edge.
TEST_CASE("edge-list first lines: a count or words are a header; two integers are an edge unless header is set") {
  test::TempDir dir;
  GraphLoadReport r;
  // One number (p2p-Gnutella08's "6350"): a count, skipped (networkx skips a line of one field).
  Graph g = load_graph(test::write_file(dir, "a.txt", "6350\n0\t1\n0\t2\n"), {}, &r);
  CHECK(r.header == "6350");
  CHECK(g.n_edges() == 2);
  // "5 3" then exactly 3 edges among ids below 5: an edge all the same, noted as looking like counts.
  g = load_graph(test::write_file(dir, "b.txt", "5 3\n0 1\n2 1\n4 0\n"), {}, &r);
  CHECK(r.header.empty());
  CHECK(r.first_edge_like_counts == "5 3");
  CHECK(edges(g) == decltype(edges(g)){{5, 3}, {0, 1}, {2, 1}, {4, 0}});
  // The config's header: true says the file has a counts line.
  GraphLoadOptions skip;
  skip.header = true;
  g = load_graph(dir.path / "b.txt", skip, &r);
  CHECK(r.header == "5 3");
  CHECK(r.first_edge_like_counts.empty());
  CHECK(edges(g) == decltype(edges(g)){{0, 1}, {2, 1}, {4, 0}});
  g = load_graph(test::write_file(dir, "g.txt", "0 1\n1 2\n"), skip, &r);
  CHECK(edges(g) == decltype(edges(g)){{1, 2}});
  // header: false reads it as an edge, without the note.
  GraphLoadOptions keep;
  keep.header = false;
  g = load_graph(dir.path / "b.txt", keep, &r);
  CHECK(g.n_edges() == 4);
  CHECK(r.first_edge_like_counts.empty());
  // "N M" that does not look like counts: an edge, no note.
  g = load_graph(test::write_file(dir, "c.txt", "3 2\n0 1\n"), {}, &r);
  CHECK(r.header.empty());
  CHECK(r.first_edge_like_counts.empty());
  CHECK(edges(g) == decltype(edges(g)){{3, 2}, {0, 1}});
  g = load_graph(test::write_file(dir, "d.txt", "3 2\n0 1\n5 1\n"), {}, &r);  // id 5 is not below 3
  CHECK(g.n_edges() == 3);
  CHECK(r.first_edge_like_counts.empty());
  // Words (hollins' "start end"); commas; a third column is the edge's weight (networkx's
  // read_weighted_edgelist), a line without one weighs 1, further columns are ignored.
  g = load_graph(test::write_file(dir, "e.txt", "start end\n1,2,0.5\n2,3,1.5,x\n3 1\n"), {}, &r);
  CHECK(r.header == "start end");
  CHECK(r.weighted);
  CHECK(edges(g) == decltype(edges(g)){{1, 2}, {2, 3}, {3, 1}});
  CHECK(g.weights == std::vector<double>{0.5, 1.5, 1});
  g = load_graph(test::write_file(dir, "e1.txt", "1 2\n2 3 0\n"), {}, &r);
  CHECK(g.weights == std::vector<double>{1, 0});
  // data.weighted: false reads the links alone (a timestamp column, say); a column that is no weight is an
  // error naming the line and the way out.
  GraphLoadOptions links_only;
  links_only.weighted = false;
  g = load_graph(test::write_file(dir, "t.txt", "1 2 1400000000\n2 3 x\n"), links_only, &r);
  CHECK_FALSE(r.weighted);
  CHECK(g.weights.empty());
  CHECK_THROWS_WITH_AS(load_graph(dir.path / "t.txt"),
                       doctest::Contains("t.txt:2: the third column 'x' is not a number"), itercl::InputError);
  CHECK_THROWS_WITH_AS(load_graph(dir.path / "t.txt"), doctest::Contains("data.weighted"), itercl::InputError);
  CHECK_THROWS_WITH_AS(load_graph(test::write_file(dir, "n.txt", "1 2 1\n2 3 -0.5\n")),
                       doctest::Contains("n.txt:2: weight '-0.5': expected a finite number >= 0"), itercl::InputError);
  // A graph whose only edge is a self-loop is a graph of one node.
  g = load_graph(test::write_file(dir, "loop.txt", "7 7\n"), {}, &r);
  CHECK(g.n_nodes == 1);
  CHECK(g.label(0) == 7);
  CHECK(edges(g) == decltype(edges(g)){{7, 7}});
  CHECK(r.first_edge_like_counts.empty());
}

TEST_CASE("Matrix Market: pattern and weighted, general and symmetric, nodes 1..n") {
  test::TempDir dir;
  GraphLoadReport r;
  Graph g = load_graph(
      test::write_file(dir, "p.mtx",
                       "%%MatrixMarket matrix coordinate pattern general\n% a comment\n%\n4 4 3\n1 2\n2 3\n3 "
                       "1\n"),
      {}, &r);
  CHECK(r.format == "mtx");
  CHECK_FALSE(r.weighted);
  CHECK(g.n_nodes == 4);  // node 4 has no edge but exists
  CHECK(g.labels == std::vector<std::int64_t>{1, 2, 3, 4});
  CHECK(edges(g) == decltype(edges(g)){{1, 2}, {2, 3}, {3, 1}});

  // A weighted file's values are the links' weights, both ways for a symmetric one; a negative one is an
  // error naming the line (unless data.weighted: false reads the links alone).
  const auto negative = test::write_file(
      dir, "s.mtx", "%%MatrixMarket Matrix Coordinate Real Symmetric\n3 3 3\n2 1 0.5\n3 3 2\n3 1 -1e3\n");
  CHECK_THROWS_WITH_AS(load_graph(negative), doctest::Contains("s.mtx:5: weight '-1e3'"), itercl::InputError);
  GraphLoadOptions links_only;
  links_only.weighted = false;
  g = load_graph(dir.path / "s.mtx", links_only, &r);
  CHECK_FALSE(r.weighted);
  CHECK(edges(g) == decltype(edges(g)){{2, 1}, {1, 2}, {3, 3}, {3, 1}, {1, 3}});
  g = load_graph(test::write_file(dir, "w.mtx",
                                  "%%MatrixMarket Matrix Coordinate Real Symmetric\n3 3 3\n2 1 0.5\n3 3 2\n3 1 1e3\n"),
                 {}, &r);
  CHECK(r.weighted);
  CHECK(edges(g) == decltype(edges(g)){{2, 1}, {1, 2}, {3, 3}, {3, 1}, {1, 3}});
  CHECK(g.weights == std::vector<double>{0.5, 0.5, 2, 1e3, 1e3});
  g = load_graph(test::write_file(dir, "i.mtx.gz",
                                  gzip_bytes("%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 7\n")));
  CHECK(edges(g) == decltype(edges(g)){{2, 1}});
  CHECK(g.weights == std::vector<double>{7});
}

TEST_CASE("a tar archive of one file is read through, also inside gzip") {
  test::TempDir dir;
  const std::string text = "from to\n0\t1\n1\t0\n";
  const std::string one = tar_member("folder/", "", '5') + tar_member("folder/graph.txt", text) + tar_end();
  GraphLoadReport r;
  Graph g = load_graph(test::write_file(dir, "g.tar", one), {}, &r);
  CHECK(edges(g) == decltype(edges(g)){{0, 1}, {1, 0}});
  CHECK(r.header == "from to");
  // macOS's "._" companions and pax metadata entries are not data files.
  const std::string mac =
      tar_member("x", "k=v\n", 'x') + tar_member("._graph.txt", "junk") + tar_member("graph.txt", text) + tar_end();
  g = load_graph(test::write_file(dir, "mac.tar.gz", gzip_bytes(mac)));
  CHECK(g.n_edges() == 2);
}

TEST_CASE("graph loader errors name the file, the line and what was expected") {
  test::TempDir dir;
  auto fails = [&](const std::string& name, const std::string& bytes, const std::string& message) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(load_graph(test::write_file(dir, name, bytes)), doctest::Contains(message.c_str()),
                         itercl::InputError);
  };
  fails("bad.txt", "0 1\n1 x\n", "bad.txt:2: expected two node ids (integers), found '1 x'");
  fails("one.txt", "0 1\n7\n", "one.txt:2: expected two node ids");
  fails("frac.txt", "0 1\n1.5 2\n", "frac.txt:2:");
  fails("empty.txt", "", "empty.txt: no edges");
  fails("comments.txt", "# nothing\n\n# here\n", "no edges");
  fails("header-only.txt", "from to\n", "no edges");
  fails("array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
        "format 'array' is not a sparse graph");
  fails("complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "field 'complex'");
  fails("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n",
        "symmetry 'skew-symmetric'");
  fails("rect.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 1\n", "rect.mtx:2: a 2 x 3 matrix");
  fails("size.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2\n", "size.mtx:2: expected the size line");
  fails("nosize.mtx", "%%MatrixMarket matrix coordinate pattern general\n% only\n", "no size line");
  fails("range.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n0 1\n",
        "range.mtx:3: entry (0, 1) is outside");
  fails("few.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n", "ends after 1 of the 2 entries");
  fails("many.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n",
        "many.mtx:4: more entries than the 1");
  fails("nan.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n",
        "nan.mtx:3: expected 'row column value' with a finite value");
  fails("noval.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n", "noval.mtx:3:");
  fails("val.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 1\n", "a pattern entry has no value");
  fails("two.tar", tar_member("a.txt", "0 1\n") + tar_member("b.txt", "1 0\n") + tar_end(),
        "a tar archive holding 2 files (a.txt, b.txt)");
  fails("none.tar", tar_member("d/", "", '5') + tar_end(), "a tar archive holding 0 files");
  std::string cut = tar_member("a.txt", std::string(2000, '1'));
  cut.resize(1024);
  fails("cut.tar", cut, "tar member 'a.txt' is cut short (2000 bytes announced, 512 present)");
  std::string corrupt = tar_member("a.txt", "0 1\n") + tar_end();
  corrupt[0] = 'b';  // the checksum no longer matches
  fails("corrupt.tar", corrupt, "corrupt tar header at byte 0");
  std::string gz = gzip_bytes("0 1\n");
  gz.resize(gz.size() - 6);
  fails("cut.gz", gz, "not a valid gzip stream");
  CHECK_THROWS_WITH_AS(load_graph(dir / "missing.txt"), doctest::Contains("missing.txt: cannot open"),
                       itercl::InputError);

  GraphLoadOptions mtx;
  mtx.format = "mtx";
  CHECK_THROWS_WITH_AS(load_graph(test::write_file(dir, "x.txt", "0 1\n"), mtx),
                       doctest::Contains("not a Matrix Market file"), itercl::InputError);
  GraphLoadOptions edgelist;
  edgelist.format = "edgelist";
  CHECK_THROWS_WITH_AS(
      load_graph(test::write_file(dir, "y.mtx", "%%MatrixMarket matrix coordinate pattern general\n1 1 0\n"), edgelist),
      doctest::Contains("is a Matrix Market file"), itercl::InputError);
  GraphLoadOptions bad;
  bad.format = "csv";
  CHECK_THROWS_WITH_AS(load_graph(dir / "x.txt", bad), doctest::Contains("format: expected one of auto, edgelist, mtx"),
                       itercl::ParamError);
}

TEST_CASE("the four real graphs load with their header quirks (../shared/datasets/graphs)") {
  struct Case {
    const char* file;
    std::int32_t nodes;
    std::int64_t edges;
    const char* header;  // what the loader must recognise as not an edge
    std::int64_t first_label, last_label;
    bool counts_line;  // a first line of node and edge counts, which only the option skips
  };
  // Counts from the README of the datasets, verified there by reading the files.
  const Case cases[] = {{"web-NotreDame.tar.gz", 325729, 1497134, "325729 1497134", 0, 325728, true},
                        {"wiki-Vote.txt", 7115, 103689, "", 3, 8297, false},
                        {"p2p-Gnutella08.txt", 6301, 20777, "6350", 0, 6300, false},
                        {"hollins.dat", 6012, 23875, "start end", 1, 6012, false}};
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const auto path = test::shared_dataset(std::string("graphs/") + c.file);
    if (!path) continue;
    GraphLoadReport r;
    GraphLoadOptions options;
    if (c.counts_line) options.header = true;
    const Graph g = load_graph(*path, options, &r);
    CHECK(g.n_nodes == c.nodes);
    CHECK(g.n_edges() == c.edges);
    CHECK(r.header == c.header);
    CHECK(g.label(0) == c.first_label);
    CHECK(g.label(g.n_nodes - 1) == c.last_label);
    if (!c.counts_line) continue;
    CHECK(itercl::in_links(g).self_loops == 27455);
    // Without the option the counts are an edge, as networkx reads them, and the report says they look like counts.
    const Graph as_edge = load_graph(*path, {}, &r);
    CHECK(as_edge.n_edges() == c.edges + 1);
    CHECK(r.first_edge_like_counts == c.header);
  }
}

// Issue 14: an edge list's first line is a header only when none of its fields is a number (or it is one
// lone count); a first edge with a bad field is an error, not a header that drops it.
TEST_CASE("edge-list first lines: a broken first edge is an error, not a header") {
  test::TempDir dir;
  // A lone negative number or a float is no node count (p2p-Gnutella08's "6350"): no silent header.
  for (const char* first : {"1 x", "1 2x", "x 2", "-5", "6350.5", "1e3"}) {
    CAPTURE(first);
    const auto path = test::write_file(dir, "bad.txt", std::string(first) + "\n0 1\n1 2\n");
    try {
      load_graph(path);
      FAIL_CHECK("expected an InputError");
    } catch (const itercl::InputError& e) {
      CHECK(std::string(e.what()).find("bad.txt:1: expected two node ids") != std::string::npos);
    }
  }
}

// Issue 14: a 75-byte .mtx declaring 10^8 nodes took 5.9 GB and exited 0.
TEST_CASE("Matrix Market size lines beyond the file or memory are refused before allocating") {
  test::TempDir dir;
  auto message = [&](const char* name, const std::string& text) {
    try {
      load_graph(test::write_file(dir, name, text));
    } catch (const itercl::InputError& e) {
      return std::string(e.what());
    }
    FAIL_CHECK("expected an InputError");
    return std::string();
  };
  const std::string banner = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::string nodes = message("nodes.mtx", banner + "100000000 100000000 2\n1 2\n2 1\n");
  CHECK(nodes.find("nodes.mtx:2: the size line declares 100000000 nodes for 2 entries") != std::string::npos);
  CHECK(nodes.find("GB of memory) are refused") != std::string::npos);
  const std::string entries = message("entries.mtx", banner + "3 3 1000000\n1 2\n");
  CHECK(entries.find("entries.mtx:2: the size line announces 1000000 entries; a file of") != std::string::npos);
  // Isolated nodes within the bound still load.
  CHECK(load_graph(test::write_file(dir, "ok.mtx", banner + "1000 1000 1\n1 2\n")).n_nodes == 1000);
}

}  // namespace io_tests
