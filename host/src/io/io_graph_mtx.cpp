// Matrix Market coordinate files as graphs: entry (i, j) is the edge i -> j (the adjacency matrix's
// convention, as scipy and networkx read them); nodes are 1..n, keeping the file's numbering.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "io/io_graph.hpp"
#include "io/io_limits.hpp"
#include "itercl/error.hpp"

namespace itercl::io {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The memory a node takes from loading through PageRank (labels, degrees, offsets, ranks, in the
// largest configuration measured: 10^8 nodes took 5.9 GB).
constexpr double kBytesPerNode = 64;

Graph parse_matrix_market(const std::string& text, const std::filesystem::path& path, const GraphLoadOptions& options,
                          GraphLoadReport& report) {
  LineReader lines(text);
  std::string_view line;
  lines.next(line);
  // %%MatrixMarket matrix coordinate <pattern|real|integer|double> <general|symmetric>
  std::string_view rest = line, token;
  std::string words[5];
  for (auto& w : words) w = next_field(rest, token) ? lower(token) : "";
  const std::string banner = where(path, 1) + "Matrix Market banner '" + std::string(line.substr(0, 80)) + "': ";
  if (words[1] != "matrix") throw InputError(banner + "expected object 'matrix'");
  if (words[2] != "coordinate")
    throw InputError(banner + "format '" + words[2] + "' is not a sparse graph; expected 'coordinate'");
  const std::string& field = words[3];
  if (field != "pattern" && field != "real" && field != "integer" && field != "double")
    throw InputError(banner + "field '" + field + "': expected pattern, real or integer");
  const std::string& symmetry = words[4];
  if (symmetry != "general" && symmetry != "symmetric")
    throw InputError(banner + "symmetry '" + symmetry + "': expected general or symmetric");
  const bool pattern = field == "pattern", symmetric = symmetry == "symmetric";
  // An entry's value is its link's weight, as networkx's from_scipy_sparse_array reads scipy's mmread.
  report.weighted = !pattern && options.weighted;

  // The size line, after any comments: rows columns entries.
  std::int64_t rows = -1, cols = -1, entries = -1;
  while (lines.next(line)) {
    if (line.empty() || line.front() == '%') continue;
    std::string_view r = line, a, b, c, extra;
    if (!next_field(r, a) || !next_field(r, b) || !next_field(r, c) || next_field(r, extra) || !parse_int(a, rows) ||
        !parse_int(b, cols) || !parse_int(c, entries) || rows < 0 || cols < 0 || entries < 0)
      throw InputError(where(path, lines.number()) + "expected the size line 'rows columns entries', found '" +
                       std::string(line.substr(0, 80)) + "'");
    break;
  }
  if (rows < 0) throw InputError(path.string() + ": no size line after the banner");
  if (rows != cols)
    throw InputError(where(path, lines.number()) + "a " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " matrix: a graph's adjacency matrix must be square");
  if (rows > std::numeric_limits<std::int32_t>::max())
    throw InputError(where(path, lines.number()) + std::to_string(rows) + " nodes; itercl handles at most 2^31 - 1");
  // Checked before anything is allocated. Entries: each takes a line of at least 4 bytes ("1 1\n"), so
  // the file fixes their most. Nodes: the format lets nodes have no entry, but a size line declaring far
  // more nodes than its entries touch (a 75-byte file declaring 10^8 nodes took 5.9 GB) is refused: at
  // most 2^24 nodes without an entry, and never more than the memory available.
  if (static_cast<std::uint64_t>(entries) > text.size() / 4 + 1)
    throw InputError(where(path, lines.number()) + "the size line announces " + std::to_string(entries) +
                     " entries; a file of " + std::to_string(text.size()) + " bytes holds at most " +
                     std::to_string(text.size() / 4 + 1));
  constexpr std::int64_t kUntouched = std::int64_t{1} << 24;
  if (rows > 2 * entries + kUntouched)
    throw InputError(where(path, lines.number()) + "the size line declares " + std::to_string(rows) + " nodes for " +
                     std::to_string(entries) + " entries, which touch at most " + std::to_string(2 * entries) +
                     "; more than 2^24 nodes without an entry (about " +
                     bytes_text(static_cast<double>(rows) * kBytesPerNode) + " of memory) are refused");
  check_declared_memory(path, "the size line's nodes:", static_cast<std::uint64_t>(rows), kBytesPerNode);

  Graph g;
  g.n_nodes = static_cast<std::int32_t>(rows);
  const std::size_t reserve = static_cast<std::size_t>(std::min<std::int64_t>(entries, 1 << 26)) * (symmetric ? 2 : 1);
  g.src.reserve(reserve), g.dst.reserve(reserve);
  if (report.weighted) g.weights.reserve(reserve);
  std::int64_t seen = 0;
  while (lines.next(line)) {
    if (line.empty() || line.front() == '%') continue;
    const std::string at = where(path, lines.number());
    if (seen == entries)
      throw InputError(at + "more entries than the " + std::to_string(entries) + " the size line announces");
    std::string_view r = line, fi, fj, fv, extra;
    std::int64_t i = 0, j = 0;
    if (!next_field(r, fi) || !next_field(r, fj) || !parse_int(fi, i) || !parse_int(fj, j))
      throw InputError(at + "expected an entry 'row column" + (pattern ? "" : " value") + "', found '" +
                       std::string(line.substr(0, 80)) + "'");
    const bool has_value = next_field(r, fv);
    double value = 0;
    if (pattern ? has_value : (!has_value || !parse_real(fv, value) || next_field(r, extra)))
      throw InputError(at +
                       (pattern ? "a pattern entry has no value, found '"
                                : "expected 'row column value' with a finite value, found '") +
                       std::string(line.substr(0, 80)) + "'");
    if (i < 1 || i > rows || j < 1 || j > rows)
      throw InputError(at + "entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is outside the " +
                       std::to_string(rows) + " x " + std::to_string(rows) + " matrix (indices start at 1)");
    const double weight = report.weighted ? edge_weight(fv, at) : 1;
    g.src.push_back(static_cast<std::int32_t>(i - 1)), g.dst.push_back(static_cast<std::int32_t>(j - 1));
    if (report.weighted) g.weights.push_back(weight);
    if (symmetric && i != j) {
      g.src.push_back(static_cast<std::int32_t>(j - 1)), g.dst.push_back(static_cast<std::int32_t>(i - 1));
      if (report.weighted) g.weights.push_back(weight);
    }
    ++seen;
  }
  if (seen < entries)
    throw InputError(path.string() + ": the file ends after " + std::to_string(seen) + " of the " +
                     std::to_string(entries) + " entries its size line announces");
  g.labels.resize(static_cast<std::size_t>(rows));
  for (std::int64_t k = 0; k < rows; ++k) g.labels[static_cast<std::size_t>(k)] = k + 1;
  return g;
}

}  // namespace itercl::io
