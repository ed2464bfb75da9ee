// pagerank_bsr.cl: PageRank's sum over in-links with the link graph in Balanced CSR, "BSR" (seed 004,
// section 5.2): s_i = sum of z_j over the links j -> i, no value array (z_j = x_j / outdeg_j).
//
// Layout. The rows of A (row i: the nodes linking to i) are laid end to end into rows of a fixed
// width W, each piece led by a marker and the row id; a row that does not fit the space left is
// split into beta pieces; a BSR row with 2 or fewer free slots is closed with fillers. The seed's
// Figure 8 (W = 8; its 1-based ids), where row 3 has 13 in-links:
//
//          slot:  0  1  2   3   4   5   6   7                 P (partial sums):
//   BSR row 0:    a  1  2   3   a   2   1   e                 e  e  e  e
//   BSR row 1:    b  3  1   2   3   4   5   6                 3  x  e  e
//   BSR row 2:    b  3  7   8   9   10  11  13                3  x  e  e
//   BSR row 3:    b  3  14  a   4   3   8   e                 3  x  e  e
//   BSR row 4:    a  5  2   3   5   6   14  e                 e  e  e  e
//
//   a (alpha, -1) a whole row; b (beta, -2) a piece of a split row; e (epsilon, -3) filler.
//   slots    W x bsr_rows ints, column-major: slot c of BSR row r at c * bsr_rows + r, so the work-items
//            of a group read consecutive addresses at every step (seed 5.3.2). Loop-invariant.
//   P        per BSR row, the page and partial sum of its first record if that is a piece (.x), and of
//            its last record if that is another piece (.y); page -1 when none. The seed keeps both in
//            one N x 4 real matrix; page ids are kept as ints here, since a float holds ids only up
//            to 2^24 exactly.
//   z        n + 1 reals, read by gather; s: n reals, written (rows without in-links are not in the
//            layout; their s stays 0 from the upload).
//
// Kernels (the seed's Figure 9)
//   fixed_width_sparse_row  one BSR row per work-item, W slots: whole rows go straight to s, pieces to P.
//   partial_rank_sum        one BSR row per work-item: the row that starts a split row adds up its
//                           pieces, which lie in the following BSR rows' first records, in order.
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D WEIGHTED            weighted links: `values` beside `slots`, a link's weight at its slot
//                          (markers' and row ids' slots unused; pagerank_links.clh)
//   The width is a kernel argument, so one build serves every width.
#include "pagerank_links.clh"

#define BSR_NEW_ROW (-1)
#define BSR_PARTIAL_ROW (-2)
#define BSR_FILLER (-3)

__kernel void fixed_width_sparse_row(const int bsr_rows, const int width, __global const int* restrict slots,
                                     __global const real* restrict z, __global real* restrict s,
                                     __global int2* restrict partial_pages,
                                     __global real* restrict partial_sums LINK_VALUES) {
  const int b = get_global_id(0);
  if (b >= bsr_rows) return;
  int2 pages = (int2)(-1, -1);
  real first_sum = 0, last_sum = 0;
  int status = slots[b];
  int page = slots[bsr_rows + b];
  int records = 1;
  real sum = 0;
  for (int c = 2; c < width; ++c) {
    const long k = (long)c * bsr_rows + b;  // 64-bit: the slots may pass 2^31 before the links do
    const int value = slots[k];
    if (value >= 0) {
      sum += LINK(k, z[value]);
    } else if (value == BSR_FILLER) {
      break;
    } else {  // a marker: the record so far is complete. Only the first can be a piece here.
      if (status == BSR_PARTIAL_ROW) {
        pages.x = page;
        first_sum = sum;
      } else {
        s[page] = sum;
      }
      status = value;
      page = slots[(long)(++c) * bsr_rows + b];
      sum = 0;
      ++records;
    }
  }
  if (status == BSR_PARTIAL_ROW) {
    if (records == 1) {
      pages.x = page;
      first_sum = sum;
    } else {
      pages.y = page;
      last_sum = sum;
    }
  } else {
    s[page] = sum;
  }
  partial_pages[b] = pages;
  partial_sums[2 * b] = first_sum;
  partial_sums[2 * b + 1] = last_sum;
}

// A split row starts either as the last record of a BSR row (.y), or alone at the start of a BSR row
// (.x of a row whose previous row does not end with the same page). Its later pieces are the .x of the
// following BSR rows. The starting work-item adds them in order and writes the row's sum.
__kernel void partial_rank_sum(const int bsr_rows, __global const int2* restrict partial_pages,
                               __global const real* restrict partial_sums, __global real* restrict s) {
  const int b = get_global_id(0);
  if (b >= bsr_rows) return;
  const int2 pages = partial_pages[b];
  int page;
  real sum;
  if (pages.y >= 0) {
    page = pages.y;
    sum = partial_sums[2 * b + 1];
  } else if (pages.x >= 0) {
    page = pages.x;
    if (b > 0) {
      const int2 previous = partial_pages[b - 1];
      if ((previous.y >= 0 ? previous.y : previous.x) == page) return;  // a continuation, not a start
    }
    sum = partial_sums[2 * b];
  } else {
    return;
  }
  for (int next = b + 1; next < bsr_rows && partial_pages[next].x == page; ++next) sum += partial_sums[2 * next];
  s[page] = sum;
}
