#include "io/data_source.hpp"

#include <cmath>
#include <fstream>
#include <limits>

#include "core/comm.hpp"
#include "core/device_data.hpp"
#include "io/datagen_rows.hpp"
#include "io/io_limits.hpp"
#include "io/io_npy.hpp"
#include "io/output_set.hpp"
#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

// Runs a file read, naming the config field that asked for the file in its errors.
template <class F>
decltype(auto) with_file_prefix(ConfigObject& section, const std::string& field, F&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    section.fail(field, e.what());
  }
}

// A regular file that starts with NumPy's magic: read by rows in its dtype; anything else named .npy
// (compressed, a pipe) goes through load_matrix, which says what it is.
bool plain_npy(const std::filesystem::path& path) {
  if (!describe_path_kind(path).empty()) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(6, '\0');
  return in.read(head.data(), 6) && is_npy(head);
}

}  // namespace io

Matrix read_vectors(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description) {
  return read_vector_rows(data, base, description, 0, 1, Precision::f64).X.to_matrix();
}

VectorRows read_vector_rows(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description,
                            int rank, int ranks, Precision precision) {
  const auto path = data.path("path", base);
  const auto generator = data.string("generator");
  if (path.has_value() == generator.has_value()) data.fail("path", "give exactly one of \"path\" and \"generator\"");

  VectorRows out;
  // This rank's rows of n.
  auto part = [&](Eigen::Index n) {
    const auto un = static_cast<std::size_t>(n);
    out.n = n;
    out.first = static_cast<Eigen::Index>(core::first_row(un, rank, ranks));
    return static_cast<Eigen::Index>(core::first_row(un, rank + 1, ranks)) - out.first;
  };
  if (path) {
    LoadOptions options;
    options.format = data.choice("format", "auto", {"auto", "npy", "idx", "csv", "text"});
    options.header = data.boolean("header");
    const bool npy = options.format == "npy" || (options.format == "auto" && path->extension() == ".npy");
    if (npy && (ranks > 1 || io::plain_npy(*path))) {
      out.X = io::with_file_prefix(data, "path", [&] {
        if (io::OutputSet* run = io::OutputSet::active()) run->note_input(*path);
        const io::NpyShape shape = io::npy_shape(*path);
        const Eigen::Index rows = part(static_cast<Eigen::Index>(shape.rows));
        const auto cols = static_cast<Eigen::Index>(shape.cols);
        io::check_declared_memory(*path, "this rank's values", static_cast<std::uint64_t>(rows * cols),
                                  static_cast<double>(real_size(shape.dtype)));
        core::HostRows X(shape.dtype, rows, cols,
                         path->string() + ": rows " + std::to_string(out.first) + " to " +
                             std::to_string(out.first + rows) + " of " + std::to_string(cols) + " values");
        with_real(shape.dtype, [&](auto zero) {
          io::read_npy_block(*path, static_cast<std::size_t>(out.first), static_cast<std::size_t>(rows), 0, shape.cols,
                             X.data<decltype(zero)>());
        });
        return X;
      });
    } else if (rank == 0) {
      out.X = io::with_file_prefix(data, "path", [&] { return core::HostRows(load_matrix(*path, options)); });
      out.n = out.X.rows();
      out.whole = ranks > 1;
    } else {
      out.whole = true;
    }
    description = {{"path", path->string()}};
  } else {
    auto count = [&](const char* key, long long fallback) {
      const long long v = data.integer(key).value_or(fallback);
      if (v < 1) data.fail(key, "expected an integer >= 1, got " + std::to_string(v));
      return v;
    };
    const auto n = count("n_samples", 1000), d = count("n_features", 2);
    const auto seed = data.integer("random_state").value_or(0);
    if (seed < 0) data.fail("random_state", "expected an integer >= 0, got " + std::to_string(seed));
    // A field the config leaves out takes the generator's default (itercl/datagen.hpp).
    if (*generator == "blobs") {
      BlobsParams p;
      p.n_samples = n, p.n_features = d, p.random_state = static_cast<std::uint64_t>(seed);
      const long long centers = count("centers", p.centers);  // checked before the conversion to int
      if (centers > std::numeric_limits<int>::max())
        data.fail("centers", "expected an integer from 1 to " + std::to_string(std::numeric_limits<int>::max()) +
                                 ", got " + std::to_string(centers));
      p.centers = static_cast<int>(centers);
      p.cluster_std = data.number("cluster_std").value_or(p.cluster_std);
      if (!(p.cluster_std >= 0)) data.fail("cluster_std", "expected a number >= 0");
      try {
        const Eigen::Index rows = part(p.n_samples);
        out.X = io::blobs_rows(p, out.first, rows, precision);
      } catch (const ParamError& e) {  // named as the config's field, in the config file
        data.fail(e.field(), e.detail());
      }
    } else if (*generator == "uniform") {
      UniformParams p;
      p.n_samples = n, p.n_features = d, p.random_state = static_cast<std::uint64_t>(seed);
      p.low = data.number("low").value_or(p.low);
      p.high = data.number("high").value_or(p.high);
      if (!(p.high > p.low)) data.fail("high", "expected a number greater than low");
      try {
        const Eigen::Index rows = part(p.n_samples);
        out.X = io::uniform_rows(p, out.first, rows, precision);
      } catch (const ParamError& e) {  // named as the config's field, in the config file
        data.fail(e.field(), e.detail());
      }
    } else {
      data.fail("generator", "expected \"blobs\" or \"uniform\", got \"" + *generator + "\"");
    }
    description = {{"generator", *generator}, {"random_state", seed}};
  }
  data.finish();
  description["n_samples"] = out.n;
  description["n_features"] = out.X.cols();
  return out;
}

