// The symmetric variant's tile storage of delta (cl/smacof.cl, "symmetric"; internal): its shape, the
// work-group's grid, and a matrix packed into it and read back on the host.
#pragma once

#include <cstdint>

#include "itercl/matrix.hpp"
#include "itercl/smacof.hpp"

namespace itercl::smacof {

// The tiles of an N-point problem: T = ceil(N / tile) row tiles, the T (T + 1) / 2 tiles (I, J), I <= J,
// each a work-group of grid_rows x grid_cols work-items.
struct TileShape {
  std::uint64_t n = 0;
  std::uint64_t row_tiles = 0;
  int tile = 0, grid_rows = 0, grid_cols = 0;

  std::uint64_t tiles() const { return row_tiles * (row_tiles + 1) / 2; }
  std::uint64_t values() const { return tiles() * static_cast<std::uint64_t>(tile) * tile; }
  // The row and column sums the tiles leave for symmetric_finish: T slots of tile x dim per row tile.
  std::uint64_t partial_values(int dim) const {
    return row_tiles * row_tiles * static_cast<std::uint64_t>(tile) * static_cast<std::uint64_t>(dim);
  }
  int work_group_size() const { return grid_rows * grid_cols; }
};

// The shape for a resolved symmetric kernel (tile and work_group_size set) and N points.
TileShape tile_shape(const SmacofKernel& k, std::uint64_t n);

// Checks a symmetric kernel's work-group and tile (ParamError naming the field).
void check_tile(const SmacofKernel& k);

// The stored value at `index` is pair (i, j) of the matrix when `live` (i < j < N), else 0: calls
// f(index, i, j, live) for every stored value, in storage order.
template <class F>
void for_each_tile_value(const TileShape& s, F&& f) {
  const auto wg = static_cast<std::uint64_t>(s.work_group_size()), tile = static_cast<std::uint64_t>(s.tile);
  const std::uint64_t item_rows = tile / s.grid_rows, item_cols = tile / s.grid_cols;
  std::uint64_t index = 0;
  for (std::uint64_t J = 0; J < s.row_tiles; ++J)
    for (std::uint64_t I = 0; I <= J; ++I)
      for (std::uint64_t p = 0; p < item_rows * item_cols; ++p)
        for (std::uint64_t t = 0; t < wg; ++t, ++index) {
          const std::uint64_t i = I * tile + t % s.grid_rows + s.grid_rows * (p / item_cols);
          const std::uint64_t j = J * tile + t / s.grid_rows + s.grid_cols * (p % item_cols);
          f(index, static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j), i < j && j < s.n);
        }
}

template <class T>
void pack_tiles(const Matrix& m, const TileShape& s, T* out) {
  for_each_tile_value(s, [&](std::uint64_t at, Eigen::Index i, Eigen::Index j, bool live) {
    out[at] = live ? static_cast<T>(m(i, j)) : T(0);
  });
}

// The N x N matrix (zero diagonal) the tile storage `values` holds.
template <class T>
void unpack_tiles(const T* values, const TileShape& s, Matrix& out) {
  for_each_tile_value(s, [&](std::uint64_t at, Eigen::Index i, Eigen::Index j, bool live) {
    if (live) out(i, j) = out(j, i) = values[at];
  });
}

}  // namespace itercl::smacof
