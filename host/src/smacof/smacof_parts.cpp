// The cut of delta's storage into device buffers of whole slices (smacof_parts.hpp).
#include "smacof/smacof_parts.hpp"

#include <algorithm>

#include "core/comm.hpp"

namespace itercl::smacof {

std::uint64_t least_slices(std::uint64_t columns, std::uint64_t column_values, std::uint64_t real,
                           std::uint64_t max_allocation) {
  const std::uint64_t column_bytes = std::max<std::uint64_t>(column_values * real, 1);
  const std::uint64_t most_columns = max_allocation / column_bytes;
  if (most_columns == 0) return 0;
  // ceil(columns / ceil(columns / m)) <= m: slices of ceil(columns / slices) columns each fit.
  return std::max<std::uint64_t>((columns + most_columns - 1) / most_columns, 1);
}

SliceRange rank_slices(int slices, int rank, int ranks) {
  const auto all = static_cast<std::size_t>(std::max(slices, 0));
  const std::size_t first = core::first_row(all, rank, ranks), end = core::first_row(all, rank + 1, ranks);
  return {static_cast<int>(first), static_cast<int>(end - first)};
}

DeltaLayout delta_layout(std::uint64_t columns, std::uint64_t column_values, int slices, std::uint64_t real,
                         std::uint64_t max_allocation, bool along_rows, SliceRange share) {
  DeltaLayout layout;
  layout.columns = columns;
  layout.column_values = column_values;
  layout.along_rows = along_rows;
  const auto all = static_cast<std::uint64_t>(std::max(slices, 1));
  layout.per_slice = (columns + all - 1) / all;
  const std::uint64_t slice_bytes = std::max<std::uint64_t>(layout.per_slice * column_values * real, 1);
  const std::uint64_t per_part = std::max<std::uint64_t>(max_allocation / slice_bytes, 1);
  const auto first = static_cast<std::uint64_t>(share.first);
  const std::uint64_t end = share.count < 0 ? all : first + static_cast<std::uint64_t>(share.count);
  for (std::uint64_t s = first; s < end; s += per_part) {
    DeltaPart p;
    p.slice_first = static_cast<int>(s);
    p.slices = static_cast<int>(std::min(per_part, end - s));
    p.column_first = std::min(columns, s * layout.per_slice);
    p.columns = std::min(columns, (s + p.slices) * layout.per_slice) - p.column_first;
    layout.parts.push_back(p);
  }
  return layout;
}

}  // namespace itercl::smacof
