// The JSON form of every kernel tuning struct (KMeansKernel, SmacofKernel, PairwiseKernel, ...): one
// table of named members per struct serves both directions, so a new field is named once (internal).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "itercl/error.hpp"
#include "itercl/kernel_choice.hpp"

namespace itercl {

// The names of a family's table of variants (or formats, forms), in the table's order: the choices its
// checks list and its tuner tries, typed once in the table.
template <class Entry, std::size_t N>
constexpr std::array<std::string_view, N> names_of(const Entry (&table)[N]) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
  return names;
}

template <class K>
struct KernelField {
  const char* name;
  // The four kinds of field (itercl/kernel_choice.hpp): a choice among names, a count or size, a number,
  // and a yes/no choice (SmacofKernel::packed: true, false or "auto" in JSON).
  std::variant<std::string K::*, int K::*, double K::*, YesNo K::*> member;
  // An int whose unset value 0 is spelled "auto" in JSON (PageRankKernel::hybrid_k): reads "auto" as 0,
  // else an integer >= 0 (0 too: every tuning field takes 0 for its default, as the docs promise).
  // Written back as the int.
  bool zero_is_auto = false;
};

template <class K>
nlohmann::json kernel_fields_json(const K& k, const std::vector<KernelField<K>>& fields) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : fields)
    std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(k.*member)>, YesNo>)
            j[f.name] = unset(k.*member) ? nlohmann::json("auto") : nlohmann::json(k.*member == YesNo::yes);
          else
            j[f.name] = k.*member;
        },
        f.member);
  return j;
}

// Sets the members `j` names; a value of the wrong type, or a name not in the table, is a ParamError
// naming "kernel.<name>" (and listing the known names).
template <class K>
void read_kernel_fields(const nlohmann::json& j, K& k, const std::vector<KernelField<K>>& fields) {
  if (!j.is_object()) throw ParamError("kernel", "expected an object, got " + j.dump());
  for (const auto& [key, value] : j.items()) {
    const KernelField<K>* field = nullptr;
    std::string known;
    for (const auto& f : fields) {
      if (key == f.name) field = &f;
      known += (known.empty() ? "" : ", ") + std::string(f.name);
    }
    if (!field) throw ParamError("kernel." + key, "unknown field (expected " + known + ")");
    std::visit(
        [&, &key = key, &value = value](auto member) {
          using T = std::remove_reference_t<decltype(k.*member)>;
          if constexpr (std::is_same_v<T, YesNo>) {
            if (value.is_string() && value.template get<std::string>() == "auto")
              k.*member = YesNo::automatic;
            else if (value.is_boolean())
              k.*member = yes_no(value.template get<bool>());
            else
              throw ParamError("kernel." + key, "expected true, false or \"auto\", got " + value.dump());
          } else {
            if constexpr (std::is_same_v<T, int>) {
              if (field->zero_is_auto) {
                if (value.is_string() && value.template get<std::string>() == "auto") {
                  k.*member = 0;
                  return;
                }
                if (!value.is_number_integer() || value.template get<long long>() < 0)
                  throw ParamError("kernel." + key,
                                   "expected an integer >= 1 or \"auto\" (or 0, as \"auto\"), got " + value.dump());
              }
            }
            const bool fits = std::is_same_v<T, std::string> ? value.is_string()
                              : std::is_same_v<T, double>    ? value.is_number()
                                                             : value.is_number_integer();
            if (!fits)
              throw ParamError("kernel." + key, std::string("expected ") +
                                                    (std::is_same_v<T, std::string> ? "a string"
                                                     : std::is_same_v<T, double>    ? "a number"
                                                                                    : "an integer") +
                                                    ", got " + value.dump());
            if constexpr (std::is_same_v<T, int>) {
              // Range-checked before the conversion, which wraps (4294967360 became 64). Every int field is
              // a count or a size with 0 for its default; validate() then holds it to its own range.
              constexpr auto high = std::numeric_limits<int>::max();
              const bool in_range = value.is_number_unsigned()
                                        ? value.template get<std::uint64_t>() <= static_cast<std::uint64_t>(high)
                                        : value.template get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                              value.template get<std::int64_t>() <= high;
              if (!in_range)
                throw ParamError("kernel." + key, value.dump() + " is out of range: expected an integer from 0 to " +
                                                      std::to_string(high));
            }
            k.*member = value.template get<T>();
          }
        },
        field->member);
  }
}

// Whether the field of JSON name `name` is unset in `k` (itercl/kernel_choice.hpp); a name not in the table
// is a ParamError (a mistake in the caller's list).
template <class K>
bool field_unset(const K& k, const std::vector<KernelField<K>>& fields, std::string_view name) {
  for (const auto& f : fields)
    if (f.name == name) return std::visit([&](auto member) { return unset(k.*member); }, f.member);
  throw ParamError(std::string(name), "no such kernel field");
}

// A family's tuning database entry (tuned_kernel's check): it must set every field of `needs` (resolve
// takes them from it), and leave every field of `leaves` unset, since they belong to the problem (`why`).
// ParamError(family, "needs a, b and c") or (family, "a and b <why>").
template <class K>
void check_entry(const K& k, const std::vector<KernelField<K>>& fields, std::string_view family,
                 std::initializer_list<std::string_view> needs, std::initializer_list<std::string_view> leaves = {},
                 std::string_view why = {}) {
  auto listed = [](std::initializer_list<std::string_view> names) {
    std::string out;
    std::size_t i = 0;
    for (const std::string_view name : names)
      out += (i++ == 0 ? "" : i == names.size() ? " and " : ", ") + std::string(name);
    return out;
  };
  for (const std::string_view name : needs)
    if (field_unset(k, fields, name)) throw ParamError(std::string(family), "needs " + listed(needs));
  for (const std::string_view name : leaves)
    if (!field_unset(k, fields, name)) throw ParamError(std::string(family), listed(leaves) + " " + std::string(why));
}

}  // namespace itercl
