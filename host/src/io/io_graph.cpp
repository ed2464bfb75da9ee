// Edge lists (SNAP and plain) and the format dispatch of load_graph.
#include "io/io_graph.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <vector>

#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

bool is_comment(std::string_view line) { return line.front() == '#' || line.front() == '%'; }

// Edges with the input's ids, before they are numbered.
struct RawEdges {
  std::vector<std::int64_t> src, dst;
  std::vector<double> weights;  // empty until a line gives one; then one per edge (1 where none was given)
  std::int64_t min_id = std::numeric_limits<std::int64_t>::max(), max_id = std::numeric_limits<std::int64_t>::min();
  void add(std::int64_t s, std::int64_t d) {
    src.push_back(s), dst.push_back(d);
    min_id = std::min({min_id, s, d}), max_id = std::max({max_id, s, d});
  }
};

// Numbers the ids that occur, in ascending order (ids 0..n-1 with none missing keep their numbers).
// Dense ids go through a lookup table in O(edges); sparse ones through a sorted list.
Graph number_nodes(const RawEdges& raw, const std::filesystem::path& path) {
  Graph g;
  const std::size_t m = raw.src.size();
  g.src.resize(m), g.dst.resize(m);
  g.weights = raw.weights;
  const auto too_many = [&](std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      throw InputError(path.string() + ": " + std::to_string(n) + " distinct nodes; itercl handles at most 2^31 - 1");
  };
  const bool dense =
      raw.min_id >= 0 && static_cast<std::uint64_t>(raw.max_id) < 4 * static_cast<std::uint64_t>(m) + 1024;
  if (dense) {
    std::vector<std::int32_t> index(static_cast<std::size_t>(raw.max_id) + 1, -1);
    for (std::size_t e = 0; e < m; ++e) index[static_cast<std::size_t>(raw.src[e])] = 0;
    for (std::size_t e = 0; e < m; ++e) index[static_cast<std::size_t>(raw.dst[e])] = 0;
    std::size_t n = 0;
    for (std::size_t id = 0; id < index.size(); ++id)
      if (index[id] == 0) {
        too_many(n + 1);
        index[id] = static_cast<std::int32_t>(n++);
        g.labels.push_back(static_cast<std::int64_t>(id));
      }
    for (std::size_t e = 0; e < m; ++e) {
      g.src[e] = index[static_cast<std::size_t>(raw.src[e])];
      g.dst[e] = index[static_cast<std::size_t>(raw.dst[e])];
    }
    g.n_nodes = static_cast<std::int32_t>(n);
  } else {
    std::vector<std::int64_t> ids(raw.src);
    ids.insert(ids.end(), raw.dst.begin(), raw.dst.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    too_many(ids.size());
    auto index = [&](std::int64_t id) {
      return static_cast<std::int32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (std::size_t e = 0; e < m; ++e) g.src[e] = index(raw.src[e]), g.dst[e] = index(raw.dst[e]);
    g.n_nodes = static_cast<std::int32_t>(ids.size());
    g.labels = std::move(ids);
  }
  // Ids that were already 0..n-1 need no table.
  if (!g.labels.empty() && g.labels.front() == 0 && g.labels.back() == g.n_nodes - 1) g.labels.clear();
  return g;
}

// A first edge "N M" followed by exactly M edges among ids below N: what node and edge counts would look
// like (web-NotreDame's "325729 1497134"). Read as an edge all the same, as networkx reads it; the report
// says so, so that the run's summary can ask for data.header.
bool looks_like_counts(const RawEdges& raw) {
  const std::int64_t nodes = raw.src.front(), edges = raw.dst.front();
  const auto below = [&](std::int64_t id) { return id < nodes; };
  return nodes >= 0 && edges >= 1 && edges == static_cast<std::int64_t>(raw.src.size()) - 1 &&
         std::all_of(raw.src.begin() + 1, raw.src.end(), below) &&
         std::all_of(raw.dst.begin() + 1, raw.dst.end(), below);
}

Graph parse_edge_list(const std::string& text, const std::filesystem::path& path, const GraphLoadOptions& options,
                      GraphLoadReport& report) {
  RawEdges raw;
  LineReader lines(text);
  std::string_view line;
  bool first = true, first_has3 = false;
  std::string first_line;
  while (lines.next(line)) {
    if (line.empty() || is_comment(line)) continue;
    std::string_view rest = line, f1, f2, f3;
    const bool has1 = next_field(rest, f1), has2 = next_field(rest, f2), has3 = next_field(rest, f3);
    std::int64_t s = 0, d = 0;
    const bool two_ids = has1 && has2 && parse_int(f1, s) && parse_int(f2, d);
    if (first) {
      first = false, first_has3 = has3;
      first_line = std::string(line.substr(0, 80));
      // Unless the config says, a header is a line of words (none of its fields a number) or one lone count
      // (p2p-Gnutella08's "6350"; networkx skips a line of one field); two integers are an edge. "1 x" or
      // "1 2x" is a broken edge, an error, not a header that drops it.
      std::int64_t lone = 0;
      const bool count = has1 && !has2 && parse_int(f1, lone) && lone >= 0;
      if (options.header.value_or(!two_ids && (count || !any_number(line)))) {
        report.header = first_line;
        continue;
      }
    }
    if (!two_ids)
      throw InputError(where(path, lines.number()) + "expected two node ids (integers), found '" +
                       std::string(line.substr(0, 80)) + "'");
    if (has3 && options.weighted) {
      // networkx's read_weighted_edgelist: the third column weighs the edge; a line without one weighs 1.
      if (raw.weights.empty()) raw.weights.assign(raw.src.size(), 1.0);
      double w = 0;
      if (!parse_real(f3, w))
        throw InputError(where(path, lines.number()) + "the third column '" + std::string(f3.substr(0, 40)) +
                         "' is not a number; it is read as the edge's weight (set data.weighted to false to read "
                         "the links alone)");
      raw.weights.push_back(edge_weight(f3, where(path, lines.number())));
    } else if (!raw.weights.empty()) {
      raw.weights.push_back(1.0);
    }
    raw.add(s, d);
  }
  if (raw.src.empty())
    throw InputError(path.string() + ": no edges (the file is empty or holds only comments or a header)");
  report.weighted = !raw.weights.empty();
  if (!options.header.has_value() && report.header.empty() && !first_has3 && looks_like_counts(raw))
    report.first_edge_like_counts = first_line;
  return number_nodes(raw, path);
}

double edge_weight(std::string_view field, const std::string& at) {
  double w = 0;
  if (!parse_real(field, w) || w < 0)
    throw InputError(at + "weight '" + std::string(field.substr(0, 40)) +
                     "': expected a finite number >= 0 (weight 0 leaves the link out)");
  return w;
}

bool starts_with_banner(const std::string& text) {
  constexpr std::string_view banner = "%%matrixmarket";
  if (text.size() < banner.size()) return false;
  for (std::size_t i = 0; i < banner.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != banner[i]) return false;
  return true;
}

}  // namespace io

Graph load_graph(const std::filesystem::path& path, const GraphLoadOptions& options, GraphLoadReport* report) {
  const std::string& f = options.format;
  if (f != "auto" && f != "edgelist" && f != "mtx")
    throw ParamError("format", "expected one of auto, edgelist, mtx; got '" + f + "'");
  const std::string text = read_file(path);
  const bool mtx = io::starts_with_banner(text);
  if (f == "mtx" && !mtx) throw InputError(path.string() + ": not a Matrix Market file (no %%MatrixMarket banner)");
  if (f == "edgelist" && mtx)
    throw InputError(path.string() + ": is a Matrix Market file, but format 'edgelist' was asked for");
  GraphLoadReport local;
  GraphLoadReport& r = report ? *report : local;
  r = GraphLoadReport{};
  r.format = mtx ? "mtx" : "edgelist";
  if (mtx && options.header.has_value())
    throw ParamError("header", "applies to edge lists; a Matrix Market file's header is its banner and size line");
  return mtx ? io::parse_matrix_market(text, path, options, r) : io::parse_edge_list(text, path, options, r);
}

}  // namespace itercl
