// Reading and writing data files. Every error names the file (and the line, for text).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/matrix.hpp"

namespace itercl {

struct LoadOptions {
  // "auto" (by content: NumPy magic, IDX header, else text), "npy", "idx", "csv" or "text"
  // (whitespace-separated).
  std::string format = "auto";
  // Whether the first data line names the columns. Unset: a first line that does not parse as
  // numbers is taken as a header.
  std::optional<bool> header;
};

// A matrix, samples as rows, from CSV or whitespace text (lines starting with '#' and blank lines are
// skipped), NumPy .npy (float32/float64, C or Fortran order, 1-D read as a column) or IDX (MNIST's
// format: the first dimension as rows, the rest flattened), each optionally gzip-compressed (detected
// by content, whatever the extension). NaN and infinity are rejected.
// Throws InputError naming the file, and the line for text.
Matrix load_matrix(const std::filesystem::path& path, const LoadOptions& options = {});

// A matrix whose rows (and columns) name points, such as a dissimilarity matrix.
struct LabelledMatrix {
  Matrix values;
  std::vector<std::string> names;  // one per row, or empty when the file names none
};

// A matrix from .npy, or from CSV or whitespace text with an optional header row and an optional name
// column (as R's write.csv writes a distance matrix, e.g. eurodist: a header of names after an empty
// field, then each row's name and values; quoted fields may hold the delimiter). A first line whose
// fields after the first do not all parse as numbers is a header unless `options.header` says
// otherwise; a first field that is not a number makes the first column names. Without a name column, a header of one
// name per column names the rows. NaN and infinity are rejected; errors name the file, line and column.
LabelledMatrix load_labelled_matrix(const std::filesystem::path& path, const LoadOptions& options = {});

// The whole file, decompressed if it is gzip or bzip2 (by content), and the one file inside if it is a
// tar archive (a .tar.gz data set). Throws InputError for a missing file, a corrupt stream or archive,
// or an archive that does not hold exactly one file.
std::string read_file(const std::filesystem::path& path);

// Writes `contents` to a temporary file beside `path`, then renames it over `path`: a reader never
// sees a half-written file, and a failure leaves an earlier file intact. Creates missing folders. Inside
// a run (run_experiment) a path the run writes is renamed only when the whole run has succeeded.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// For programs (the CLI): SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and the other signals that end a
// process remove the temporary files of the outputs being written, then end the process as the signal
// would have. A signal that already has a handler at the first call keeps it. Call it again once the
// OpenCL platform has started (list_devices): PoCL's LLVM installs handlers of its own that swallow
// SIGQUIT and SIGUSR1, and the second call puts ours back in front of them.
void remove_temporaries_on_signals();

// NumPy .npy files (format 1.0, little-endian, C order), written atomically.
void save_npy(const std::filesystem::path& path, const Matrix& m);                  // float64, n x d
void save_npy(const std::filesystem::path& path, std::span<const std::int32_t> v);  // int32, n

// A matrix as CSV text with full double precision (what `.csv` outputs contain).
std::string to_csv(const Matrix& m);

}  // namespace itercl
