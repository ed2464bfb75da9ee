// The generators' rows drawn straight into the precision a run keeps them in, on all cores (internal).
#pragma once

#include "core/host_rows.hpp"
#include "itercl/datagen.hpp"

namespace itercl::io {

// Generated rows come from streams of kStreamRows rows each. Stream 0 is std::mt19937_64 seeded with
// random_state (continuing after the blobs' centres), the single stream every data set of up to
// kStreamRows rows has always been drawn from; stream s > 0 is seeded with the seed sequence
// (random_state, s). A thread or an MPI rank so starts any stream at once, and skips draws only inside
// its first one: std::mt19937_64's discard costs about 4 ns a draw on this project's Xeon, which would
// be minutes for a rank whose rows start 4·10^10 draws in.
inline constexpr Eigen::Index kStreamRows = 65536;

// Rows [first, first + rows) of make_blobs(p) / make_uniform(p), in `precision` (float: each double value
// rounded once), drawn by `workers` threads over whole streams (0: as many as the work is worth, at most
// one per core). Any workers and any rows give the same values as the whole data set drawn on one thread.
core::HostRows blobs_rows(const BlobsParams& p, Eigen::Index first, Eigen::Index rows, Precision precision,
                          int workers = 0);
core::HostRows uniform_rows(const UniformParams& p, Eigen::Index first, Eigen::Index rows, Precision precision,
                            int workers = 0);

}  // namespace itercl::io