Matrix read_matrix_value(ConfigObject& section, const std::string& field, const std::filesystem::path& base) {
  const nlohmann::json* v = section.get(field);
  if (v && v->is_string()) {
    const auto path = *section.path(field, base);
    return io::with_file_prefix(section, field, [&] { return load_matrix(path); });
  }
  if (!v || !v->is_array() || v->empty() || !(*v)[0].is_array() || (*v)[0].empty())
    section.fail(field, "expected a file path or a non-empty array of rows, got " + (v ? v->dump() : "nothing"));
  const std::size_t cols = (*v)[0].size();
  Matrix m(static_cast<Eigen::Index>(v->size()), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& row = (*v)[i];
    if (!row.is_array() || row.size() != cols)
      section.fail(
          field, "row " + std::to_string(i) + " is " + row.dump() + "; expected " + std::to_string(cols) + " numbers");
    for (std::size_t j = 0; j < cols; ++j) {
      if (!row[j].is_number() || !std::isfinite(row[j].get<double>()))
        section.fail(field, "row " + std::to_string(i) + " holds " + row[j].dump() + "; expected finite numbers");
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = row[j].get<double>();
    }
  }
  return m;
}

std::vector<double> read_vector_value(ConfigObject& section, const std::string& field,
                                      const std::filesystem::path& base) {
  const nlohmann::json* v = section.get(field);
  if (v && v->is_array() && !v->empty() && !v->front().is_array()) {
    std::vector<double> values;
    for (std::size_t i = 0; i < v->size(); ++i) {
      const auto& x = (*v)[i];
      if (!x.is_number() || !std::isfinite(x.get<double>()))
        section.fail(field, "element " + std::to_string(i) + " is " + x.dump() + "; expected a finite number");
      values.push_back(x.get<double>());
    }
    return values;
  }
  const Matrix m = read_matrix_value(section, field, base);
  if (m.cols() != 1 && m.rows() != 1)
    section.fail(field, "expected one row or one column, got " + std::to_string(m.rows()) + " x " +
                            std::to_string(m.cols()) + " values");
  return {m.data(), m.data() + m.size()};
}

}  // namespace itercl
