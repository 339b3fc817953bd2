#include "model/llm_request.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "model/dialect.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;

// How OpenAI names a JSON value's type in its invalid_type messages.
const char* openai_kind(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a decimal";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    default:
      return "a string";
  }
}

// One problem with one field, in the words each API uses for it.
enum class Problem {
  kNotJson,
  kNotObject,
  kNotBoolean,
  kNotInteger,
  kNotString,
  kTooLong,
  kMissing,
  kNegative
};

std::string anthropic_error(Problem p, const std::string& field) {
  std::string message;
  switch (p) {
    case Problem::kNotJson:
      message = "There was an error parsing the body of your request: it is not valid JSON";
      break;
    case Problem::kNotObject:
      message = (field.empty() ? "" : field + ": ") + "Input should be a valid dictionary";
      break;
    case Problem::kNotBoolean:
      message = field + ": Input should be a valid boolean";
      break;
    case Problem::kNotInteger:
      message = field + ": Input should be a valid integer";
      break;
    case Problem::kNotString:
      message = field + ": Input should be a valid string";
      break;
    case Problem::kTooLong:
      message =
          field + ": String should have at most " + std::to_string(kMaxModelName) + " characters";
      break;
    case Problem::kMissing:
      message = field + ": Field required";
      break;
    case Problem::kNegative:
      message = field + ": Input should be greater than or equal to 0";
      break;
  }
  return anthropic_error_body("invalid_request_error", message);
}

std::string openai_problem(Problem p, const std::string& field, const json& v) {
  switch (p) {
    case Problem::kNotJson:
      return openai_error_body(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
          "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
          "sent was not valid JSON.)",
          "invalid_request_error", std::nullopt, std::nullopt);
    case Problem::kNotObject:
      return openai_error_body(
          "Invalid type for " + (field.empty() ? std::string("the body") : "'" + field + "'") +
              ": expected an object, but got " + openai_kind(v) + " instead.",
          "invalid_request_error", field.empty() ? std::nullopt : std::optional<std::string>(field),
          "invalid_type");
    case Problem::kNotBoolean:
    case Problem::kNotInteger:
    case Problem::kNotString:
      return openai_error_body("Invalid type for '" + field + "': expected " +
                                   (p == Problem::kNotBoolean   ? "a boolean"
                                    : p == Problem::kNotInteger ? "an integer"
                                                                : "a string") +
                                   ", but got " + openai_kind(v) + " instead.",
                               "invalid_request_error", field, "invalid_type");
    case Problem::kTooLong:
      return openai_error_body(
          "Invalid '" + field + "': string too long. Expected a string with maximum length " +
              std::to_string(kMaxModelName) + ", but got a string with length " +
              std::to_string(v.get_ref<const std::string&>().size()) + " instead.",
          "invalid_request_error", field, "string_above_max_length");
    case Problem::kMissing:
      return openai_error_body("Missing required parameter: '" + field + "'.",
                               "invalid_request_error", field, "missing_required_parameter");
    case Problem::kNegative:
      return openai_error_body("Invalid '" + field +
                                   "': integer below minimum value. Expected a value >= 0, but "
                                   "got " +
                                   v.dump() + " instead.",
                               "invalid_request_error", field, "integer_below_min_value");
  }
  return {};
}

// The bytes of the text in a message's content: a string, or an array of blocks (anthropic's
// content blocks, openai's content parts) whose text blocks count.
std::uint64_t text_bytes(const json& content) {
  if (content.is_string()) return content.get_ref<const std::string&>().size();
  if (!content.is_array()) return 0;
  std::uint64_t n = 0;
  for (const json& block : content) {
    if (!block.is_object()) continue;
    const auto text = block.find("text");
    if (text != block.end() && text->is_string()) n += text->get_ref<const std::string&>().size();
  }
  return n;
}

