// The in-link graph built on the device (cl/graph_build.cl): the host's in_links and degree renumbering
// as sorts of 64-bit keys, so that a graph of tens of millions of links is ready in milliseconds on a GPU
// instead of the host's hundreds (docs/pagerank.md, "Time to solution").
#include "pagerank/device_graph.hpp"

#include <algorithm>
#include <array>
#include <future>
#include <string>

#include "core/device_sort.hpp"
#include "core/edges.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "core/parallel.hpp"
#include "core/phase_clock.hpp"
#include "core/staged_copies.hpp"

namespace itercl::pagerank {
namespace {

// One work-item per link or node.
constexpr std::size_t kGroup = core::kSortGroup;

class Builder {
 public:
  Builder(const Device& device, std::int32_t n) : device_(device), queue_(device.queue()), n_(n) {}

  cl::Buffer buffer(std::size_t bytes) const {
    return cl::Buffer(device_.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1));
  }

  template <class... Args>
  void run(const char* name, std::size_t items, Args&&... args) {
    cl::Kernel k = device_.kernel("graph_build.cl", "", name);
    set_args(k, std::forward<Args>(args)...);
    queue_.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(core::groups_covering(items, kGroup)),
                                cl::NDRange(kGroup));
  }

  template <class T>
  std::vector<T> read(const cl::Buffer& b, std::size_t count, std::string_view what) const {
    std::vector<T> out = host_vector<T>(count, what);
    core::download(device_, b, 0, count * sizeof(T), out.data());
    return out;
  }

  template <class T>
  T read_one(const cl::Buffer& b, std::size_t at = 0) const {
    T value{};
    queue_.enqueueReadBuffer(b, CL_TRUE, at * sizeof(T), sizeof(T), &value);
    return value;
  }

  // An event that completes when everything enqueued so far has; flushed, so that another queue waiting
  // for it never waits on work this queue has not submitted.
  cl::Event marker() const {
    cl::Event done;
    queue_.enqueueMarkerWithWaitList(nullptr, &done);
    queue_.flush();
    return done;
  }

  template <class T>
  cl::Buffer filled(std::size_t count, T value) const {
    cl::Buffer b = buffer(count * sizeof(T));
    if (count) queue_.enqueueFillBuffer(b, value, 0, count * sizeof(T));
    return b;
  }

  const Device& device_;
  cl::CommandQueue& queue_;
  std::int32_t n_;
};

// The host's copies of the graph's per-node arrays (DeviceGraph).
struct HostCopies {
  std::vector<std::int32_t> order, out_degree;
  std::vector<std::int64_t> offsets;
};

// Reads order (n values, or none where it is empty), out_degree (n) and offsets (n + 1, widened to 64 bits)
// once `ready` completes, in a thread and on a queue of their own, through the pinned staging chunks (a
// blocking read into ordinary memory would hold NVIDIA's driver, stalling the sort's enqueues meanwhile),
// so that the kernels enqueued after `ready` on the device's queue run meanwhile: the reads cross the bus
// while the links sort.
std::future<HostCopies> read_behind(const Device& device, cl::Event ready, cl::Buffer order, cl::Buffer out_degree,
                                    cl::Buffer offsets, std::size_t n) {
  return std::async(std::launch::async, [&device, ready, order, out_degree, offsets, n] {
    cl::CommandQueue queue(device.context(), device.device(), CL_QUEUE_PROFILING_ENABLE);  // the copies are timed
    const core::CopyQueue on{.queue = &queue, .after = {ready}};
    HostCopies host;
    if (order()) {
      host.order = host_vector<std::int32_t>(n, "the node order");
      core::download(device, order, 0, n * 4, host.order.data(), on);
    }
    host.out_degree = host_vector<std::int32_t>(n, "the out-degrees");
    core::download(device, out_degree, 0, n * 4, host.out_degree.data(), on);
    // 32-bit on the device (graphs below 2^31 links are built here), 64-bit in InLinks: widened on the way.
    host.offsets = host_vector<std::int64_t>(n + 1, "the in-links' offsets");
    const auto widen = [&](std::size_t at, const void* chunk, std::size_t bytes) {
      const auto* from = static_cast<const std::int32_t*>(chunk);
      std::int64_t* to = host.offsets.data() + at / 4;
      parallel_blocks(bytes / 4, worker_count(bytes / 4), [&](std::size_t begin, std::size_t end, int) {
        std::copy(from + begin, from + end, to + begin);
      });
    };
    core::download_chunks(device, offsets, 0, (n + 1) * 4, widen, on);
    return host;
  });
}

}  // namespace

