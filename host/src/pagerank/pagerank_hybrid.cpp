// The hybrid format (seed 004, section 5.3.3): ELLPACK bins on the device, the rows with k or more
// in-links on the CPU with threads, overlapped with the device's kernels.
#include <optional>

#include "core/device_data.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/timing.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_spmv.hpp"

namespace itercl::pagerank {

class HybridFormat : public SpmvFormat {
 public:
  HybridFormat(const Device& device, const InLinks& L, const PageRankKernel& k, Precision p, const std::string& options,
               Timings& upload)
      : device_(device), precision_(p), n_(L.n_nodes), work_group_(k.work_group_size) {
    Stopwatch build;
    layout_ = build_hybrid(L, k.hybrid_k);
    stats_.preprocess_s = build.seconds();
    stats_.csr_bytes = csr_bytes(L);
    for (const EllBlock& bin : layout_.bins) {
      stats_.hybrid_bins.push_back({bin.min_length, bin.max_length, bin.width, bin.n_rows});
      stats_.matrix_bytes += (bin.columns.size() + bin.rows.size()) * 4 + bin.values.size() * real_size(p);
      bins_.push_back({upload_buffer(device, bin.columns, "hybrid bin columns", upload),
                       upload_buffer(device, bin.rows, "hybrid bin rows", upload),
                       upload_values(device, bin.values, p, L.weighted(), "hybrid bin values", upload), bin.n_rows,
                       bin.width});
    }
    cpu_rows_ = static_cast<std::int64_t>(layout_.cpu_rows.size());
    stats_.cpu_rows = cpu_rows_;
    stats_.cpu_links = static_cast<std::int64_t>(layout_.cpu_sources.size());
    stats_.matrix_bytes += (layout_.cpu_rows.size() + layout_.cpu_sources.size()) * 4 + layout_.cpu_offsets.size() * 8 +
                           layout_.cpu_values.size() * real_size(p);
    layout_.bins.clear();  // on the device now; the CPU keeps only its own rows
    const Format& f = format(k.format);
    bin_kernel_ = device.kernel(f.file, options, f.entries[0]);
    if (cpu_rows_ > 0) {
      const std::size_t real = real_size(p);
      cpu_row_ids_ = upload_buffer(device, layout_.cpu_rows, "hybrid cpu rows", upload);
      cpu_sums_ = cl::Buffer(device.context(), CL_MEM_READ_ONLY, static_cast<std::size_t>(cpu_rows_) * real);
      z_host_ = PinnedHostBuffer(device, static_cast<std::size_t>(n_) * real);
      sums_host_ = PinnedHostBuffer(device, static_cast<std::size_t>(cpu_rows_) * real);
      // A second queue, so the copy of z to the host overlaps the bins' kernels on the first.
      copy_queue_ = cl::CommandQueue(device.context(), device.device(), CL_QUEUE_PROFILING_ENABLE);
      scatter_kernel_ = device.kernel(f.file, options, f.entries[1]);
    }
  }

  void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) override {
    cl::CommandQueue& queue = device_.queue();
    const std::size_t real = real_size(precision_);
    cl::Event read;
    if (cpu_rows_ > 0) {
      // z as the last update left it: the marker stands for everything enqueued so far.
      cl::Event written;
      queue.enqueueMarkerWithWaitList(nullptr, &written);
      const std::vector<cl::Event> after = {written};
      copy_queue_.enqueueReadBuffer(z, CL_FALSE, 0, static_cast<std::size_t>(n_) * real, z_host_.data(), &after, &read);
      copy_queue_.flush();
    }
    for (const Bin& bin : bins_) {
      set_link_args(bin_kernel_, bin.values, static_cast<cl_int>(bin.rows), static_cast<cl_int>(bin.width), bin.columns,
                    bin.row_ids, z, s);
      launch(queue, bin_kernel_, static_cast<std::size_t>(bin.rows), work_group_, work.kernels);
    }
    queue.flush();
    if (cpu_rows_ == 0) return;

    read.wait();
    work.transfers.push_back(read);
    Stopwatch host;
    with_real(precision_, [&](auto zero) {
      using T = decltype(zero);
      cpu_row_sums(layout_, static_cast<const T*>(z_host_.data()), static_cast<T*>(sums_host_.data()));
    });
    work.host_s += host.seconds();
    work.transfers.emplace_back();
    queue.enqueueWriteBuffer(cpu_sums_, CL_FALSE, 0, static_cast<std::size_t>(cpu_rows_) * real, sums_host_.data(),
                             nullptr, &work.transfers.back());
    set_args(scatter_kernel_, static_cast<cl_int>(cpu_rows_), cpu_row_ids_, cpu_sums_, s);
    launch(queue, scatter_kernel_, static_cast<std::size_t>(cpu_rows_), work_group_, work.kernels);
  }

 private:
  struct Bin {
    cl::Buffer columns, row_ids;
    std::optional<cl::Buffer> values;
    std::int64_t rows;
    int width;
  };
  Device device_;
  Precision precision_;
  std::int32_t n_;
  int work_group_;
  HybridLayout layout_;
  std::vector<Bin> bins_;
  std::int64_t cpu_rows_ = 0;
  cl::Buffer cpu_row_ids_, cpu_sums_;
  PinnedHostBuffer z_host_, sums_host_;
  cl::CommandQueue copy_queue_;
  cl::Kernel bin_kernel_, scatter_kernel_;
};

std::unique_ptr<SpmvFormat> make_hybrid_format(const Device& device, const Problem& problem,
                                               const PageRankKernel& kernel, const std::string& options,
                                               Timings& upload) {
  return std::make_unique<HybridFormat>(device, problem.links, kernel, problem.precision, options, upload);
}

}  // namespace itercl::pagerank
