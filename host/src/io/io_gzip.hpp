// gzip streams (internal; read_file decompresses by content).
#pragma once

#include <filesystem>
#include <string>

namespace itercl::io {

bool is_gzip(const std::string& bytes);
// The decompressed bytes of every member; throws InputError naming `path` for a corrupt or truncated
// stream, or one that would expand beyond decompress_limit().
std::string gunzip(const std::string& packed, const std::filesystem::path& path);

}  // namespace itercl::io
