// The table cmake/embed_kernels.cmake generates (internal).
#pragma once

#include <string_view>
#include <vector>

namespace itercl::detail {

struct EmbeddedFile {
  std::string_view name;  // file name under cl/
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_kernels();

}  // namespace itercl::detail
