#include "io/graph_source.hpp"

#include <charconv>
#include <cmath>

#include "core/comm.hpp"
#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"
#include "itercl/timing.hpp"

namespace itercl {

bool drawn_in_parts(ConfigObject& data) {
  const nlohmann::json* generator = data.get("generator");
  return generator && generator->is_string() && generator->get<std::string>() == "rmat";
}

GraphInput read_graph(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description,
                      GraphPart part) {
  const auto path = data.path("path", base);
  const auto generator = data.string("generator");
  if (path.has_value() == generator.has_value()) data.fail("path", "give exactly one of \"path\" and \"generator\"");
  GraphInput in;
  in.links.self_loops = data.boolean("self_loops").value_or(true);
  in.links.duplicates = data.boolean("duplicates").value_or(true);
  auto integer = [&](const char* key, long long fallback, long long low, long long high) {
    const long long v = data.integer(key).value_or(fallback);
    if (v < low || v > high)
      data.fail(key, "expected an integer from " + std::to_string(low) + " to " + std::to_string(high) + ", got " +
                         std::to_string(v));
    return v;
  };

  Stopwatch load;
  std::optional<std::int64_t> whole_edges;  // a graph drawn in part: all its edges
  if (path) {
    GraphLoadOptions options;
    options.format = data.choice("format", "auto", {"auto", "edgelist", "mtx"});
    options.header = data.boolean("header");
    options.weighted = data.boolean("weighted").value_or(true);
    data.finish();
    GraphLoadReport report;
    try {
      in.graph = load_graph(*path, options, &report);
    } catch (const InputError& e) {
      data.fail("path", e.what());
    }
    description = {{"path", path->string()}, {"format", report.format}, {"weighted", report.weighted}};
    if (!report.header.empty()) {
      description["header_skipped"] = report.header;
      in.notes = "  data: the first line '" + report.header + "' was skipped as a header\n";
    }
    if (!report.first_edge_like_counts.empty()) {
      description["first_edge_like_counts"] = report.first_edge_like_counts;
      in.notes = "  data: the first line '" + report.first_edge_like_counts +
                 "' was read as an edge; if it is the node and edge counts, set data.header to true\n";
    }
  } else {
    const auto seed = static_cast<std::uint64_t>(integer("random_state", 0, 0, std::numeric_limits<long long>::max()));
    if (*generator == "rmat") {
      RmatParams p;
      p.scale = static_cast<int>(integer("scale", 10, 1, 30));
      p.edge_factor = static_cast<int>(integer("edge_factor", 16, 1, 1 << 20));
      p.a = data.number("a").value_or(p.a), p.b = data.number("b").value_or(p.b), p.c = data.number("c").value_or(p.c);
      p.d = data.number("d").value_or(1 - p.a - p.b - p.c);
      p.random_state = seed;
      data.finish();
      in.graph = with_field_prefix(data.source(), "data", [&] {
        const auto m = static_cast<std::size_t>(rmat_edge_count(p));
        whole_edges = static_cast<std::int64_t>(m);
        return make_rmat(p, static_cast<std::int64_t>(core::first_row(m, part.index, part.parts)),
                         static_cast<std::int64_t>(core::first_row(m, part.index + 1, part.parts)));
      });
      description = {{"generator", "rmat"},
                     {"scale", p.scale},
                     {"edge_factor", p.edge_factor},
                     {"a", p.a},
                     {"b", p.b},
                     {"c", p.c},
                     {"d", p.d},
                     {"random_state", seed}};
    } else if (*generator == "barabasi_albert") {
      BarabasiAlbertParams p;
      p.n_nodes = static_cast<std::int32_t>(integer("n_nodes", 1000, 2, std::numeric_limits<std::int32_t>::max()));
      p.m = static_cast<int>(integer("m", 3, 1, std::numeric_limits<int>::max()));
      p.random_state = seed;
      data.finish();
      in.graph = with_field_prefix(data.source(), "data", [&] { return make_barabasi_albert(p); });
      description = {{"generator", "barabasi_albert"}, {"n_nodes", p.n_nodes}, {"m", p.m}, {"random_state", seed}};
    } else {
      data.fail("generator", "expected \"rmat\" or \"barabasi_albert\", got \"" + *generator + "\"");
    }
  }
  description["load_ms"] = load.seconds() * 1e3;
  description["n_nodes"] = in.graph.n_nodes;
  description["n_edges"] = whole_edges.value_or(in.graph.n_edges());
  description["self_loops_kept"] = in.links.self_loops;
  description["duplicates_kept"] = in.links.duplicates;
  return in;
}

namespace io {

// A node id as the input wrote it: an integer (a JSON key or a file's first column).
std::int64_t node_id(ConfigObject& section, const std::string& field, const std::string& where, double v) {
  if (!(std::abs(v) < 9007199254740992.0) || v != std::floor(v))
    section.fail(field, where + ": node id " + number_text(v) + " is not an integer");
  return static_cast<std::int64_t>(v);
}

}  // namespace io

std::vector<double> read_node_values(ConfigObject& section, const std::string& field, const std::filesystem::path& base,
                                     const Graph& g) {
  const nlohmann::json* v = section.get(field);
  if (!v) return {};
  std::vector<double> values(static_cast<std::size_t>(g.n_nodes), 0.0);
  std::vector<bool> given(values.size(), false);
  // `where`: the file and row, or empty for inline values.
  auto set = [&](std::int64_t id, double value, const std::string& where) {
    const std::string node_text = (where.empty() ? "" : where + ": ") + "node " + std::to_string(id);
    const auto node = g.index_of(id);
    if (!node) section.fail(field, node_text + " is not in the graph");
    if (given[static_cast<std::size_t>(*node)]) section.fail(field, node_text + " is given twice");
    if (!std::isfinite(value) || value < 0)
      section.fail(field, node_text + " has " + number_text(value) + "; expected a finite value >= 0");
    given[static_cast<std::size_t>(*node)] = true;
    values[static_cast<std::size_t>(*node)] = value;
  };
  if (v->is_object()) {
    for (const auto& [key, value] : v->items()) {
      std::int64_t id = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
      if (ec != std::errc() || end != key.data() + key.size())
        section.fail(field, "key \"" + key + "\" is not a node id (an integer)");
      if (!value.is_number()) section.fail(field, "node " + key + ": expected a number, got " + value.dump());
      set(id, value.get<double>(), "");
    }
  } else if (v->is_string()) {
    const auto path = *section.path(field, base);
    Matrix m;
    try {
      m = load_matrix(path);
    } catch (const InputError& e) {
      section.fail(field, e.what());
    }
    if (m.cols() != 2)
      section.fail(field, path.string() + ": expected 2 columns (node, value), found " + std::to_string(m.cols()));
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      const std::string where = path.string() + ", row " + std::to_string(r + 1);
      set(io::node_id(section, field, where, m(r, 0)), m(r, 1), where);
    }
  } else {
    section.fail(field, "expected a file path or an object {\"node id\": value}, got " + v->dump());
  }
  return values;
}

}  // namespace itercl
