// The PageRank engine: each step runs the format's sum over in-links, then the update and its
// reductions (cl/pagerank.cl); the host reads back two numbers (the L1 change and the dangling mass),
// never the vectors, until ranks() is asked for.
#include "pagerank/pagerank_engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include "core/device_data.hpp"
#include "core/device_sort.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "core/number_text.hpp"
#include "core/parallel.hpp"
#include "core/phase_clock.hpp"
#include "core/pinned_buffer.hpp"
#include "core/staged_copies.hpp"
#include "itercl/error.hpp"
#include "pagerank/device_graph.hpp"
#include "pagerank/pagerank_spmv.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::pagerank {
namespace {

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
// start(): the nodes a block of the dangling mass sums, one after another.
constexpr std::size_t kStartBlock = 1 << 16;

// Two formats' stats as one (the rows reading no halo and the others, over ranks): their arrays and
// counts add up, the hybrid bins of both are listed.
void add_stats(PageRankFormatStats& to, const PageRankFormatStats& from) {
  to.preprocess_s += from.preprocess_s;
  to.matrix_bytes += from.matrix_bytes;
  to.csr_bytes += from.csr_bytes;
  to.ell_width = std::max(to.ell_width, from.ell_width);
  to.bsr_rows += from.bsr_rows, to.bsr_split_rows += from.bsr_split_rows;
  to.bsr_filler_slots += from.bsr_filler_slots;
  to.hybrid_bins.insert(to.hybrid_bins.end(), from.hybrid_bins.begin(), from.hybrid_bins.end());
  to.cpu_rows += from.cpu_rows, to.cpu_links += from.cpu_links;
}

template <class T>
class EngineOf final : public Engine {
 public:
  EngineOf(const Device& device, const PageRankParams& p, const Problem& problem, const PageRankKernel& kernel,
           const std::string& options, Timings& upload, Rows rows)
      : device_(device),
        n_(problem.links.n_nodes),
        first_(rows.first),
        last_(rows.last < 0 ? problem.links.n_nodes : rows.last),
        z_shift_(rows.z_first - rows.first),
        out_degree_(host_copy<std::int32_t>(problem.links.out_degree, "the out-degrees")),
        alpha_(p.alpha),
        dangling_given_(!p.dangling.empty()),
        wg_(static_cast<std::size_t>(kernel.work_group_size)),
        options_(options) {
    const auto un = static_cast<std::size_t>(n_);
    const cl::Context& context = device.context();
    format_ = make_spmv_format(device, problem, kernel, options, upload);
    stats_ = format_->stats();
    if (rows.halo_rows) {
      halo_format_ = make_spmv_format(device, Problem{*rows.halo_rows, problem.precision}, kernel, options, upload);
      add_stats(stats_, halo_format_->stats());
    }
    core::enter_phase("upload");  // the per-node vectors
    // z = x / out-degree, or x / out-weight for a weighted graph (the kernels' -D WEIGHTED); a node dangles
    // where either is 0 (links of weight 0 are left out), so the start's dangling mass reads the degrees.
    const std::vector<double>& out_weight = problem.links.out_weight;
    outdeg_ = problem.csr ? problem.csr->out_degree
              : problem.links.weighted()
                  ? upload_buffer(device, std::vector<T>(out_weight.begin(), out_weight.end()), "out-weights", upload)
                  : upload_buffer(device, out_degree_, "out-degrees", upload);
    dangling_ = upload_buffer(device, normalised<T>(p.dangling, "dangling"), "dangling", upload);
    personalization_ = cl::Buffer(context, CL_MEM_READ_ONLY, un * sizeof(T));
    // s starts at zero; rows without in-links are never written (SpmvFormat::multiply), so it needs
    // no reset for another start.
    s_ = cl::Buffer(context, CL_MEM_READ_WRITE, un * sizeof(T));
    if (un > 0) device.queue().enqueueFillBuffer(s_, T{0}, 0, un * sizeof(T));
    // The halo rows' sums apart, so that neither format's writes of the other's (empty) rows clobber them:
    // the update adds the two, one of them 0 in every row, which changes no bit.
    if (halo_format_) {
      s_halo_ = cl::Buffer(context, CL_MEM_READ_WRITE, un * sizeof(T));
      if (un > 0) device.queue().enqueueFillBuffer(s_halo_, T{0}, 0, un * sizeof(T));
    }
    for (cl::Buffer& b : x_) b = cl::Buffer(context, CL_MEM_READ_WRITE, un * sizeof(T));
    z_ = cl::Buffer(context, CL_MEM_READ_WRITE, (un + 1) * sizeof(T));
    totals_ = cl::Buffer(context, CL_MEM_READ_WRITE, 2 * sizeof(T));
    // Enough groups of the update to fill the device, each looping over a block of the rows (at
    // least one group, so that a rank without rows still writes its zero sums).
    const auto rows_n = static_cast<std::size_t>(last_ - first_);
    const std::size_t most_groups = std::size_t{kGroupsPerComputeUnit} * device.info().compute_units;
    block_ = std::max<std::size_t>(((rows_n + most_groups - 1) / most_groups + wg_ - 1) / wg_ * wg_, wg_);
    groups_ = std::max<std::size_t>((rows_n + block_ - 1) / block_, 1);
    group_sums_ = cl::Buffer(context, CL_MEM_READ_WRITE, groups_ * 2 * sizeof(T));
    totals_host_ = std::make_unique<PinnedHostBuffer>(device, 2 * sizeof(T));

    start_ = device.kernel("pagerank.cl", options, "start");
    update_ = device.kernel("pagerank.cl", options, "update");
    reduce_ = device.kernel("pagerank.cl", options, "reduce_totals");
    const auto reduce_limit = reduce_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
    reduce_wg_ = std::bit_floor(std::min<std::size_t>(kReduceGroup, reduce_limit));
    check_kernel_work_group("kernel.work_group_size", kernel.work_group_size,
                            update_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
    set_args(reduce_, static_cast<cl_int>(groups_), group_sums_, totals_, cl::Local(reduce_wg_ * sizeof(T)),
             cl::Local(reduce_wg_ * sizeof(T)));
  }

  // x = x0, z = x / outdeg (z[n] = 0), and the dangling mass of x.
  void start(const std::vector<double>& personalization, const std::vector<double>& nstart, Timings& upload) override {
    const auto un = static_cast<std::size_t>(n_);
    personalization_given_ = !personalization.empty();
    if (personalization_given_) write(personalization_, normalised<T>(personalization, "personalization"), upload);
    const double nstart_sum = std::accumulate(nstart.begin(), nstart.end(), 0.0);
    const bool given = !nstart.empty();
    std::vector<T> x0 = given ? host_vector<T>(un, "the start") : std::vector<T>{};
    // On all cores, the dangling mass summed per block of kStartBlock nodes and the blocks in order: the
    // same sum whatever the number of cores.
    const std::size_t blocks = (un + kStartBlock - 1) / kStartBlock;
    std::vector<double> dangling(blocks, 0.0);
    parallel_blocks(blocks, worker_count(un), [&](std::size_t first, std::size_t last, int) {
      for (std::size_t b = first; b < last; ++b)
        for (std::size_t i = b * kStartBlock, end = std::min(un, i + kStartBlock); i < end; ++i) {
          const double xi = given ? nstart[i] / nstart_sum : 1.0 / n_;
          if (given) x0[i] = static_cast<T>(xi);
          if (out_degree_[i] == 0) dangling[b] += xi;
        }
    });
    const double dangling_mass = std::accumulate(dangling.begin(), dangling.end(), 0.0);
    current_ = 0;
    if (given) write(x_[0], x0, upload);
    set_args(start_, static_cast<cl_int>(n_), static_cast<cl_int>(first_), static_cast<cl_int>(last_),
             static_cast<cl_int>(z_shift_), static_cast<cl_int>(given), static_cast<T>(1.0 / n_), outdeg_, x_[0], z_);
    device_.queue().enqueueNDRangeKernel(start_, cl::NullRange, cl::NDRange(core::groups_covering(un + 1, wg_)),
                                         cl::NDRange(wg_));
    write(totals_, std::vector<T>{0, static_cast<T>(dangling_mass)}, upload);
  }

  PageRankIteration step(const Meanwhile& meanwhile) override {
    cl::CommandQueue& queue = device_.queue();
    const Stopwatch wall;
    SpmvWork work;
    format_->multiply(z_, s_, work);
    Timings halo;
    if (meanwhile) {
      queue.flush();  // the device starts on the rows that read no halo while the host waits for it
      meanwhile(halo);
    }
    if (halo_format_) halo_format_->multiply(z_, s_halo_, work);
    // x and x_new swap roles each iteration.
    set_args(update_, static_cast<cl_int>(first_), static_cast<cl_int>(last_), static_cast<cl_int>(z_shift_),
             static_cast<cl_int>(block_), static_cast<T>(alpha_), static_cast<T>(1.0 / n_),
             static_cast<cl_int>(personalization_given_), static_cast<cl_int>(dangling_given_), s_,
             static_cast<cl_int>(halo_format_ != nullptr), halo_format_ ? s_halo_ : s_, x_[current_], personalization_,
             dangling_, outdeg_, totals_, x_[1 - current_], z_, group_sums_, cl::Local(wg_ * sizeof(T)),
             cl::Local(wg_ * sizeof(T)));
    cl::Event updated, reduced, read;
    queue.enqueueNDRangeKernel(update_, cl::NullRange, cl::NDRange(groups_ * wg_), cl::NDRange(wg_), nullptr, &updated);
    queue.enqueueNDRangeKernel(reduce_, cl::NullRange, cl::NDRange(reduce_wg_), cl::NDRange(reduce_wg_), nullptr,
                               &reduced);
    queue.enqueueReadBuffer(totals_, CL_TRUE, 0, 2 * sizeof(T), totals_host_->data(), nullptr, &read);
    current_ = 1 - current_;

    PageRankIteration step{};
    step.residual = static_cast<double>(static_cast<const T*>(totals_host_->data())[0]);
    for (const cl::Event& e : work.kernels) step.spmv_kernel_s += event_seconds(e);
    step.timings.kernel_s = step.spmv_kernel_s + event_seconds(updated) + event_seconds(reduced);
    step.timings.transfer_s = event_seconds(read);
    for (const cl::Event& e : work.transfers) step.timings.transfer_s += event_seconds(e);
    step.timings.host_s = work.host_s;
    step.timings += halo;
    step.timings.wall_s = wall.seconds();
    return step;
  }

  std::vector<double> ranks(Timings& timings, std::span<const std::int32_t> order) const override {
    const Stopwatch wall;
    const auto un = static_cast<std::size_t>(n_);
    std::vector<double> out = host_vector<double>(un, "the ranks");
    // Widened and put back in the input's order straight from the staging chunks, on all cores.
    const auto unpack = [&](std::size_t at, const void* chunk, std::size_t bytes) {
      const auto* x = static_cast<const T*>(chunk);
      const std::size_t first = at / sizeof(T), count = bytes / sizeof(T);
      parallel_blocks(count, worker_count(count), [&](std::size_t begin, std::size_t end, int) {
        if (order.empty())
          std::copy(x + begin, x + end, out.begin() + static_cast<std::ptrdiff_t>(first + begin));
        else
          for (std::size_t i = begin; i < end; ++i) out[static_cast<std::size_t>(order[first + i])] = x[i];
      });
    };
    timings.transfer_s += core::download_chunks(device_, x_[current_], 0, un * sizeof(T), unpack).transfer_s;
    timings.wall_s += wall.seconds();
    return out;
  }

  HaloBuffers set_halo(const Halo& halo) override {
    const cl::Context& context = device_.context();
    sends_ = static_cast<std::size_t>(halo.send.size());
    received_ = static_cast<std::size_t>(halo.received());
    below_ = static_cast<std::size_t>(halo.below);
    Timings upload;
    send_positions_ = upload_buffer(device_, halo.send, "the halo's positions to send", upload);
    packed_ = cl::Buffer(context, CL_MEM_READ_WRITE, std::max<std::size_t>(sends_, 1) * sizeof(T));
    send_host_ = std::make_unique<PinnedHostBuffer>(device_, sends_ * sizeof(T));
    received_host_ = std::make_unique<PinnedHostBuffer>(device_, received_ * sizeof(T));
    pack_ = device_.kernel("pagerank.cl", options_, "pack");
    set_args(pack_, static_cast<cl_int>(sends_), send_positions_, z_, packed_);
    return {static_cast<char*>(send_host_->data()), static_cast<char*>(received_host_->data()), sizeof(T)};
  }

  void pack(Timings& timings) override {
    if (sends_ == 0) return;
    cl::CommandQueue& queue = device_.queue();
    cl::Event packed, read;
    queue.enqueueNDRangeKernel(pack_, cl::NullRange, cl::NDRange(core::groups_covering(sends_, wg_)), cl::NDRange(wg_),
                               nullptr, &packed);
    queue.enqueueReadBuffer(packed_, CL_TRUE, 0, sends_ * sizeof(T), send_host_->data(), nullptr, &read);
    timings.kernel_s += event_seconds(packed);
    timings.transfer_s += event_seconds(read);
  }

  // The halo below the rows at z's start, the halo above right after the rows.
  void write_halo(Timings& timings) override {
    const auto* values = static_cast<const char*>(received_host_->data());
    const std::size_t rows = static_cast<std::size_t>(last_ - first_);
    for (const auto& [at, from, count] :
         {std::tuple{std::size_t{0}, std::size_t{0}, below_}, std::tuple{below_ + rows, below_, received_ - below_}}) {
      if (count == 0) continue;
      cl::Event wrote;
      device_.queue().enqueueWriteBuffer(z_, CL_TRUE, at * sizeof(T), count * sizeof(T), values + from * sizeof(T),
                                         nullptr, &wrote);
      timings.transfer_s += event_seconds(wrote);
    }
  }

  double rows_dangling_mass() const override {
    return static_cast<double>(static_cast<const T*>(totals_host_->data())[1]);
  }

  void set_dangling_mass(double dangling_mass, Timings& timings) override {
    write(totals_, std::vector<T>{0, static_cast<T>(dangling_mass)}, timings);
  }

  std::vector<double> rows_of_ranks(Timings& timings) const override {
    const auto rows = static_cast<std::size_t>(last_ - first_);
    std::vector<T> x = host_array<T>(rows, 0, "a rank's rows of the ranks");
    if (rows > 0) {
      cl::Event read;
      device_.queue().enqueueReadBuffer(x_[current_], CL_TRUE, static_cast<std::size_t>(first_) * sizeof(T),
                                        rows * sizeof(T), x.data(), nullptr, &read);
      timings.transfer_s += event_seconds(read);
    }
    return {x.begin(), x.end()};
  }

 private:
  void write(const cl::Buffer& b, const std::vector<T>& values, Timings& upload) {
    upload.transfer_s += core::upload(device_, values.data(), values.size() * sizeof(T), b).transfer_s;
  }

  Device device_;
  std::int32_t n_, first_, last_, z_shift_;
  std::vector<std::int32_t> out_degree_;  // a copy: the caller's links need not outlive the engine
  double alpha_;
  bool dangling_given_, personalization_given_ = false;
  std::size_t wg_, block_ = 0, groups_ = 0, reduce_wg_ = 0;
  std::unique_ptr<SpmvFormat> format_, halo_format_;  // halo_format_: Rows::halo_rows, if given
  cl::Buffer outdeg_, dangling_, personalization_, s_, s_halo_, x_[2], z_, totals_, group_sums_;
  std::unique_ptr<PinnedHostBuffer> totals_host_;
  cl::Kernel start_, update_, reduce_;
  // The halo (set_halo): entries sent and received, the positions of those sent, their packed copy.
  std::string options_;
  std::size_t sends_ = 0, received_ = 0, below_ = 0;
  cl::Buffer send_positions_, packed_;
  std::unique_ptr<PinnedHostBuffer> send_host_, received_host_;
  cl::Kernel pack_;
  int current_ = 0;
};

}  // namespace

bool record_step(PageRankResult& r, const PageRankIteration& step, const PageRankParams& p, std::int32_t n,
                 const Stopwatch& clock) {
  r.iterations.push_back(step);
  r.total += step.timings;
  r.n_iter = static_cast<int>(r.iterations.size());
  if (p.progress)
    p.progress(ProgressEvent{.algorithm = "pagerank",
                             .iteration = r.n_iter,
                             .max_iterations = p.max_iter,
                             .objective_name = "L1 change",
                             .objective = step.residual,
                             .elapsed_s = clock.seconds()});
  if (!std::isfinite(step.residual))
    throw RuntimeError("pagerank: the L1 change became " + number_text(step.residual) + " at iteration " +
                       std::to_string(r.n_iter));
  r.converged = step.residual < n * p.tol;
  return r.converged;
}

void check_node_count(std::int32_t n) {
  if (n == std::numeric_limits<std::int32_t>::max())
    throw InputError("graph: 2^31 - 1 nodes; the kernels need one index more for the padding of ELLPACK");
}

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

std::unique_ptr<Engine> make_engine(const Device& device, const PageRankParams& params, const Problem& problem,
                                    const PageRankKernel& kernel, const std::string& options, Timings& upload,
                                    Rows rows) {
  return with_real(params.precision, [&](auto zero) -> std::unique_ptr<Engine> {
    return std::make_unique<EngineOf<decltype(zero)>>(device, params, problem, kernel, options, upload, rows);
  });
}

}  // namespace itercl::pagerank
