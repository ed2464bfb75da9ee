// PageRank::fit: power iteration with the matrix resident on the device. Each iteration runs the
// format's sum over in-links, then the update and its reductions (cl/pagerank.cl); the host reads
// back two numbers (the L1 change and the dangling mass), never the vectors, until the end.
#include "itercl/pagerank.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "core/number_text.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pagerank/pagerank_spmv.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl {
namespace pagerank {

// A weight vector as networkx takes it: one finite non-negative value per node, not all zero.
void check_weights(const char* field, const std::vector<double>& w, std::int32_t n) {
  if (w.empty()) return;
  if (static_cast<std::int64_t>(w.size()) != n)
    throw ParamError(field, "has " + std::to_string(w.size()) + " values for " + std::to_string(n) + " nodes");
  double sum = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w[i]) || w[i] < 0)
      throw ParamError(field, "value " + std::to_string(i) + " is " + number_text(w[i]) + "; expected finite and >= 0");
    sum += w[i];
  }
  if (!(sum > 0)) throw ParamError(field, "sums to 0; at least one node needs a positive weight");
}

// w / sum(w) in T, or nothing for "uniform" (the kernel then uses 1/n).
template <class T>
std::vector<T> normalised(const std::vector<double>& w, std::string_view what) {
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<T> out = host_array<T>(w.size(), 0, what);
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = static_cast<T>(w[i] / sum);
  return out;
}

// The update's work-groups: 16 per compute unit, each looping over a block of nodes (cl/pagerank.cl:
// a loop beats a reduction per few nodes). 16 keeps several groups resident per compute unit on GPUs,
// to hide memory latency, and gives each core of a CPU (PoCL) groups to balance; not tuned.
constexpr int kGroupsPerComputeUnit = 16;
// reduce_totals: one work-group adds up the update's 2 sums per group, at most 16 per compute unit (a
// few thousand on the largest GPUs, a dozen adds per work-item before its tree); 256 work-items is a
// size every OpenCL device here launches, lowered below to the kernel's own limit and a power of two.
constexpr int kReduceGroup = 256;

template <class T>
PageRankResult iterate(const Device& device, const PageRankParams& p, const Problem& problem, PageRankResult r) {
  const InLinks& L = problem.links;
  const std::int32_t n = L.n_nodes;
  const auto un = static_cast<std::size_t>(n);
  cl::CommandQueue& queue = device.queue();
  const cl::Context& context = device.context();
  const int wg = r.kernel.work_group_size;

  // The loop-invariant data, once: the format (built and uploaded by make_spmv_format), out-degrees, p, d.
  std::unique_ptr<SpmvFormat> format = make_spmv_format(device, problem, r.kernel, r.build_options, r.upload);
  r.format = format->stats();
  const cl::Buffer outdeg = upload_buffer(device, L.out_degree, "out-degrees", r.upload);
  const cl::Buffer personalization =
      upload_buffer(device, normalised<T>(p.personalization, "personalization"), "personalization", r.upload);
  const cl::Buffer dangling = upload_buffer(device, normalised<T>(p.dangling, "dangling"), "dangling", r.upload);

  // The start: x = 1/n, z = x / outdeg (z[n] = 0), s = 0, and the dangling mass of x.
  const std::vector<T> x0 = host_array(un, static_cast<T>(1.0 / n), "the ranks");
  std::vector<T> z0 = host_array<T>(un + 1, 0, "the ranks over out-degrees");
  std::int64_t dangling_nodes = 0;
  for (std::size_t i = 0; i < un; ++i) {
    if (L.out_degree[i] > 0)
      z0[i] = static_cast<T>(1.0 / n / L.out_degree[i]);
    else
      ++dangling_nodes;
  }
  const std::vector<T> totals0 = {0, static_cast<T>(static_cast<double>(dangling_nodes) / n)};
  auto vector_buffer = [&](const std::vector<T>& init) {
    cl::Buffer b(context, CL_MEM_READ_WRITE, init.size() * sizeof(T));
    cl::Event done;
    queue.enqueueWriteBuffer(b, CL_TRUE, 0, init.size() * sizeof(T), init.data(), nullptr, &done);
    r.upload.transfer_s += event_seconds(done);
    return b;
  };
  cl::Buffer x[2] = {vector_buffer(x0), vector_buffer(x0)};
  const cl::Buffer z = vector_buffer(z0);
  const cl::Buffer s = vector_buffer(host_array<T>(un, 0, "the sums over in-links"));
  const cl::Buffer totals = vector_buffer(totals0);
  // Enough groups of the update to fill the device, each looping over a block of the nodes.
  const auto uwg = static_cast<std::size_t>(wg);
  const std::size_t most_groups = std::size_t{kGroupsPerComputeUnit} * device.info().compute_units;
  const std::size_t block = ((un + most_groups - 1) / most_groups + uwg - 1) / uwg * uwg;
  const std::size_t groups = (un + block - 1) / block;
  const cl::Buffer group_sums(context, CL_MEM_READ_WRITE, groups * 2 * sizeof(T));
  PinnedHostBuffer totals_host(device, 2 * sizeof(T));

  cl::Kernel update = device.kernel("pagerank.cl", r.build_options, "update");
  cl::Kernel reduce = device.kernel("pagerank.cl", r.build_options, "reduce_totals");
  const auto reduce_limit = reduce.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
  const std::size_t reduce_wg = std::bit_floor(std::min<std::size_t>(kReduceGroup, reduce_limit));
  check_kernel_work_group("kernel.work_group_size", wg,
                          update.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
  set_args(reduce, static_cast<cl_int>(groups), group_sums, totals, cl::Local(reduce_wg * sizeof(T)),
           cl::Local(reduce_wg * sizeof(T)));

  int current = 0;
  const Stopwatch fit_clock;
  for (int it = 0; it < p.max_iter; ++it) {
    Stopwatch wall;
    SpmvWork work;
    format->multiply(z, s, work);
    // x and x_new swap roles each iteration.
    set_args(update, static_cast<cl_int>(n), static_cast<cl_int>(block), static_cast<T>(p.alpha),
             static_cast<T>(1.0 / n), static_cast<cl_int>(!p.personalization.empty()),
             static_cast<cl_int>(!p.dangling.empty()), s, x[current], personalization, dangling, outdeg, totals,
             x[1 - current], z, group_sums, cl::Local(uwg * sizeof(T)), cl::Local(uwg * sizeof(T)));
    cl::Event updated, reduced, read;
    queue.enqueueNDRangeKernel(update, cl::NullRange, cl::NDRange(groups * uwg), cl::NDRange(uwg), nullptr, &updated);
    queue.enqueueNDRangeKernel(reduce, cl::NullRange, cl::NDRange(reduce_wg), cl::NDRange(reduce_wg), nullptr,
                               &reduced);
    queue.enqueueReadBuffer(totals, CL_TRUE, 0, 2 * sizeof(T), totals_host.data(), nullptr, &read);
    current = 1 - current;

    PageRankIteration step{};
    step.residual = static_cast<double>(static_cast<const T*>(totals_host.data())[0]);
    for (const cl::Event& e : work.kernels) step.spmv_kernel_s += event_seconds(e);
    step.timings.kernel_s = step.spmv_kernel_s + event_seconds(updated) + event_seconds(reduced);
    step.timings.transfer_s = event_seconds(read);
    for (const cl::Event& e : work.transfers) step.timings.transfer_s += event_seconds(e);
    step.timings.host_s = work.host_s;
    step.timings.wall_s = wall.seconds();
    r.iterations.push_back(step);
    r.total += step.timings;
    r.n_iter = it + 1;
    if (p.progress)
      p.progress(ProgressEvent{.algorithm = "pagerank",
                               .iteration = r.n_iter,
                               .max_iterations = p.max_iter,
                               .objective_name = "L1 change",
                               .objective = step.residual,
                               .elapsed_s = fit_clock.seconds()});
    if (!std::isfinite(step.residual))
      throw RuntimeError("pagerank: the L1 change became " + number_text(step.residual) + " at iteration " +
                         std::to_string(it + 1));
    if (step.residual < n * p.tol) {
      r.converged = true;
      break;
    }
  }

  Stopwatch wall;
  std::vector<T> ranks = host_array<T>(un, 0, "the ranks");
  cl::Event read;
  queue.enqueueReadBuffer(x[current], CL_TRUE, 0, un * sizeof(T), ranks.data(), nullptr, &read);
  r.ranks.assign(ranks.begin(), ranks.end());
  r.total.transfer_s += event_seconds(read);
  r.total.wall_s += wall.seconds();
  return r;
}

}  // namespace pagerank