std::int64_t estimate_input_tokens(const json& body) {
  std::uint64_t bytes = 0;
  if (const auto system = body.find("system"); system != body.end()) bytes += text_bytes(*system);
  if (const auto messages = body.find("messages"); messages != body.end() && messages->is_array()) {
    for (const json& m : *messages)
      if (m.is_object() && m.contains("content")) bytes += text_bytes(m.at("content"));
  }
  return static_cast<std::int64_t>((bytes + 3) / 4);
}

struct Reader {
  Dialect dialect;
  ReadLlmRequest out;

  bool fail(Problem p, const std::string& field = {}, const json& v = nullptr) {
    out.error_body =
        dialect == Dialect::kOpenAi ? openai_problem(p, field, v) : anthropic_error(p, field);
    return false;
  }

  // An optional boolean: absent or null reads as false, as both APIs take it.
  bool boolean(const json& parent, const char* key, const std::string& field, bool& to) {
    const auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return true;
    if (!it->is_boolean()) return fail(Problem::kNotBoolean, field, *it);
    to = it->get<bool>();
    return true;
  }

  // Optional here (provider.models_only refuses a request without one, as a model not listed).
  bool model(const json& body, std::string& to) {
    const auto it = body.find("model");
    if (it == body.end() || it->is_null()) return true;
    if (!it->is_string()) return fail(Problem::kNotString, "model", *it);
    if (it->get_ref<const std::string&>().size() > kMaxModelName)
      return fail(Problem::kTooLong, "model", *it);
    to = it->get<std::string>();
    return true;
  }

  bool max_tokens(const json& body, std::int64_t& to) {
    // OpenAI's newer name first; its older one is still read.
    const char* key = "max_tokens";
    if (dialect == Dialect::kOpenAi && body.contains("max_completion_tokens"))
      key = "max_completion_tokens";
    const auto it = body.find(key);
    if (it == body.end() || it->is_null())
      return fail(Problem::kMissing,
                  dialect == Dialect::kOpenAi ? "max_completion_tokens" : "max_tokens");
    if (it->is_number_unsigned()) {
      to = static_cast<std::int64_t>(std::min<std::uint64_t>(
          it->get<std::uint64_t>(),
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
      return true;
    }
    if (!it->is_number_integer()) return fail(Problem::kNotInteger, key, *it);
    if (it->get<std::int64_t>() < 0) return fail(Problem::kNegative, key, *it);
    to = it->get<std::int64_t>();
    return true;
  }

  bool read(std::string_view text) {
    // Not parse_strict_json: the APIs take a repeated key (the last one), and so does this.
    const json body = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) return fail(Problem::kNotJson);
    if (!body.is_object()) return fail(Problem::kNotObject, {}, body);
    LlmRequest r;
    if (!model(body, r.model) || !boolean(body, "stream", "stream", r.stream) ||
        !max_tokens(body, r.max_tokens))
      return false;
    if (dialect == Dialect::kOpenAi) {
      const auto options = body.find("stream_options");
      if (options != body.end() && !options->is_null()) {
        if (!options->is_object()) return fail(Problem::kNotObject, "stream_options", *options);
        if (!boolean(*options, "include_usage", "stream_options.include_usage", r.include_usage))
          return false;
      }
    }
    r.input_tokens = estimate_input_tokens(body);
    out.request = r;
    return true;
  }
};

}  // namespace

ReadLlmRequest read_llm_request(Dialect dialect, std::string_view body) {
  Reader reader{dialect, {}};
  reader.read(body);
  return std::move(reader.out);
}

std::string llm_body_too_long(Dialect dialect, std::size_t limit) {
  const std::string message =
      "Request exceeds the maximum allowed number of bytes (fakeprovider "
      "reads " +
      std::to_string(limit) + ").";
  return dialect == Dialect::kOpenAi
             ? openai_error_body(message, "invalid_request_error", std::nullopt, std::nullopt)
             : anthropic_error_body("request_too_large", message);
}

}  // namespace stampede
