// The one rule of the kernel structs (KMeansKernel, SmacofKernel, PageRankKernel, PairwiseKernel,
// PairHistogramKernel): every field starts unset, and unset is the value JSON's "auto" reads to: "auto"
// for a choice among names, 0 for a count or a size (none takes 0 as a value of its own), and
// YesNo::automatic for a yes/no choice. Resolve fills the unset fields from the tuning database and the
// problem; a resolved struct has none (docs/library.md, "The kernel structs").
#pragma once

#include <string>

namespace itercl {

// A yes/no choice that the tuning database makes when it is left unset (SmacofKernel::packed, symmetric).
// JSON writes it true, false or "auto".
enum class YesNo : unsigned char { automatic, no, yes };

constexpr YesNo yes_no(bool value) { return value ? YesNo::yes : YesNo::no; }

// Whether a field is unset, whatever its kind.
inline bool unset(const std::string& choice) { return choice == "auto"; }
constexpr bool unset(int number) { return number == 0; }
constexpr bool unset(double number) { return number == 0; }
constexpr bool unset(YesNo choice) { return choice == YesNo::automatic; }

}  // namespace itercl
