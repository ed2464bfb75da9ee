// The rectangles of D streamed through every device (seed 003, section 4.3.4): two queues per device and
// two tile slots, so that the transfers (or reductions) of one rectangle overlap the kernel of the next;
// the devices' threads take rectangles first come first served.
#include "pairwise/pairwise_stream.hpp"

#include <array>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "pairwise/pairwise_knn.hpp"

namespace itercl {
namespace pairwise {

// A tile slot's rectangle in flight: its kernel, and the read (or reduction) after it.
struct Pending {
  cl::Event run, read;
  Rect rect{};
  bool active = false;
};

}  // namespace pairwise

void PairwiseDistances::Impl::work(pairwise::DistanceWorker& w, pairwise::RectangleQueue& queue, const PairSink& sink,
                                   pairwise::TileReducer* reducer, pairwise::FusedKnn* fused) {
  Stopwatch wall;
  const Precision precision = params.precision;
  const double p = params.p, inv_p = 1 / params.p;
  std::array<pairwise::Pending, 2> pending;
  auto drain = [&](pairwise::Pending& slot, int k) {
    slot.read.wait();
    Stopwatch host;
    const pairwise::Rect& r = slot.rect;
    if (!fused) w.share.timings.kernel_s += event_seconds(slot.run);
    if (fused) {
      fused->drain(k, r, w.share.timings);  // adds its kernel's and reads' times
    } else if (reducer) {
      reducer->drain(k, r, w.share.timings);  // adds its kernels' and reads' times
    } else {
      w.share.timings.transfer_s += event_seconds(slot.read);
      sink(PairTile{r.row0, r.col0, r.rows, r.cols, r.cols, symmetric, precision, w.host[k].data()});
    }
    w.share.timings.host_s += host.seconds();
    slot.active = false;
  };
  const PairwiseKernel& k = w.kernel;
  int slot = 0;
  while (const pairwise::Rect* r = queue.next()) {
    pairwise::Pending& pend = pending[slot];
    if (pend.active) drain(pend, slot);
    if (fused) {
      pend.read = fused->enqueue(slot, *r, w.compute, w.transfer);
      pend.rect = *r;
      pend.active = true;
      ++w.share.rectangles;
      w.share.pairs += static_cast<double>(r->rows * r->cols);
      slot ^= 1;
      continue;
    }
    with_real(precision, [&](auto zero) {
      using T = decltype(zero);
      set_args(w.program, w.x, static_cast<cl_int>(n1), w.y, static_cast<cl_int>(n2), static_cast<cl_int>(dim),
               static_cast<cl_int>(r->row0), static_cast<cl_int>(r->col0), static_cast<cl_int>(r->rows),
               static_cast<cl_int>(r->cols), w.xaux, w.yaux, static_cast<T>(p), static_cast<T>(inv_p),
               static_cast<cl_int>(r->diagonal), w.tile[slot], static_cast<cl_int>(r->cols));
    });
    const std::size_t per_x = static_cast<std::size_t>(k.tile_cols) * k.cols_per_item;
    const std::size_t per_y = static_cast<std::size_t>(k.tile_rows) * k.subtiles;
    const std::size_t groups_x = (static_cast<std::size_t>(r->cols) + per_x - 1) / per_x;
    const std::size_t groups_y = (static_cast<std::size_t>(r->rows) + per_y - 1) / per_y;
    w.compute.enqueueNDRangeKernel(w.program, cl::NullRange,
                                   cl::NDRange(groups_x * k.tile_cols, groups_y * k.tile_rows),
                                   cl::NDRange(k.tile_cols, k.tile_rows), nullptr, &pend.run);
    if (reducer) {
      pend.read = reducer->enqueue(slot, w.tile[slot], *r, w.compute, w.transfer);
    } else {
      const std::vector<cl::Event> after{pend.run};
      w.transfer.enqueueReadBuffer(w.tile[slot], CL_FALSE, 0,
                                   static_cast<std::size_t>(r->rows * r->cols) * real_size(precision),
                                   w.host[slot].data(), &after, &pend.read);
    }
    w.compute.flush();
    w.transfer.flush();
    pend.rect = *r;
    pend.active = true;
    ++w.share.rectangles;
    w.share.pairs += r->diagonal ? r->pairs() + static_cast<double>(r->rows) : static_cast<double>(r->rows * r->cols);
    slot ^= 1;
  }
  // The older of the two first, so the sink sees this worker's rectangles in the order they were taken.
  for (int k2 : {slot, slot ^ 1})
    if (pending[k2].active) drain(pending[k2], k2);
  w.share.timings.wall_s += wall.seconds();
}

PairwiseRun PairwiseDistances::Impl::run(const PairSink& sink, std::vector<pairwise::TileReducer>* reducers,
                                         std::vector<pairwise::FusedKnn>* fused) {
  Impl& s = *this;
  try {
    Stopwatch wall;
    // The fused kernel's rectangles hold whole rows of D (it does not mirror): blocks of rows by default.
    const auto [rows, cols] = fused ? pairwise::fused_blocks(params, s.n1, s.n2, s.block_rows, s.block_cols,
                                                             static_cast<int>(s.workers.size()) * params.parts)
                                    : std::pair{s.block_rows, s.block_cols};
    pairwise::RectangleQueue queue(
        pairwise::part_of(pairwise::cut_pair_space(s.n1, s.n2, s.symmetric && !fused, rows, cols), params.part,
                          params.parts),
        params.progress, "pairwise");
    for (pairwise::DistanceWorker& w : s.workers) w.share = DeviceShare{.device = w.name, .timings = {}};
    // The tiles come to the host only when they are not reduced on the device (neither reducers nor the
    // fused kernel): the pinned buffers they land in, as large as the tiles, are allocated by the first
    // run that needs them. (Allocating them for fused too cost seconds of wall time on the H200.)
    if (!reducers && !fused) {
      const std::size_t tile_bytes =
          static_cast<std::size_t>(s.block_rows * s.block_cols) * real_size(params.precision);
      for (pairwise::DistanceWorker& w : s.workers)
        for (PinnedHostBuffer& host : w.host)
          if (!host.data()) host = PinnedHostBuffer(w.device, tile_bytes);
    }
    pairwise::run_workers(static_cast<int>(s.workers.size()), queue, [&](int k) {
      const auto at = static_cast<std::size_t>(k);
      s.work(s.workers[at], queue, sink, reducers ? &(*reducers)[at] : nullptr, fused ? &(*fused)[at] : nullptr);
    });
    PairwiseRun r;
    r.kernel = s.workers.front().kernel;
    r.tuning_sources = s.workers.front().tuning_sources;
    r.build_options = fused ? fused->front().options() : s.workers.front().options;
    r.block_rows = rows;
    r.block_cols = cols;
    r.upload = s.upload;
    for (const pairwise::DistanceWorker& w : s.workers) {
      r.shares.push_back(w.share);
      r.pairs += w.share.pairs;
      r.total.kernel_s += w.share.timings.kernel_s;
      r.total.transfer_s += w.share.timings.transfer_s;
      r.total.host_s += w.share.timings.host_s;
    }
    r.total.wall_s = wall.seconds();
    return r;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

}  // namespace itercl
