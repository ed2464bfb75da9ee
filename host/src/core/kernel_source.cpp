#include "core/kernel_source.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/embedded_files.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace core {

std::string_view embedded(const std::string& file) {
  const auto& files = detail::embedded_kernels();
  auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == file; });
  if (it == files.end()) throw RuntimeError("kernel file '" + file + "' is not embedded in this build of itercl");
  return it->text;
}

// Expands includes depth-first; a file included twice is expanded once (an include guard for free).
// #line directives keep the compiler's messages pointing at the right file and line.
void expand(const std::string& file, std::set<std::string>& seen, std::ostringstream& out) {
  if (!seen.insert(file).second) return;
  std::istringstream in{std::string(embedded(file))};
  std::string line;
  out << "#line 1 \"" << file << "\"\n";
  for (int number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 9, "#include ") == 0) {
      const auto open = line.find('"'), close = line.rfind('"');
      if (open != std::string::npos && close > open) {
        expand(line.substr(open + 1, close - open - 1), seen, out);
        out << "#line " << number + 1 << " \"" << file << "\"\n";
        continue;
      }
    }
    out << line << '\n';
  }
}

std::string kernel_source(const std::string& file) {
  std::set<std::string> seen;
  std::ostringstream out;
  expand(file, seen, out);
  return out.str();
}

}  // namespace core

}  // namespace itercl
