// Building ELLPACK, hybrid and Balanced CSR layouts from the in-link CSR; the hybrid's CPU rows.
#include "pagerank/pagerank_formats.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "itercl/error.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::pagerank {

// Pads `rows` (all rows if empty) to `width`, column-major; `what` names the array if it does not fit.
EllBlock ell_block(const InLinks& L, std::vector<std::int32_t> rows, int width, std::string_view what) {
  EllBlock b;
  b.n_rows = rows.empty() ? L.n_nodes : static_cast<std::int64_t>(rows.size());
  b.width = width;
  const std::size_t slots = static_cast<std::size_t>(b.n_rows) * static_cast<std::size_t>(width);
  b.columns = host_array(slots, L.n_nodes, what);
  if (L.weighted()) b.values = host_array(slots, 0.0, what);
  b.min_length = std::numeric_limits<int>::max();
  for (std::int64_t r = 0; r < b.n_rows; ++r) {
    const std::int32_t row = rows.empty() ? static_cast<std::int32_t>(r) : rows[static_cast<std::size_t>(r)];
    const int length = L.row_length(row);
    b.min_length = std::min(b.min_length, length), b.max_length = std::max(b.max_length, length);
    for (int c = 0; c < length; ++c) {
      const auto to = static_cast<std::size_t>(c * b.n_rows + r);
      const auto from = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(row)] + c);
      b.columns[to] = L.sources[from];
      if (!b.values.empty()) b.values[to] = L.values[from];
    }
  }
  if (b.n_rows == 0) b.min_length = 0;
  b.rows = std::move(rows);
  return b;
}

EllBlock build_ell(const InLinks& L, double max_fill) {
  int width = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) width = std::max(width, L.row_length(i));
  const std::int64_t slots = static_cast<std::int64_t>(L.n_nodes) * width;
  const double fill = static_cast<double>(slots) / static_cast<double>(std::max<std::int64_t>(L.n_links(), 1));
  if (fill > max_fill) {
    std::ostringstream s;
    s << "padding all " << L.n_nodes << " rows to the longest (" << width << " in-links) stores " << slots
      << " slots for " << L.n_links() << " links, " << fill << " per link"
      << "; the limit is ell_max_fill = " << max_fill << ". ELLPACK suits rows of similar length: use hybrid or bsr";
    throw ParamError("kernel.ell_max_fill", s.str());
  }
  return ell_block(L, {}, width, "ell columns");
}

// The CPU takes the longest rows, as many as it sums in the time the device sums the rest: with the
// device summing rho links for each one the CPU sums, the rows of k or more in-links may hold at most
// 1 / (1 + rho) of the links; k is the smallest power of two (at least 4, the seed's smallest) that
// keeps them within it. rho per device: tuning/pagerank.json, with the measurements behind it.
int auto_hybrid_k(std::span<const std::int64_t> offsets, double rho) {
  const double cpu_share = 1.0 / (1.0 + rho);
  std::vector<std::int64_t> links_from(33, 0);  // links in rows of at least 2^j in-links
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const auto length = static_cast<std::int32_t>(offsets[i + 1] - offsets[i]);
    if (length > 0) links_from[static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(length)) - 1)] += length;
  }
  for (std::size_t j = links_from.size() - 1; j-- > 0;) links_from[j] += links_from[j + 1];
  const auto total = static_cast<double>(std::max<std::int64_t>(offsets.empty() ? 0 : offsets.back(), 1));
  for (std::size_t j = 2; j < 31; ++j)
    if (static_cast<double>(links_from[j]) <= cpu_share * total) return 1 << j;
  return 1 << 30;
}

int hybrid_bin(int length) { return length < 4 ? 0 : std::bit_width(static_cast<unsigned>(length)) - 2; }

