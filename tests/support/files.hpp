#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// Reading and writing the files the binaries under test take and make.
namespace support {

// The whole file; empty when it is missing.
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
// Each non-empty line parsed as JSON; a missing file has none.
std::vector<nlohmann::json> read_json_lines(const std::string& path);

// The non-empty lines of a text (stderr, a log).
std::vector<std::string> lines(const std::string& text);
bool contains(const std::string& text, const std::string& part);

// CSV rows (RFC 4180 quoting), the header row included.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace support
