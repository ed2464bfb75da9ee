// The device formats of the CSR family, ELLPACK and BSR (pagerank_kernel.hpp's table): layout uploaded once,
// kernels enqueued per iteration.
#include "pagerank/pagerank_spmv.hpp"

#include <algorithm>
#include <new>
#include <string>

#include "core/device_data.hpp"
#include "core/host_memory.hpp"
#include "itercl/matrix.hpp"
#include "itercl/timing.hpp"
#include "pagerank/device_graph.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::pagerank {

namespace {

// The in-link CSR on the device: where the device built it (32-bit offsets: it builds graphs below 2^31
// links only), or uploaded from the host with the offsets `options` chose.
void use_csr(const Device& device, const InLinks& L, const DeviceCsr* csr, const std::string& options, Timings& upload,
             cl::Buffer& offsets, cl::Buffer& sources) {
  if (csr) {
    offsets = csr->offsets, sources = csr->sources;
    return;
  }
  offsets = upload_offsets(device, L.offsets, options, "csr offsets", upload);
  sources = upload_buffer(device, L.sources, "csr sources", upload);
}

}  // namespace

std::optional<cl::Buffer> upload_values(const Device& device, const std::vector<double>& values, Precision precision,
                                        bool weighted, const char* what, Timings& upload) {
  if (!weighted) return std::nullopt;
  return with_real(precision, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> in_precision(values.begin(), values.end());
    return upload_buffer(device, in_precision, what, upload);
  });
}

cl::Buffer upload_offsets(const Device& device, const std::vector<std::int64_t>& offsets, const std::string& options,
                          const char* what, Timings& upload) {
  if (wide_offsets(options)) return upload_buffer(device, offsets, what, upload);
  // Every offset fits: defines() chose ints only for a graph of fewer links than 2^31 - 1.
  std::vector<std::int32_t> narrow = host_vector<std::int32_t>(offsets.size(), what);
  std::transform(offsets.begin(), offsets.end(), narrow.begin(),
                 [](std::int64_t o) { return static_cast<std::int32_t>(o); });
  return upload_buffer(device, narrow, what, upload);
}

class CsrFormat : public SpmvFormat {
 public:
  CsrFormat(const Device& device, const InLinks& L, const DeviceCsr* csr, const PageRankKernel& k, Precision p,
            const std::string& options, Timings& upload)
      : device_(device),
        n_(L.n_nodes),
        work_group_(k.work_group_size),
        lanes_(reads(format(k.format), "vector_size")),
        vector_size_(lanes_ ? k.vector_size : 1) {
    stats_.csr_bytes = stats_.matrix_bytes = csr_bytes(L);  // the in-link CSR is the format: nothing to build
    if (wide_offsets(options)) stats_.matrix_bytes += L.offsets.size() * 4;
    use_csr(device, L, csr, options, upload, offsets_, sources_);
    values_ = upload_values(device, L.values, p, L.weighted(), "csr values", upload);
    stats_.matrix_bytes += L.weighted() ? L.values.size() * real_size(p) : 0;
    kernel_ = device.kernel(kernel_file(k.format), options, format(k.format).entries[0]);
    real_size_ = real_size(p);
  }

  void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) override {
    const std::size_t rows_per_group = static_cast<std::size_t>(work_group_ / vector_size_);
    const std::size_t groups = (static_cast<std::size_t>(n_) + rows_per_group - 1) / rows_per_group;
    if (lanes_)
      set_link_args(kernel_, values_, static_cast<cl_int>(n_), offsets_, sources_, z, s,
                    static_cast<cl_int>(vector_size_), cl::Local(static_cast<std::size_t>(work_group_) * real_size_));
    else
      set_link_args(kernel_, values_, static_cast<cl_int>(n_), offsets_, sources_, z, s);
    launch(device_.queue(), kernel_, groups * static_cast<std::size_t>(work_group_), work_group_, work.kernels);
  }

 private:
  Device device_;
  std::int32_t n_;
  int work_group_;
  bool lanes_;  // csr_vector: vector_size work-items per row, which its kernel takes as arguments
  int vector_size_;
  std::size_t real_size_ = 4;
  cl::Buffer offsets_, sources_;
  std::optional<cl::Buffer> values_;
  cl::Kernel kernel_;
};