HybridLayout build_hybrid(const InLinks& L, int k) {
  HybridLayout h;
  h.k = k;
  std::vector<std::vector<std::int32_t>> bins;
  std::size_t cpu_links = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const int length = L.row_length(i);
    if (length == 0) continue;
    if (length >= k) {
      h.cpu_rows.push_back(i);
      cpu_links += static_cast<std::size_t>(length);
      continue;
    }
    const auto bin = static_cast<std::size_t>(hybrid_bin(length));
    if (bins.size() <= bin) bins.resize(bin + 1);
    bins[bin].push_back(i);
  }
  // The CPU's rows as CSR, their in-links counted first so that the one large array is allocated once.
  h.cpu_sources = host_array<std::int32_t>(cpu_links, 0, "the hybrid's CPU rows");
  if (L.weighted()) h.cpu_values = host_array<double>(cpu_links, 0, "the hybrid's CPU rows' weights");
  h.cpu_offsets.reserve(h.cpu_rows.size() + 1);
  h.cpu_offsets.push_back(0);
  for (const std::int32_t row : h.cpu_rows) {
    const std::int64_t first = L.offsets[static_cast<std::size_t>(row)];
    std::copy(L.sources.begin() + first, L.sources.begin() + first + L.row_length(row),
              h.cpu_sources.begin() + h.cpu_offsets.back());
    if (L.weighted())
      std::copy(L.values.begin() + first, L.values.begin() + first + L.row_length(row),
                h.cpu_values.begin() + h.cpu_offsets.back());
    h.cpu_offsets.push_back(h.cpu_offsets.back() + L.row_length(row));
  }
  for (auto& rows : bins) {
    if (rows.empty()) continue;
    int width = 0;
    for (const std::int32_t r : rows) width = std::max(width, L.row_length(r));
    h.bins.push_back(ell_block(L, std::move(rows), width, "hybrid bin columns"));
  }
  return h;
}

template <class T>
void cpu_row_sums(const HybridLayout& h, const T* z, T* out) {
  const std::size_t rows = h.cpu_rows.size(), links = h.cpu_sources.size();
  if (rows == 0) return;
  const int workers = worker_count(links);
  // A row cut by a thread boundary: its piece in that thread.
  struct Piece {
    std::size_t row = 0;
    T sum = 0;
  };
  std::vector<std::vector<Piece>> pieces(static_cast<std::size_t>(workers));
  parallel_blocks(links, workers, [&](std::size_t lo, std::size_t hi, int w) {
    if (lo == hi) return;
    const auto& offsets = h.cpu_offsets;
    std::size_t r =
        static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<std::int64_t>(lo)) -
                                 offsets.begin()) -
        1;
    for (; r < rows && static_cast<std::size_t>(offsets[r]) < hi; ++r) {
      const auto begin = std::max<std::size_t>(static_cast<std::size_t>(offsets[r]), lo);
      const auto end = std::min<std::size_t>(static_cast<std::size_t>(offsets[r + 1]), hi);
      T sum = 0;
      if (!h.cpu_values.empty())
        for (std::size_t k = begin; k < end; ++k) sum += static_cast<T>(h.cpu_values[k]) * z[h.cpu_sources[k]];
      else
        for (std::size_t k = begin; k < end; ++k) sum += z[h.cpu_sources[k]];
      if (begin == static_cast<std::size_t>(offsets[r]) && end == static_cast<std::size_t>(offsets[r + 1]))
        out[r] = sum;
      else
        pieces[static_cast<std::size_t>(w)].push_back({r, sum});
    }
  });
  for (const auto& list : pieces)
    for (const Piece& p : list) out[p.row] = 0;
  for (const auto& list : pieces)
    for (const Piece& p : list) out[p.row] += p.sum;
}
template void cpu_row_sums<float>(const HybridLayout&, const float*, float*);
template void cpu_row_sums<double>(const HybridLayout&, const double*, double*);

// The seed's construction (section 5.2.1), run twice: once to count the BSR rows, once to write them
// column-major into an array of that height. put(row, column, value, link): link is the in-link stored
// there (its index in L.sources), or -1 for a marker, a row id or a filler.
template <class Put>
std::int64_t lay_out_bsr(const InLinks& L, int width, BsrLayout& stats, Put&& put) {
  std::int64_t row = 0;
  int used = 0;  // slots taken in the current BSR row
  auto close_row = [&] {
    for (; used < width; ++used) put(row, used, kBsrFiller, -1), ++stats.filler_slots;
    ++row, used = 0;
  };
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const int length = L.row_length(i);
    if (length == 0) continue;  // no in-links: its sum stays 0, nothing to store
    if (width - used <= 2) close_row();
    const std::int64_t first = L.offsets[static_cast<std::size_t>(i)];
    const std::int32_t* links = L.sources.data() + first;
    if (length + 2 <= width - used) {  // alpha: the whole row fits
      put(row, used++, kBsrNewRow, -1), put(row, used++, i, -1);
      for (int c = 0; c < length; ++c) put(row, used++, links[c], first + c);
      continue;
    }
    ++stats.split_rows;  // beta pieces, each repeating the row id, until the row is stored
    for (int done = 0; done < length;) {
      if (width - used <= 2) close_row();
      put(row, used++, kBsrPartialRow, -1), put(row, used++, i, -1);
      const int take = std::min(length - done, width - used);
      for (int c = 0; c < take; ++c) put(row, used++, links[done + c], first + done + c);
      done += take;
    }
  }
  if (used > 0) close_row();
  return row;
}

