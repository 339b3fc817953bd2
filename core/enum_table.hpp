#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nearest_name.hpp"
#include "parsed.hpp"

namespace stampede {

// One table per enum gives both directions, so a name can never be parsed one way and
// printed another.
template <class E, std::size_t N>
using EnumTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
std::string_view enum_name(const EnumTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

// Whether entry i names the enum's value i: such a table is read by index, and can give a
// plain array of the names in the enum's order.
template <class E, std::size_t N>
constexpr bool is_dense(const EnumTable<E, N>& table) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(table[i].first) != i) return false;
  }
  return true;
}

template <class E, std::size_t N>
constexpr std::array<std::string_view, N> enum_names(const EnumTable<E, N>& table) {
  std::array<std::string_view, N> names{};
  for (std::size_t i = 0; i < N; ++i) names[i] = table[i].second;
  return names;
}

template <class E, std::size_t N>
std::optional<E> find_enum(const EnumTable<E, N>& table, std::string_view text) {
  for (const auto& [v, name] : table) {
    if (name == text) return v;
  }
  return std::nullopt;
}

template <class E, std::size_t N>
std::string enum_choices(const EnumTable<E, N>& table) {
  std::string out;
  for (const auto& [v, name] : table) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

template <class E, std::size_t N>
Parsed<E> parse_enum(const EnumTable<E, N>& table, std::string_view text, std::string_view what) {
  for (const auto& [v, name] : table) {
    if (name == text) return Parsed<E>::ok(v);
  }
  // The nearest name first: a slip's fix is one name, not the list.
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.second);
  const auto near = did_you_mean(text, names);
  return Parsed<E>::fail("'" + std::string(text) + "' is not " + std::string(what) + near +
                         (near.empty() ? "; expected one of " : " (the choices: ") +
                         enum_choices(table) + (near.empty() ? "" : ")"));
}

}  // namespace stampede
