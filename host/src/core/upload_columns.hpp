// A caller's rows to a device buffer in the kernels' column-major layout, at the bus's rate (internal).
#pragma once

#include "itercl/device.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl::core {

// Rows [0, rows.rows()) of `rows`, less `shift` per column, in `precision`, into `out` column-major with
// ld = rows.rows() (the layout of pack_column_major). The rows are packed on all cores into the device's
// two pinned staging chunks, kept from one call to the next, and each chunk's copy runs while the next is
// packed, so the call takes about as long as the slower of the two and no copy of the whole is made.
// Returns the copies' transfer time and the call's wall time. Blocks until the copies are done.
Timings upload_columns(const Device& device, const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift,
                       const cl::Buffer& out);

}  // namespace itercl::core
