// A small ustar reader: enough for data sets shipped as a .tar.gz holding one file (SNAP's
// web-NotreDame). Format: 512-byte headers, each followed by its member's data padded to 512 bytes,
// ended by zero blocks (POSIX.1-1988 ustar; GNU tar writes the same layout).
#include "io/io_tar.hpp"

#include <cstdint>
#include <vector>

#include "itercl/error.hpp"

namespace itercl::io {

constexpr std::size_t kBlock = 512;

// Where the header's fields are, and their widths (POSIX.1-1988 ustar, the pax specification's "ustar
// Interchange Format").
constexpr std::size_t kNameAt = 0, kNameWidth = 100;
constexpr std::size_t kSizeAt = 124, kSizeWidth = 12;
constexpr std::size_t kChecksumAt = 148, kChecksumWidth = 8;
constexpr std::size_t kTypeAt = 156;
constexpr std::size_t kMagicAt = 257;
constexpr std::size_t kPrefixAt = 345, kPrefixWidth = 155;

// A NUL- or space-terminated field.
std::string field(const char* p, std::size_t size) {
  std::size_t n = 0;
  while (n < size && p[n] != '\0') ++n;
  return std::string(p, n);
}

// An octal number field; GNU tar writes sizes of 8 GiB and more in base 256 (high bit of the first
// byte set). False when the field is neither.
bool number(const char* p, std::size_t size, std::uint64_t& value) {
  value = 0;
  if (static_cast<unsigned char>(p[0]) & 0x80) {
    for (std::size_t i = 1; i < size; ++i) {
      if (value >> 56) return false;
      value = value << 8 | static_cast<unsigned char>(p[i]);
    }
    return true;
  }
  std::size_t i = 0;
  while (i < size && p[i] == ' ') ++i;
  bool any = false;
  for (; i < size && p[i] >= '0' && p[i] <= '7'; ++i, any = true) {
    if (value >> 60) return false;
    value = value * 8 + static_cast<std::uint64_t>(p[i] - '0');
  }
  for (; i < size; ++i)
    if (p[i] != ' ' && p[i] != '\0') return false;
  return any;
}

// The checksum is the byte sum of the header with its own 8-byte field read as spaces.
bool checksum_ok(const char* h) {
  std::uint64_t stored = 0;
  if (!number(h + kChecksumAt, kChecksumWidth, stored)) return false;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i)
    sum += (i >= kChecksumAt && i < kChecksumAt + kChecksumWidth) ? static_cast<unsigned char>(' ')
                                                                  : static_cast<unsigned char>(h[i]);
  return sum == stored;
}

bool all_zero(const char* p) {
  for (std::size_t i = 0; i < kBlock; ++i)
    if (p[i] != '\0') return false;
  return true;
}

bool is_tar(const std::string& bytes) { return bytes.size() >= kBlock && bytes.compare(kMagicAt, 5, "ustar") == 0; }

std::string untar_single_file(const std::string& bytes, const std::filesystem::path& path) {
  const std::string name = path.string();
  struct Member {
    std::string name;
    std::size_t offset, size;
  };
  std::vector<Member> files;
  std::size_t pos = 0;
  while (pos + kBlock <= bytes.size()) {
    const char* h = bytes.data() + pos;
    if (all_zero(h)) break;  // the end-of-archive blocks
    std::uint64_t size = 0;
    if (!checksum_ok(h) || !number(h + kSizeAt, kSizeWidth, size))
      throw InputError(name + ": corrupt tar header at byte " + std::to_string(pos));
    const std::string prefix = field(h + kPrefixAt, kPrefixWidth), base = field(h + kNameAt, kNameWidth);
    const std::string member = prefix.empty() ? base : prefix + "/" + base;
    const char type = h[kTypeAt];
    pos += kBlock;
    if (size > bytes.size() - pos)
      throw InputError(name + ": tar member '" + member + "' is cut short (" + std::to_string(size) +
                       " bytes announced, " + std::to_string(bytes.size() - pos) + " present)");
    const std::string leaf = member.substr(member.rfind('/') == std::string::npos ? 0 : member.rfind('/') + 1);
    if ((type == '0' || type == '\0') && leaf.rfind("._", 0) != 0) files.push_back({member, pos, size});
    pos += (size + kBlock - 1) / kBlock * kBlock;
  }
  if (files.size() != 1) {
    std::string list;
    for (const Member& f : files) list += (list.empty() ? "" : ", ") + f.name;
    throw InputError(name + ": a tar archive holding " + std::to_string(files.size()) + " files" +
                     (list.empty() ? "" : " (" + list + ")") + "; itercl reads archives of exactly one file");
  }
  return bytes.substr(files[0].offset, files[0].size);
}

}  // namespace itercl::io
