#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace stampede {

// The results' typed sections write a value they may not have as null, and read a null or
// missing field as none.

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace stampede
