// SmacofDevice's iterations: one Guttman transform and one stress per iterate(), enqueued on resident
// data; only the stress partials, and the final embedding, come back (over ranks, also the block's rows
// of the next embedding, gathered from every rank while the device runs the next pass over the block's
// own columns, or with packed storage the rank's part of every row, summed over the ranks). On one device
// a fused iteration can enqueue the next one's pass before it waits for its own stress, so that the
// device never idles while the host reads and adds the stress.
#include <algorithm>
#include <array>
#include <vector>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_device_impl.hpp"

namespace itercl::smacof {

void SmacofDevice::Impl::transform_tail(int dst, std::vector<cl::Event>& events) {
  if (!problem.weighted) return;
  cl::Event e;
  set_args(pinv_kernel, pinv, bx, static_cast<cl_int>(problem.n), x[dst]);
  device.queue().enqueueNDRangeKernel(pinv_kernel, cl::NullRange, cl::NDRange(rows_global), local(), nullptr, &e);
  events.push_back(e);
}

void SmacofDevice::Impl::fused_slices(int src, int slot, SliceRange range, SliceRange skip,
                                      std::vector<cl::Event>& events, cl::CommandQueue* queue,
                                      const std::vector<cl::Event>* after) {
  cl::CommandQueue& q = queue ? *queue : device.queue();
  // One launch per buffer of delta over its slices in `range` but not in `skip`, each slice computed as
  // one buffer would (the launch's offset starts it within the buffer, the kernel steps over the skip).
  for (std::size_t b = 0; b < layout.parts.size(); ++b) {
    const DeltaPart& part = layout.parts[b];
    const int lo = std::max(range.first, part.slice_first);
    const int hi = std::min(range.first + range.count, part.slice_first + part.slices);
    const int skip_lo = std::clamp(skip.first, lo, std::max(lo, hi));
    const int skip_hi = std::clamp(skip.first + skip.count, skip_lo, std::max(lo, hi));
    const int count = hi - lo - (skip_hi - skip_lo);
    if (count <= 0) continue;
    set_args(fused, delta[b], weights_or_delta(b), x[src], static_cast<cl_int>(problem.n),
             static_cast<cl_int>(block.first), static_cast<cl_int>(rows()), static_cast<cl_int>(layout.per_slice),
             static_cast<cl_int>(part.slice_first), static_cast<cl_int>(part.columns), static_cast<cl_int>(slice_base),
             static_cast<cl_int>(skip_lo), static_cast<cl_int>(skip_hi - skip_lo), partial_bx, partial_stress[slot]);
    cl::Event run;
    q.enqueueNDRangeKernel(fused, cl::NDRange(0, static_cast<std::size_t>(lo - part.slice_first)),
                           cl::NDRange(fused_global, static_cast<std::size_t>(count)),
                           cl::NDRange(static_cast<std::size_t>(k.work_group_size), 1), after, &run);
    events.push_back(run);
  }
}

void SmacofDevice::Impl::fused_finish(int dst, std::vector<cl::Event>& events) {
  cl::Event tail;
  const std::size_t values = rows() * static_cast<std::size_t>(problem.dim);
  with_real(problem.precision, [&](auto zero) {
    const auto scale = static_cast<decltype(zero)>(transform_scale());
    const cl::Buffer& out = problem.weighted ? bx : x[dst];
    if (symmetric())
      set_args(finish, partial_bx, partial_ring, static_cast<cl_int>(slices_held), static_cast<cl_int>(slice_base),
               static_cast<cl_int>(problem.n), static_cast<cl_int>(layout.per_slice), scale, out);
    else
      set_args(finish, partial_bx, static_cast<cl_int>(slices_held), static_cast<cl_int>(rows()), scale, out);
  });
  device.queue().enqueueNDRangeKernel(finish, cl::NullRange, cl::NDRange(round_up(values, k.work_group_size)), local(),
                                      nullptr, &tail);
  events.push_back(tail);
  transform_tail(dst, events);
}

void SmacofDevice::Impl::fused_pass(int src, int dst, int slot, std::vector<cl::Event>& events) {
  if (rows() == 0) return;  // a rank without rows (more ranks than points) computes nothing
  fused_slices(src, slot, {slice_base, slices_held}, {}, events);
  fused_finish(dst, events);
}

SliceRange SmacofDevice::Impl::own_slices() const {
  if (rows() == 0) return {};
  const auto per = static_cast<std::size_t>(layout.per_slice);
  const auto first = static_cast<std::size_t>(block.first), end = first + rows();
  const auto lo = static_cast<int>((first + per - 1) / per);
  const int hi = end == static_cast<std::size_t>(problem.n) ? slice_base + slices_held : static_cast<int>(end / per);
  return {lo, std::max(0, hi - lo)};
}

StressSums SmacofDevice::Impl::read_stress(std::vector<cl::Event>& events, Timings* timings, const Stopwatch& wall) {
  cl::Event read;
  device.queue().enqueueReadBuffer(partial_stress[0], CL_TRUE, 0, stress_bytes(), stress_host.data(), nullptr, &read);
  return stress_sums(events, read, 0, timings, wall);
}

SmacofDevice::Impl::Pass SmacofDevice::Impl::enqueue_pass() {
  Pass pass;
  pass.slot = slot;
  pass.dst = 3 - current - latest;
  slot = 1 - slot;
  fused_pass(latest, pass.dst, pass.slot, pass.events);
  device.queue().enqueueReadBuffer(partial_stress[pass.slot], CL_FALSE, 0, stress_bytes(),
                                   static_cast<unsigned char*>(stress_host.data()) + pass.slot * stress_bytes(),
                                   nullptr, &pass.read);
  return pass;
}

StressSums SmacofDevice::Impl::finish_pass(Pass& pass, Timings* timings, const Stopwatch& wall) {
  pass.read.wait();
  return stress_sums(pass.events, pass.read, pass.slot, timings, wall);
}

StressSums SmacofDevice::Impl::stress_sums(const std::vector<cl::Event>& events, const cl::Event& read, int slot,
                                           Timings* timings, const Stopwatch& wall) {
  StressSums sums;
  with_real(problem.precision, [&](auto zero) {
    const auto* p = reinterpret_cast<const decltype(zero)*>(static_cast<const unsigned char*>(stress_host.data()) +
                                                            slot * stress_bytes());
    for (std::size_t g = 0; g < stress_pairs; ++g) sums.stress += p[2 * g], sums.squared_distances += p[2 * g + 1];
  });
  sums.stress /= 2;  // ordered pairs count each pair twice
  sums.squared_distances /= 2;
  if (timings) {
    timings->kernel_s += busy_seconds(events);  // the own slices' launches may overlap the rest's
    timings->transfer_s += event_seconds(read);
    timings->wall_s += wall.seconds();
  }
  return sums;
}

StressSums SmacofDevice::Impl::block_pass(Timings* timings) {
  if (packed()) return slices_pass(timings);
  Stopwatch wall;
  cl::CommandQueue& q = device.queue();
  // The pass over the columns of the block's own rows may already be running on own_queue (own_ahead);
  // the rest of the slices start beside it, each slice computed as in one launch, and the finish waits for
  // both and adds them in slice order.
  std::vector<cl::Event> events = std::move(own_events);
  own_events.clear();
  const SliceRange own = own_slices();
  if (rows() > 0) {
    if (!own_ahead) fused_slices(0, 0, own, {}, events);
    const std::vector<cl::Event> own_runs = events;
    fused_slices(0, 0, {slice_base, slices_held}, own, events);
    if (own_ahead && !own_runs.empty()) q.enqueueBarrierWithWaitList(&own_runs);
    fused_finish(1, events);
  }
  own_ahead = false;
  // This rank's rows of X_{m+1} go to their place in x_gathered, and the ranks fill in the others in place.
  core::Comm& comm = *block.comm;
  const std::size_t row_bytes = static_cast<std::size_t>(problem.dim) * real();
  const std::size_t own_offset = static_cast<std::size_t>(block.first) * row_bytes;
  const auto n = static_cast<std::size_t>(problem.n);
  auto* gathered = static_cast<unsigned char*>(x_gathered.data());
  cl::Event read_rows, read;
  Timings t;
  StressSums own_sums;
  if (rows() > 0) {
    q.enqueueReadBuffer(x[1], CL_FALSE, 0, rows() * row_bytes, gathered + own_offset, nullptr, &read_rows);
    q.enqueueReadBuffer(partial_stress[0], CL_FALSE, 0, stress_bytes(), stress_host.data(), nullptr, &read);
    // The next pass over the block's own columns needs only this rank's rows of X_{m+1}, which are on the
    // device: it runs while the host exchanges the other ranks' rows (after the copy, and so after the
    // reads above: it overwrites neither what they read nor the partial rows the finish added).
    cl::Event copied;
    q.enqueueCopyBuffer(x[1], x[0], 0, own_offset, rows() * row_bytes, nullptr, &copied);
    const std::vector<cl::Event> after{copied};
    fused_slices(0, 0, own, {}, own_events, &own_queue, &after);
    own_ahead = true;
    own_queue.flush();
    q.flush();
    read.wait();
    own_sums = stress_sums(events, read, 0, &t, wall);
    t.transfer_s += event_seconds(read_rows);
  }
  std::vector<std::size_t> counts;
  for (int r = 0; r < comm.size(); ++r)
    counts.push_back(core::first_row(n, r + 1, comm.size()) - core::first_row(n, r, comm.size()));
  const double comm_before = comm.seconds();
  comm.allgather_in_place(x_gathered.data(), row_bytes, counts);
  const std::vector<double> total = comm.sum_in_rank_order(std::array{own_sums.stress, own_sums.squared_distances});
  const StressSums sums{total[0], total[1]};
  t.comm_s += comm.seconds() - comm_before;
  // The other ranks' rows only: the block's own, in place already, are what the own slices read now.
  const std::size_t own_end = rows() > 0 ? own_offset + rows() * row_bytes : own_offset;
  for (const auto& [from, to] : {std::pair{std::size_t{0}, own_offset}, std::pair{own_end, x_gathered.size()}}) {
    if (to <= from) continue;
    cl::Event write;
    q.enqueueWriteBuffer(x[0], CL_TRUE, from, to - from, gathered + from, nullptr, &write);
    t.transfer_s += event_seconds(write);
  }
  t.wall_s = wall.seconds();
  if (timings) *timings += t;
  return sums;
}

StressSums SmacofDevice::Impl::slices_pass(Timings* timings) {
  Stopwatch wall;
  std::vector<cl::Event> events;
  fused_pass(0, 1, 0, events);
  const std::size_t values = static_cast<std::size_t>(problem.n) * static_cast<std::size_t>(problem.dim);
  cl::Event read_rows;
  device.queue().enqueueReadBuffer(x[1], CL_FALSE, 0, x_gathered.size(), x_gathered.data(), nullptr, &read_rows);
  read_rows.wait();  // after the pass's kernels (one in-order queue): their times can be read
  Timings t;
  StressSums own;
  if (stress_pairs > 0) {
    own = read_stress(events, &t, wall);
  } else {  // a rank without slices: its sums are 0, the finish's zeros
    for (const cl::Event& e : events) t.kernel_s += event_seconds(e);
  }
  t.transfer_s += event_seconds(read_rows);
  // The ranks' sums and stress partials, added in double in one allreduce (the order of its additions is
  // MPI's: tolerance::ranks_packed bounds what that moves against one process).
  Stopwatch widen;
  std::vector<double>& sums = rank_sums;
  with_real(problem.precision, [&](auto zero) {
    const auto* v = reinterpret_cast<const decltype(zero)*>(x_gathered.data());
    for (std::size_t at = 0; at < values; ++at) sums[at] = v[at];
  });
  sums[values] = own.stress;
  sums[values + 1] = own.squared_distances;
  t.host_s += widen.seconds();
  core::Comm& comm = *block.comm;
  const double comm_before = comm.seconds();
  comm.allreduce_sum(sums);
  t.comm_s += comm.seconds() - comm_before;
  Stopwatch scaled;
  const double scale = 1.0 / static_cast<double>(problem.n);
  with_real(problem.precision, [&](auto zero) {
    auto* v = reinterpret_cast<decltype(zero)*>(x_gathered.data());
    for (std::size_t at = 0; at < values; ++at) v[at] = static_cast<decltype(zero)>(sums[at] * scale);
  });
  t.host_s += scaled.seconds();
  cl::Event write;
  device.queue().enqueueWriteBuffer(x[0], CL_TRUE, 0, x_gathered.size(), x_gathered.data(), nullptr, &write);
  t.transfer_s += event_seconds(write);
  t.wall_s = wall.seconds();
  if (timings) *timings += t;
  return {sums[values], sums[values + 1]};
}

void SmacofDevice::start(const Matrix& x0, Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    // Centred: distances, and so every later iterate, do not change; float rounding of X_0 shrinks.
    pack_row_major(x0, s.problem.precision, s.x_host.data(), x0.colwise().mean());
    cl::Event write;
    s.device.queue().enqueueWriteBuffer(s.x[0], CL_FALSE, 0, s.x_host.size(), s.x_host.data(), nullptr, &write);
    s.current = 0;
    s.latest = 1;
    s.slot = 0;
    s.ahead.reset();  // a pass a converged run enqueued ahead: the queue runs it first, its result unused
    if (s.own_ahead) s.own_queue.finish();  // likewise its own slices, which write the partials this pass does
    s.own_ahead = false;
    s.own_events.clear();
    std::vector<cl::Event> events;
    Timings pass;
    if (s.over_ranks()) {
      s.block_pass(&pass);  // X_1 gathered into x[0]; sigma(X_0) is not needed
    } else if (is_fused(s.k.variant)) {
      s.fused_pass(0, 1, 0, events);  // X_1 into x[1]; sigma(X_0) is not needed
      s.read_stress(events, nullptr, wall);
    }
    s.device.queue().finish();
    if (timings) {
      timings->transfer_s += event_seconds(write);
      for (const cl::Event& e : events) timings->kernel_s += event_seconds(e);
      pass.wall_s = 0;
      *timings += pass;
      timings->wall_s += wall.seconds();
    }
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

StressSums SmacofDevice::iterate(Timings* timings, bool ahead) {
  Impl& s = *impl_;
  try {
    if (s.over_ranks()) {
      // x[0] holds X_m: this pass yields sigma(X_m) and X_{m+1}, kept until the next pass.
      std::swap(s.x_all, s.x_gathered);
      return s.block_pass(timings);
    }
    Stopwatch wall;
    if (is_fused(s.k.variant)) {
      // X_m is already in x[latest] (the last pass made it): this pass, unless the last iteration
      // enqueued it, yields sigma(X_m) and X_{m+1}.
      Impl::Pass pass = s.ahead ? std::move(*s.ahead) : s.enqueue_pass();
      s.ahead.reset();
      s.current = s.latest;
      s.latest = pass.dst;
      if (ahead) s.ahead = s.enqueue_pass();
      return s.finish_pass(pass, timings, wall);
    }
    std::vector<cl::Event> events;
    const int src = s.current, dst = 1 - s.current;
    cl::CommandQueue& q = s.device.queue();
    const auto n = static_cast<cl_int>(s.problem.n);
    with_real(s.problem.precision, [&](auto zero) {
      set_args(s.bccalc, s.delta[0], s.weights_or_delta(0), s.x[src], n,
               static_cast<decltype(zero)>(s.transform_scale()), s.problem.weighted ? s.bx : s.x[dst]);
    });
    cl::Event run, stress;
    q.enqueueNDRangeKernel(s.bccalc, cl::NullRange, cl::NDRange(s.rows_global), s.local(), nullptr, &run);
    events.push_back(run);
    s.transform_tail(dst, events);
    set_args(s.stress, s.delta[0], s.weights_or_delta(0), s.x[dst], n, s.partial_stress[0]);
    q.enqueueNDRangeKernel(s.stress, cl::NullRange, cl::NDRange(s.rows_global), s.local(), nullptr, &stress);
    events.push_back(stress);
    s.current = dst;
    return s.read_stress(events, timings, wall);
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix SmacofDevice::embedding() const {
  const Impl& s = *impl_;
  Matrix x(s.problem.n, s.problem.dim);
  try {
    const void* values = s.x_all.data();  // over ranks, X_m is on the host already
    if (!s.over_ranks()) {
      s.device.queue().enqueueReadBuffer(s.x[s.current], CL_TRUE, 0, s.x_host.size(), s.x_host.data());
      values = s.x_host.data();
    }
    with_real(s.problem.precision, [&](auto zero) {
      const auto* v = static_cast<const decltype(zero)*>(values);
      for (Eigen::Index k = 0; k < x.size(); ++k) x.data()[k] = v[k];
    });
  } catch (...) {
    rethrow_as_itercl_error();
  }
  return x;
}

}  // namespace itercl::smacof
