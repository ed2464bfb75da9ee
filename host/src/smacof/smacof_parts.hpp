// delta's storage cut into device buffers (internal): each buffer holds whole slices of the fused pass's
// columns (cl/smacof.clh's banner, "buffers"), as many as one allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE)
// takes, so that a block larger than one allocation still runs, one launch per buffer, each slice computed
// as one buffer would compute it. Every offset here is 64-bit: a buffer's values pass 2^31 from
// N = 46,341 on (the kernels index in ulong for the same reason). Over several MPI ranks packed storage
// gives each rank a balanced range of whole slices (rank_slices), and its buffers hold only those.
#pragma once

#include <cstdint>
#include <vector>

namespace itercl::smacof {

// One buffer of delta: the slices [slice_first, slice_first + slices), its columns
// [column_first, column_first + columns) of the storage (full: j; packed: k - 1).
struct DeltaPart {
  int slice_first = 0, slices = 0;
  std::uint64_t column_first = 0, columns = 0;
};

// The slices [first, first + count) of a device's share: all of them on one device, a rank's range of them
// over ranks with packed storage.
struct SliceRange {
  int first = 0, count = 0;
};

// Rank `rank`'s slices of `slices` over `ranks`: core::first_row's balanced split, whole slices, ranges in
// rank order; a rank gets none when slices < ranks.
SliceRange rank_slices(int slices, int rank, int ranks);

struct DeltaLayout {
  std::uint64_t columns = 0;        // of the storage: N (full) or floor(N/2) (packed), all slices'
  std::uint64_t column_values = 0;  // values of one column: the block's rows (full) or N (packed)
  std::uint64_t per_slice = 0;      // columns of a slice (the last may hold fewer, or none)
  bool along_rows = false;          // full storage read along the rows (fused_rows)
  std::vector<DeltaPart> parts;     // the share's slices in order, their columns numbered as in the whole

  std::uint64_t values(const DeltaPart& p) const { return p.columns * column_values; }
  // Where value `r` of column `c` (c within p's columns) lives in p's buffer: r is the row within the block
  // (full) or i (packed).
  std::uint64_t offset(const DeltaPart& p, std::uint64_t r, std::uint64_t c) const {
    return along_rows ? r * p.columns + (c - p.column_first) : (c - p.column_first) * column_values + r;
  }
};

// The cut of `columns` columns of `column_values` values of `real` bytes, in `slices` slices, into
// buffers of at most `max_allocation` bytes, each holding as many whole slices as fit (at least one:
// least_slices keeps a slice within one allocation). `share`: the slices cut (count -1: all of them);
// none, no buffer.
DeltaLayout delta_layout(std::uint64_t columns, std::uint64_t column_values, int slices, std::uint64_t real,
                         std::uint64_t max_allocation, bool along_rows, SliceRange share = {0, -1});

// The fewest slices whose every slice fits one allocation; 0 when not even one column does.
std::uint64_t least_slices(std::uint64_t columns, std::uint64_t column_values, std::uint64_t real,
                           std::uint64_t max_allocation);

}  // namespace itercl::smacof
