// bzip2 streams, for compressed data files (the LAMMPS sample of the shared datasets is one).
#include "io/io_bz2.hpp"

#include <bzlib.h>

#include <algorithm>

#include "io/io_limits.hpp"
#include "itercl/error.hpp"

namespace itercl::io {

// Input handed to bzip2 at a time: its avail_in is an unsigned int, so a larger file goes in slices of
// 1 GiB, well under 4 GiB.
constexpr std::size_t kInputSlice = std::size_t{1} << 30;

bool is_bzip2(const std::string& bytes) {
  return bytes.size() >= 4 && bytes.compare(0, 3, "BZh") == 0 && bytes[3] >= '1' && bytes[3] <= '9';
}

std::string bunzip2(const std::string& packed, const std::filesystem::path& path) {
  std::string out;
  const std::uint64_t limit = decompress_limit();
  std::size_t fed = 0;
  char buffer[1 << 16];
  while (fed < packed.size()) {  // concatenated streams (pbzip2's output) decode one after another
    bz_stream z{};
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) throw RuntimeError("bzip2: BZ2_bzDecompressInit failed");
    int rc = BZ_OK;
    while (rc == BZ_OK) {
      const std::size_t next = std::min(packed.size() - fed, kInputSlice);
      z.next_in = const_cast<char*>(packed.data() + fed);
      z.avail_in = static_cast<unsigned>(next);
      z.next_out = buffer;
      z.avail_out = sizeof buffer;
      rc = BZ2_bzDecompress(&z);
      fed += next - z.avail_in;
      if (out.size() + (sizeof buffer - z.avail_out) > limit) {
        BZ2_bzDecompressEnd(&z);
        decompress_overflow(path, "bzip2", limit);
      }
      out.append(buffer, sizeof buffer - z.avail_out);
      if (rc == BZ_OK && z.avail_in == 0 && fed == packed.size() && z.avail_out != 0) rc = BZ_UNEXPECTED_EOF;
    }
    BZ2_bzDecompressEnd(&z);
    if (rc != BZ_STREAM_END)
      throw InputError(path.string() + ": not a valid bzip2 stream (" +
                       (rc == BZ_UNEXPECTED_EOF ? "unexpected end of compressed data" : "corrupt data") + ")");
  }
  return out;
}

}  // namespace itercl::io