class CsrAdaptiveFormat : public SpmvFormat {
 public:
  CsrAdaptiveFormat(const Device& device, const InLinks& L, const DeviceCsr* csr, const PageRankKernel& k, Precision p,
                    const std::string& options, Timings& upload)
      : device_(device), work_group_(k.work_group_size), real_size_(real_size(p)) {
    capacity_ = kAdaptiveLinksPerItem * work_group_;
    // The last block's work-items index up to a block past the last link: within ints unless the options
    // chose longs (needs_wide_offsets covers the largest block).
    if (!wide_offsets(options))
      check_int_indexing("graph", static_cast<std::uint64_t>(L.n_links()) + static_cast<std::uint64_t>(capacity_),
                         "links and a csr_adaptive row block");
    const std::uint64_t local = (static_cast<std::uint64_t>(capacity_) + work_group_) * real_size_;
    if (local > device.info().local_memory)
      throw ParamError("kernel.work_group_size", "csr_adaptive with " + std::to_string(work_group_) +
                                                     " work-items needs " + std::to_string(local) +
                                                     " bytes of local memory; device '" + device.info().name +
                                                     "' has " + std::to_string(device.info().local_memory));
    Stopwatch build;
    const RowBlocks blocks = build_row_blocks(L, capacity_, work_group_);
    stats_.preprocess_s = build.seconds();
    n_blocks_ = blocks.n_blocks(), n_split_ = blocks.n_split();
    stats_.csr_bytes = csr_bytes(L);
    const std::size_t offset_bytes = wide_offsets(options) ? 8 : 4;
    stats_.matrix_bytes = stats_.csr_bytes + (offset_bytes - 4) * L.offsets.size() +
                          blocks.rows.size() * (4 + offset_bytes) + blocks.split.size() * 4 +
                          static_cast<std::uint64_t>(n_blocks_) * real_size_ +
                          (L.weighted() ? L.values.size() * real_size_ : 0);
    use_csr(device, L, csr, options, upload, offsets_, sources_);
    values_ = upload_values(device, L.values, p, L.weighted(), "csr values", upload);
    block_rows_ = upload_buffer(device, blocks.rows, "csr_adaptive row blocks", upload);
    block_links_ = upload_offsets(device, blocks.links, options, "csr_adaptive row blocks", upload);
    split_ = upload_buffer(device, blocks.split, "csr_adaptive split rows", upload);
    pieces_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                         static_cast<std::size_t>(std::max<std::int64_t>(n_blocks_, 1)) * real_size_);
    const Format& f = format(k.format);
    blocks_kernel_ = device.kernel(f.file, options, f.entries[0]);
    pieces_kernel_ = device.kernel(f.file, options, f.entries[1]);
  }

  void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) override {
    if (n_blocks_ == 0) return;
    const auto wg = static_cast<std::size_t>(work_group_);
    set_link_args(blocks_kernel_, values_, offsets_, sources_, block_rows_, block_links_, z, s, pieces_,
                  cl::Local(static_cast<std::size_t>(capacity_) * real_size_), cl::Local(wg * real_size_));
    launch(device_.queue(), blocks_kernel_, static_cast<std::size_t>(n_blocks_) * wg, work_group_, work.kernels);
    if (n_split_ == 0) return;
    set_args(pieces_kernel_, static_cast<cl_int>(n_split_), split_, pieces_, s);
    launch(device_.queue(), pieces_kernel_, static_cast<std::size_t>(n_split_), work_group_, work.kernels);
  }

 private:
  Device device_;
  int work_group_, capacity_ = 0;
  std::size_t real_size_;
  std::int64_t n_blocks_ = 0, n_split_ = 0;
  cl::Buffer offsets_, sources_, block_rows_, block_links_, split_, pieces_;
  std::optional<cl::Buffer> values_;
  cl::Kernel blocks_kernel_, pieces_kernel_;
};

class EllFormat : public SpmvFormat {
 public:
  EllFormat(const Device& device, const InLinks& L, const PageRankKernel& k, Precision p, const std::string& options,
            Timings& upload)
      : device_(device), work_group_(k.work_group_size) {
    Stopwatch build;
    const EllBlock ell = build_ell(L, k.ell_max_fill);
    stats_.preprocess_s = build.seconds();
    stats_.ell_width = ell.width;
    stats_.csr_bytes = csr_bytes(L);
    stats_.matrix_bytes = ell.columns.size() * 4 + ell.values.size() * real_size(p);
    rows_ = ell.n_rows, width_ = ell.width;
    columns_ = upload_buffer(device, ell.columns, "ell columns", upload);
    values_ = upload_values(device, ell.values, p, L.weighted(), "ell values", upload);
    kernel_ = device.kernel(kernel_file(k.format), options, format(k.format).entries[0]);
  }

