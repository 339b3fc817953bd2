#include "last_resort.hpp"

#include <iostream>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "exit_codes.hpp"

namespace stampede {
namespace {

int say(std::string_view program, const std::string& message) {
  std::cerr << program << ": " << message << "\n";
  return kExitUnreachable;
}

}  // namespace

int run_or_say(std::string_view program, std::string_view memory_fix,
               const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return say(program,
               "out of memory: the run needs more than this machine or its memory "
               "limit (ulimit -v, a container's) gives; " +
                   std::string(memory_fix));
  } catch (const nlohmann::json::exception&) {
    return say(program,
               "stopped: a JSON document it read had a field missing or of another "
               "type than expected; this is a bug, please report it with the command "
               "line");
  } catch (const std::exception&) {
    return say(program,
               "stopped on an error it did not expect; this is a bug, please report "
               "it with the command line");
  }
}

}  // namespace stampede
