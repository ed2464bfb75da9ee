// The commit the library was built from (cmake/commit.cmake), which every results file names.
#pragma once

namespace itercl::core {

// The git commit's hash, with "-dirty" when tracked files differed from it; "unknown" outside a git
// checkout (a source archive).
const char* build_commit();

}  // namespace itercl::core