void PageRankParams::validate() const {
  if (!(alpha >= 0 && alpha <= 1)) throw ParamError("alpha", "expected a number in [0, 1], got " + number_text(alpha));
  if (max_iter < 1) throw ParamError("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  if (!(tol >= 0) || !std::isfinite(tol)) throw ParamError("tol", "expected a number >= 0, got " + number_text(tol));
  kernel.validate();
}

void PageRankParams::validate(std::int32_t n_nodes) const {
  validate();
  pagerank::check_weights("personalization", personalization, n_nodes);
  pagerank::check_weights("dangling", dangling, n_nodes);
}

PageRank::PageRank(const Device& device, PageRankParams params) : device_(device), params_(std::move(params)) {
  params_.validate();
  device_.require(params_.precision);
}

PageRankResult PageRank::fit(const InLinks& links) const {
  params_.validate(links.n_nodes);
  PageRankResult r;
  r.kernel = params_.kernel;
  if (links.n_nodes == std::numeric_limits<std::int32_t>::max())
    throw InputError("graph: 2^31 - 1 nodes; the kernels need one index more for the padding of ELLPACK");
  if (links.n_nodes == 0) {  // networkx returns {} for an empty graph
    r.converged = true;
    return r;
  }
  const pagerank::Problem problem{links, params_.precision};
  try {
    r.kernel = pagerank::resolve(params_.kernel, device_.info(), problem, r.tuning_sources);
    r.build_options = pagerank::defines(r.kernel, problem);
    if (r.kernel.reorder == "degree") {  // renumber, iterate, and give the ranks back in the input's ids
      const Stopwatch clock;
      const std::vector<std::int32_t> order = pagerank::degree_order(links);
      const InLinks renamed = pagerank::renumbered(links, order);
      PageRankParams p = params_;
      p.personalization = pagerank::to_new(params_.personalization, order);
      p.dangling = pagerank::to_new(params_.dangling, order);
      const double reorder_s = clock.seconds();
      r = with_real(params_.precision, [&](auto zero) {
        return pagerank::iterate<decltype(zero)>(device_, p, pagerank::Problem{renamed, params_.precision},
                                                 std::move(r));
      });
      r.format.reorder_s = reorder_s;
      r.ranks = pagerank::to_old(r.ranks, order);
      return r;
    }
    return with_real(params_.precision, [&](auto zero) {
      return pagerank::iterate<decltype(zero)>(device_, params_, problem, std::move(r));
    });
  } catch (const cl::Error&) {
    rethrow_as_itercl_error();
  } catch (const std::bad_alloc&) {  // the large arrays name themselves (host_array); this is the rest
    throw RuntimeError("pagerank: out of host memory for " + std::to_string(links.n_nodes) + " nodes and " +
                       std::to_string(links.n_links()) + " links");
  }
}

}  // namespace itercl
