#pragma once

#include <optional>
#include <string>
#include <utility>

namespace stampede {

// What every parse_* returns: a whole value or an error message, never half a value.
template <class T>
class Parsed {
 public:
  static Parsed ok(T value) { return Parsed(std::move(value), {}); }
  static Parsed fail(std::string error) { return Parsed(std::nullopt, std::move(error)); }

  explicit operator bool() const { return value_.has_value(); }
  const T& value() const { return *value_; }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  // The value to move out: what cannot be copied (a process group) is handed on.
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }
  const std::string& error() const { return error_; }

 private:
  Parsed(std::optional<T> value, std::string error)
      : value_(std::move(value)), error_(std::move(error)) {}
  std::optional<T> value_;
  std::string error_;
};

}  // namespace stampede
