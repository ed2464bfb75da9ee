// The tables cmake/embed_files.cmake generates (internal).
#pragma once

#include <string_view>
#include <vector>

namespace itercl::detail {

struct EmbeddedFile {
  std::string_view name;  // file name under its folder
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_kernels();  // cl/*.cl, cl/*.clh
const std::vector<EmbeddedFile>& embedded_tuning();   // tuning/*.json

}  // namespace itercl::detail