BsrLayout build_bsr(const InLinks& L, int width) {
  if (width < 4) throw ParamError("kernel.bsr_width", "expected an integer >= 4, got " + std::to_string(width));
  BsrLayout b;
  b.width = width;
  BsrLayout counting;
  b.n_rows = lay_out_bsr(L, width, counting, [](std::int64_t, int, std::int32_t, std::int64_t) {});
  check_int_indexing("params.format", static_cast<std::uint64_t>(b.n_rows),
                     "Balanced CSR rows of " + std::to_string(width) + " slots");
  b.slots = host_array<std::int32_t>(static_cast<std::size_t>(b.n_rows * width), 0, "bsr slots");
  if (L.weighted()) b.values = host_array<double>(b.slots.size(), 0, "bsr slots' weights");
  lay_out_bsr(L, width, b, [&](std::int64_t row, int column, std::int32_t value, std::int64_t link) {
    const auto at = static_cast<std::size_t>(column * b.n_rows + row);
    b.slots[at] = value;
    if (link >= 0 && !b.values.empty()) b.values[at] = L.values[static_cast<std::size_t>(link)];
  });
  return b;
}

namespace {

// The blocks of rows [first, last), greedily: a row longer than `capacity` is split into pieces of its
// own; otherwise a block takes rows while they fit (capacity links, max_rows rows). Split rows name
// their first block counting from this range's first.
RowBlocks blocks_of_rows(const InLinks& L, std::int32_t first, std::int32_t last, int capacity, int max_rows) {
  RowBlocks b;
  auto start = [&](std::int32_t row, std::int64_t link) {
    b.rows.push_back(row);
    b.links.push_back(link);
  };
  for (std::int32_t i = first; i < last;) {
    const std::int64_t begin = L.offsets[static_cast<std::size_t>(i)];
    const int length = L.row_length(i);
    if (length > capacity) {
      const std::int64_t pieces = (length + static_cast<std::int64_t>(capacity) - 1) / capacity;
      b.split.insert(b.split.end(), {i, static_cast<std::int32_t>(b.rows.size()), static_cast<std::int32_t>(pieces)});
      for (std::int64_t piece = 0; piece < pieces; ++piece) start(i, begin + piece * capacity);
      ++i;
      continue;
    }
    start(i, begin);
    std::int64_t links = 0;
    for (int rows = 0; i < last && rows < max_rows && links + L.row_length(i) <= capacity; ++rows, ++i)
      links += L.row_length(i);
  }
  return b;
}

// Rows a range of build_row_blocks takes: each range starts a block, so the layout is the same on any
// number of cores.
constexpr std::int32_t kRowBlockRange = 1 << 16;

}  // namespace

RowBlocks build_row_blocks(const InLinks& L, int capacity, int max_rows) {
  if (capacity < 1 || max_rows < 1)
    throw ParamError("kernel.work_group_size", "row blocks need room for a link and a row, got capacity " +
                                                   std::to_string(capacity) + " and " + std::to_string(max_rows) +
                                                   " rows");
  const auto n = static_cast<std::size_t>(L.n_nodes);
  const std::size_t ranges = (n + kRowBlockRange - 1) / kRowBlockRange;
  std::vector<RowBlocks> parts(ranges);
  parallel_blocks(ranges, worker_count(n), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t r = begin; r < end; ++r)
      parts[r] = blocks_of_rows(L, static_cast<std::int32_t>(r * kRowBlockRange),
                                static_cast<std::int32_t>(std::min(n, (r + 1) * kRowBlockRange)), capacity, max_rows);
  });
  RowBlocks b;
  for (const RowBlocks& part : parts) {
    const auto before = static_cast<std::int32_t>(b.rows.size());
    for (std::size_t k = 0; k < part.split.size(); k += 3)
      b.split.insert(b.split.end(), {part.split[k], part.split[k + 1] + before, part.split[k + 2]});
    b.rows.insert(b.rows.end(), part.rows.begin(), part.rows.end());
    b.links.insert(b.links.end(), part.links.begin(), part.links.end());
  }
  b.rows.push_back(L.n_nodes);
  b.links.push_back(L.n_links());
  return b;
}