  void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) override {
    set_link_args(kernel_, values_, static_cast<cl_int>(rows_), static_cast<cl_int>(width_), columns_, z, s);
    launch(device_.queue(), kernel_, static_cast<std::size_t>(rows_), work_group_, work.kernels);
  }

 private:
  Device device_;
  int work_group_;
  std::int64_t rows_ = 0;
  int width_ = 0;
  cl::Buffer columns_;
  std::optional<cl::Buffer> values_;
  cl::Kernel kernel_;
};

class BsrFormat : public SpmvFormat {
 public:
  BsrFormat(const Device& device, const InLinks& L, const PageRankKernel& k, Precision p, const std::string& options,
            Timings& upload)
      : device_(device), work_group_(k.work_group_size) {
    Stopwatch build;
    const BsrLayout bsr = build_bsr(L, k.bsr_width);
    stats_.preprocess_s = build.seconds();
    rows_ = bsr.n_rows, width_ = bsr.width;
    stats_.bsr_rows = bsr.n_rows;
    stats_.bsr_split_rows = bsr.split_rows;
    stats_.bsr_filler_slots = bsr.filler_slots;
    stats_.csr_bytes = csr_bytes(L);
    // The layout, plus P: a page pair and two partial sums per BSR row.
    stats_.matrix_bytes = bsr.slots.size() * 4 + bsr.values.size() * real_size(p) +
                          static_cast<std::uint64_t>(rows_) * (8 + 2 * real_size(p));
    slots_ = upload_buffer(device, bsr.slots, "bsr slots", upload);
    values_ = upload_values(device, bsr.values, p, L.weighted(), "bsr values", upload);
    const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(rows_, 1));
    partial_pages_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE, rows * 2 * sizeof(cl_int));
    partial_sums_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE, rows * 2 * real_size(p));
    const Format& f = format(k.format);
    rows_kernel_ = device.kernel(f.file, options, f.entries[0]);
    sum_kernel_ = device.kernel(f.file, options, f.entries[1]);
  }

  void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) override {
    if (rows_ == 0) return;
    set_link_args(rows_kernel_, values_, static_cast<cl_int>(rows_), static_cast<cl_int>(width_), slots_, z, s,
                  partial_pages_, partial_sums_);
    set_args(sum_kernel_, static_cast<cl_int>(rows_), partial_pages_, partial_sums_, s);
    launch(device_.queue(), rows_kernel_, static_cast<std::size_t>(rows_), work_group_, work.kernels);
    launch(device_.queue(), sum_kernel_, static_cast<std::size_t>(rows_), work_group_, work.kernels);
  }

 private:
  Device device_;
  int work_group_;
  std::int64_t rows_ = 0;
  int width_ = 0;
  cl::Buffer slots_, partial_pages_, partial_sums_;
  std::optional<cl::Buffer> values_;
  cl::Kernel rows_kernel_, sum_kernel_;
};

std::unique_ptr<SpmvFormat> make_csr_format(const Device& device, const Problem& problem, const PageRankKernel& kernel,
                                            const std::string& options, Timings& upload) {
  return std::make_unique<CsrFormat>(device, problem.links, problem.csr, kernel, problem.precision, options, upload);
}

std::unique_ptr<SpmvFormat> make_csr_adaptive_format(const Device& device, const Problem& problem,
                                                     const PageRankKernel& kernel, const std::string& options,
                                                     Timings& upload) {
  return std::make_unique<CsrAdaptiveFormat>(device, problem.links, problem.csr, kernel, problem.precision, options,
                                             upload);
}

std::unique_ptr<SpmvFormat> make_ell_format(const Device& device, const Problem& problem, const PageRankKernel& kernel,
                                            const std::string& options, Timings& upload) {
  return std::make_unique<EllFormat>(device, problem.links, kernel, problem.precision, options, upload);
}

std::unique_ptr<SpmvFormat> make_bsr_format(const Device& device, const Problem& problem, const PageRankKernel& kernel,
                                            const std::string& options, Timings& upload) {
  return std::make_unique<BsrFormat>(device, problem.links, kernel, problem.precision, options, upload);
}

std::unique_ptr<SpmvFormat> make_spmv_format(const Device& device, const Problem& problem, const PageRankKernel& kernel,
                                             const std::string& options, Timings& upload) {
  const MakeFormat make = format(kernel.format).make;
  try {
    return make(device, problem, kernel, options, upload);
  } catch (const cl::Error&) {
    rethrow_as_itercl_error();
  } catch (const std::bad_alloc&) {  // the large arrays name themselves (host_array); this is the rest
    throw RuntimeError("out of host memory building format " + kernel.format + " for " +
                       std::to_string(problem.links.n_nodes) + " nodes and " + std::to_string(problem.links.n_links()) +
                       " links");
  }
}

}  // namespace itercl::pagerank
