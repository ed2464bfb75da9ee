// bzip2 decompression (internal; read_file dispatches here by the stream's magic "BZh").
#pragma once

#include <filesystem>
#include <string>

namespace itercl::io {

bool is_bzip2(const std::string& bytes);
std::string bunzip2(const std::string& packed, const std::filesystem::path& path);

}  // namespace itercl::io
