#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

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
  return Parsed<E>::fail("'" + std::string(text) + "' is not " + std::string(what) +
                         "; expected one of " + enum_choices(table));
}

}  // namespace stampede
