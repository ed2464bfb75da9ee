// What SMACOF's buffers take on a device (internal): delta in its storage and buffers, the embeddings and
// partial rows, the weights and V+, one device's or each of several MPI ranks' share; and the checks that
// refuse what does not fit before anything is uploaded, saying which N, storage, precision or number of
// ranks would.
#pragma once

#include <cstdint>
#include <string>

#include "itercl/device.hpp"
#include "smacof/smacof_kernel.hpp"

namespace itercl::smacof {

// Whether delta's storage, as k resolved it, fits the problem's devices (each like `info`): one device's
// buffers, or the largest rank's share over problem.ranks.
bool storage_fits(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem);

// Throws InputError if the problem's buffers exceed the device's global memory or largest allocation,
// saying which N would fit, with packed storage or float, and over how many MPI ranks.
void check_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem);

// Bytes on its device of a rank holding `rows` rows of delta over MPI ranks (full storage): the rows, the
// embedding, the block's rows of the next one and its slices' partial rows, and the vectors if given.
std::uint64_t block_bytes(const SmacofKernel& k, const Problem& problem, std::uint64_t rows);

// Bytes on its device of the rank with the most of k.slices over problem.ranks (packed storage): its
// slices' columns of N values, the embedding, its sum of B(X) X and its slices' partial rows (N each),
// and the vectors.
std::uint64_t packed_rank_bytes(const SmacofKernel& k, const Problem& problem);

// The fewest MPI ranks whose balanced blocks fit devices like `info` (0: not even one row each does).
std::uint64_t ranks_that_fit(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem);

// The same with packed storage, the slices auto_slices_over gives each number of ranks (0: none fits).
std::uint64_t packed_ranks_that_fit(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem);

// Over problem.ranks > 1: throws InputError if rank `rank`'s share of delta (full storage: its `rows` rows;
// packed: the largest rank's slices, so that every rank refuses alike) exceeds a device like `info`, naming
// the ranks that would fit.
void check_rank_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem, int rank,
                       std::uint64_t rows);

}  // namespace itercl::smacof