DeviceGraph build_on_device(const Device& device, const EdgesView& edges, const LinkOptions& options, bool degree_order,
                            Timings& upload) {
  core::check_edge_counts(edges);
  const std::int32_t n = edges.n_nodes;
  const auto un = static_cast<std::size_t>(n);
  std::size_t m = edges.src.size();
  const int bits = core::node_bits(n);
  Builder b(device, n);
  DeviceGraph g;
  g.links.n_nodes = n;

  core::enter_phase("upload");  // the edge arrays, as they are
  cl::Buffer src = b.buffer(m * 4), dst = b.buffer(m * 4);
  upload += core::upload(device, edges.src.data(), m * 4, src);
  upload += core::upload(device, edges.dst.data(), m * 4, dst);

  core::enter_phase("graph_build");
  cl::Buffer keys = b.buffer(m * 8), scratch = b.buffer(m * 8);
  cl::Buffer bad = b.filled<cl_int>(1, static_cast<cl_int>(m));
  b.run("edge_keys", m, src, dst, static_cast<cl_uint>(m), static_cast<cl_int>(n), static_cast<cl_int>(bits), keys,
        bad);
  if (const auto e = static_cast<std::size_t>(b.read_one<cl_int>(bad)); e < m) core::throw_bad_edge(edges, e);
  src = dst = cl::Buffer();

  // The counts are the input's, before anything is dropped: renaming keeps self-loops and repeats, so
  // without a drop they are counted once, on the last sort's keys.
  cl::Buffer counts = b.filled<cl_uint>(2, 0);
  const bool drop = !options.self_loops || !options.duplicates;
  bool sorted = false;
  if (drop && m > 0) {
    core::sort_keys(device, keys, scratch, m, 2 * bits);
    sorted = true;
    b.run("link_counts", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), counts);
    cl::Buffer flags = b.buffer(m * 4), places = b.buffer(m * 4);
    b.run("kept_links", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits),
          static_cast<cl_int>(!options.self_loops), static_cast<cl_int>(!options.duplicates), flags);
    b.queue_.enqueueCopyBuffer(flags, places, 0, 0, m * 4);
    core::exclusive_scan(device, places, m);
    b.run("compact_links", m, keys, static_cast<cl_uint>(m), places, flags, scratch);
    std::swap(keys, scratch);
    const std::size_t kept =
        m ? static_cast<std::size_t>(b.read_one<cl_uint>(places, m - 1)) + b.read_one<cl_uint>(flags, m - 1) : 0;
    g.links.dropped = static_cast<std::int64_t>(m - kept);
    m = kept;
  }

  cl::Buffer out_degree = b.filled<cl_int>(un, 0), order_buffer;
  b.run("key_out_degrees", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), out_degree);
  if (degree_order && n > 0) {
    core::enter_phase("reorder");
    cl::Buffer largest = b.filled<cl_int>(1, 0);
    b.run("largest_degree", un, out_degree, static_cast<cl_int>(n), largest);
    const cl_int most = b.read_one<cl_int>(largest);
    const int degree_bits = core::node_bits(most + 1);
    cl::Buffer node_keys = b.buffer(un * 8), node_scratch = b.buffer(un * 8);
    b.run("degree_keys", un, out_degree, static_cast<cl_int>(n), most, static_cast<cl_int>(bits), node_keys);
    core::sort_keys(device, node_keys, node_scratch, un, bits + degree_bits);
    cl::Buffer order = b.buffer(un * 4), new_id = b.buffer(un * 4), new_out_degree = b.buffer(un * 4);
    b.run("node_order", un, node_keys, static_cast<cl_int>(n), static_cast<cl_int>(bits), out_degree, order, new_id,
          new_out_degree);
    out_degree = new_out_degree;
    b.run("rename_links", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), new_id);
    sorted = false;
    order_buffer = order;
  }
  // Each row's in-links counted and scanned into the offsets before the last sort, so that the host's
  // copies (the offsets, the order, the out-degrees) are read while the device sorts the links.
  g.csr.offsets = b.filled<cl_uint>(un + 1, 0);
  b.run("key_in_degrees", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), g.csr.offsets);
  core::exclusive_scan(device, g.csr.offsets, un + 1);
  std::future<HostCopies> copies = read_behind(device, b.marker(), order_buffer, out_degree, g.csr.offsets, un);
  if (!sorted) core::sort_keys(device, keys, scratch, m, 2 * bits);
  if (!drop) b.run("link_counts", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), counts);

  if (degree_order) core::enter_phase("graph_build");
  g.csr.sources = b.buffer(m * 4);
  b.run("sources_of_keys", m, keys, static_cast<cl_uint>(m), static_cast<cl_int>(bits), g.csr.sources);
  g.csr.out_degree = out_degree;
  const auto c = b.read<cl_uint>(counts, 2, "the link counts");
  g.links.self_loops = c[0], g.links.duplicates = c[1];
  HostCopies host = copies.get();
  g.order = std::move(host.order);
  g.links.offsets = std::move(host.offsets);
  g.links.out_degree = std::move(host.out_degree);
  return g;
}

}  // namespace itercl::pagerank
