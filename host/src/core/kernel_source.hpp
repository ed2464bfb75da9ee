// Kernel sources embedded at build time (internal).
#pragma once

#include <string>

namespace itercl::core {

// The text of cl/<file>, with every `#include "x.clh"` line replaced by the embedded x.clh, so the
// OpenCL compiler needs no include path. Throws RuntimeError for a file that was not embedded.
std::string kernel_source(const std::string& file);

}  // namespace itercl::core