std::vector<std::int32_t> degree_order(std::span<const std::int32_t> out_degree) {
  // A counting sort by degree, highest first, nodes of one degree in index order: the order a stable
  // sort gives, in O(nodes + largest degree) rather than O(nodes log nodes), on the cores while each
  // worker's count per degree stays below a count per node.
  const std::size_t n = out_degree.size();
  const std::int32_t largest = n == 0 ? 0 : *std::max_element(out_degree.begin(), out_degree.end());
  const auto degrees = static_cast<std::size_t>(largest) + 1;
  const int workers = std::min(worker_count(n), static_cast<int>(std::max<std::size_t>(1, n / degrees)));
  std::vector<std::int32_t> order = host_vector<std::int32_t>(n, "the node order");
  core::counting_scatter(
      n, degrees, workers, [&](std::size_t i) { return static_cast<std::size_t>(largest - out_degree[i]); },
      [&](std::size_t i, std::size_t at) { order[at] = static_cast<std::int32_t>(i); });
  return order;
}

InLinks renumbered(const InLinks& L, const std::vector<std::int32_t>& order, bool sort_rows) {
  const auto n = static_cast<std::size_t>(L.n_nodes);
  std::vector<std::int32_t> new_id = host_vector<std::int32_t>(n, "the node order");
  for (std::size_t i = 0; i < n; ++i) new_id[static_cast<std::size_t>(order[i])] = static_cast<std::int32_t>(i);
  InLinks R;
  R.n_nodes = L.n_nodes;
  R.self_loops = L.self_loops, R.duplicates = L.duplicates, R.dropped = L.dropped;
  R.offsets = host_vector<std::int64_t>(n + 1, "the renumbered offsets");
  R.out_degree = host_vector<std::int32_t>(n, "the renumbered out-degrees");
  R.zero_weights = L.zero_weights;
  if (L.weighted()) {
    R.out_weight = to_new(L.out_weight, order);
    R.values = host_vector<double>(L.values.size(), "the renumbered weights");
  }
  for (std::size_t i = 0; i < n; ++i) {
    R.out_degree[i] = L.out_degree[static_cast<std::size_t>(order[i])];
    R.offsets[i + 1] = R.offsets[i] + L.row_length(order[i]);
  }
  R.sources = host_vector<std::int32_t>(L.sources.size(), "the renumbered in-links");
  // The rows shared among the threads by their links: renumbered by degree, the longest rows come first,
  // and blocks of rows would leave the first thread with most of the work.
  const std::size_t links = L.sources.size();
  const int workers = worker_count(links);
  parallel_blocks(static_cast<std::size_t>(workers), workers, [&](std::size_t w, std::size_t, int) {
    auto first_row = [&](std::size_t k) {
      const auto target = static_cast<std::int64_t>(links * k / static_cast<std::size_t>(workers));
      return static_cast<std::size_t>(std::lower_bound(R.offsets.begin(), R.offsets.end() - 1, target) -
                                      R.offsets.begin());
    };
    std::vector<std::pair<std::int32_t, double>> row;  // a weighted row's links, sorted with their weights
    for (std::size_t i = first_row(w), last = first_row(w + 1); i < last; ++i) {
      const std::int64_t from = L.offsets[static_cast<std::size_t>(order[i])], length = R.offsets[i + 1] - R.offsets[i];
      const auto to = R.sources.begin() + R.offsets[i];
      if (!L.weighted()) {
        std::transform(L.sources.begin() + from, L.sources.begin() + from + length, to,
                       [&](std::int32_t j) { return new_id[static_cast<std::size_t>(j)]; });
        if (sort_rows) std::sort(to, R.sources.begin() + R.offsets[i + 1]);
        continue;
      }
      row.clear();
      for (std::int64_t k = from; k < from + length; ++k)
        row.emplace_back(new_id[static_cast<std::size_t>(L.sources[static_cast<std::size_t>(k)])],
                         L.values[static_cast<std::size_t>(k)]);
      if (sort_rows)
        std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t k = 0; k < row.size(); ++k)
        to[static_cast<std::ptrdiff_t>(k)] = row[k].first,
        R.values[static_cast<std::size_t>(R.offsets[i]) + k] = row[k].second;
    }
  });
  return R;
}

}  // namespace itercl::pagerank
