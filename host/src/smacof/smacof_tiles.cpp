// The symmetric variant on the device (cl/smacof.cl, "symmetric"): its tile shape and checks, its
// kernels and buffers, a pass (the tiles, then symmetric_finish) and delta built into tile storage.
#include "smacof/smacof_tiles.hpp"

#include <algorithm>
#include <string>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device_impl.hpp"

namespace itercl::smacof {

// Rows (and columns) of a tile one work-item takes at most: it keeps their points and sums in registers.
constexpr int kMaxItemRows = 16;

// The grid of a power-of-two work-group: the largest power of two r with r^2 <= size as rows, size / r
// (r or 2r) as columns, so that each work-item's rows and columns are about as many.
int grid_rows_of(int work_group_size) {
  int r = 1;
  while (4 * r * r <= work_group_size) r *= 2;
  return r;
}

void check_tile(const SmacofKernel& k) {
  const int wg = k.work_group_size;
  if (wg <= 0 || (wg & (wg - 1)) != 0)
    throw ParamError("kernel.work_group_size",
                     "variant symmetric arranges its work-items in a grid of powers of "
                     "two: expected a power of two, got " +
                         std::to_string(wg));
  const int rows = grid_rows_of(wg), cols = wg / rows;
  if (k.tile % cols != 0 || k.tile / rows > kMaxItemRows)
    throw ParamError("kernel.tile", "with " + std::to_string(wg) + " work-items (a " + std::to_string(rows) + " x " +
                                        std::to_string(cols) + " grid) the tile must be a multiple of " +
                                        std::to_string(cols) + " up to " + std::to_string(rows * kMaxItemRows) +
                                        "; got " + std::to_string(k.tile));
}

TileShape tile_shape(const SmacofKernel& k, std::uint64_t n) {
  TileShape s;
  s.n = n;
  s.tile = k.tile;
  s.grid_rows = grid_rows_of(k.work_group_size);
  s.grid_cols = k.work_group_size / s.grid_rows;
  s.row_tiles = (n + static_cast<std::uint64_t>(k.tile) - 1) / static_cast<std::uint64_t>(k.tile);
  return s;
}

void SmacofDevice::Impl::setup_symmetric() {
  const TileShape shape = tiles();
  fused = device.kernel("smacof.cl", options, "symmetric");
  finish = device.kernel("smacof.cl", options, "symmetric_finish");
  fused_global = static_cast<std::size_t>(shape.tiles()) * static_cast<std::size_t>(k.work_group_size);
  stress_pairs = static_cast<std::size_t>(shape.row_tiles);
  partial_bx =
      cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                 std::max<std::size_t>(static_cast<std::size_t>(shape.partial_values(problem.dim)), 1) * real());
  tile_stress = cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                           std::max<std::size_t>(2 * static_cast<std::size_t>(shape.tiles()), 1) * real());
}

void SmacofDevice::Impl::symmetric_pass(int src, int dst, int slot, std::vector<cl::Event>& events) {
  if (problem.n == 0) return;
  cl::CommandQueue& q = device.queue();
  const auto n = static_cast<cl_int>(problem.n);
  cl::Event run, tail;
  set_args(fused, delta, weights_or_delta(), x[src], n, partial_bx, tile_stress);
  q.enqueueNDRangeKernel(fused, cl::NullRange, cl::NDRange(fused_global), local(), nullptr, &run);
  events.push_back(run);
  with_real(problem.precision, [&](auto zero) {
    set_args(finish, partial_bx, tile_stress, n, static_cast<decltype(zero)>(transform_scale()),
             problem.weighted ? bx : x[dst], partial_stress[slot]);
  });
  q.enqueueNDRangeKernel(finish, cl::NullRange, cl::NDRange(stress_pairs * static_cast<std::size_t>(k.work_group_size)),
                         local(), nullptr, &tail);
  events.push_back(tail);
  transform_tail(dst, events);
}

void SmacofDevice::Impl::build_tiles(const cl::Buffer& vectors, Eigen::Index features, cl::Event& run) {
  const TileShape shape = tiles();
  cl::Kernel build = device.kernel("smacof.cl", options, "build_delta_tiles");
  set_args(build, vectors, static_cast<cl_int>(problem.n), static_cast<cl_int>(features), delta);
  const auto per_item = static_cast<std::size_t>((shape.tile / shape.grid_rows) * (shape.tile / shape.grid_cols));
  device.queue().enqueueNDRangeKernel(build, cl::NullRange, cl::NDRange(fused_global, per_item),
                                      cl::NDRange(static_cast<std::size_t>(k.work_group_size), 1), nullptr, &run);
}

}  // namespace itercl::smacof
