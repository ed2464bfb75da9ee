// tar archives holding one data file (internal; read_file unpacks them after gunzip).
#pragma once

#include <filesystem>
#include <string>

namespace itercl::io {

// True when the bytes start with a POSIX ustar (or GNU tar) header: "ustar" at offset 257.
bool is_tar(const std::string& bytes);

// The contents of the archive's one regular file. Directories, links and the metadata entries of
// pax and GNU tar are skipped; macOS's "._" resource-fork companions too. Throws InputError naming
// `path` for a corrupt header, a truncated member, or an archive with no file or several.
std::string untar_single_file(const std::string& bytes, const std::filesystem::path& path);

}  // namespace itercl::io
