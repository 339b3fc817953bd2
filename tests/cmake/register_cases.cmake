# Run after a test executable is built (cmake -P, see tests/CMakeLists.txt): lists its doctest
# cases and writes a ctest file that registers each case as its own test, labelled LABEL, or
# `slow` / `bench` when its name starts so (those also get STAMPEDE_SLOW_TESTS=1, without which
# they skip themselves, and a timeout of 1500 s); the cases of the test suite "alone" run with
# no other case beside them; the cases of the test suite "browser" are also labelled `browser`;
# the cases of the test suite "long" start first.
# The listing is cut into lines by hand, not as a CMake list: case names hold ';' and
# unbalanced '[' that a list would split or glue.
# The names of the cases doctest lists with these arguments (a test suite's: OUT between
# newlines, for a search of "\nNAME\n"); stops the build when the listing fails.
function(list_cases out)
  execute_process(COMMAND "${EXE}" --list-test-cases --no-skip=true ${ARGN}
                  OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} --list-test-cases ${ARGN} failed (${rc}):\n${listed}")
  endif()
  set(${out} "${listed}" PARENT_SCOPE)
endfunction()

list_cases(listing)
# The cases of doctest's test suite "alone" time real clients' real sleeps (curl's Retry-After,
# a live herd's peak second): beside a dozen other cases on two cores their premise of a
# prompt start fails. ctest runs each with nothing beside it (RUN_SERIAL).
list_cases(alone --test-suite=alone)
set(alone "\n${alone}\n")
# The cases of the test suite "browser" drive Chromium or Firefox: the sanitizer trees leave
# them out (the Makefile's SANITIZER_SKIP), since the browser's start and drawing are most of
# their time and none of it is our code.
list_cases(browser --test-suite=browser)
set(browser "\n${browser}\n")
# The cases of the test suite "long" take the longest in the sanitizer trees (tens of seconds:
# hundreds of processes, each started under ASan or TSan). A fresh clone has no ctest cost
# data, so ctest starts the cases in the order they are listed; one of these started last
# would run on alone past every other. A cost makes ctest start them first. Only cases
# without a timed premise (a live run matched to its simulation, a real client's sleeps) go
# in it: they start four at a time, beside one another.
list_cases(long --test-suite=long)
set(long "\n${long}\n")

set(script "")
set(rest "${listing}")
while(NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" end)
  if(end EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${end} line)
    math(EXPR end "${end} + 1")
    string(SUBSTRING "${rest}" ${end} -1 rest)
  endif()
  if(line STREQUAL "" OR line MATCHES "^(\\[doctest\\]|====)")
    continue()
  endif()
  set(label ${LABEL})
  set(env "")
  if(line MATCHES "^(slow|bench): ")
    set(label ${CMAKE_MATCH_1})
    # The soak runs ten minutes: past make's default --timeout of 600 s, inside 1500.
    set(env ENVIRONMENT STAMPEDE_SLOW_TESTS=1 TIMEOUT 1500)
  endif()
  string(FIND "${browser}" "\n${line}\n" browser_at)
  if(NOT browser_at EQUAL -1)
    list(APPEND label browser)
  endif()
  string(FIND "${long}" "\n${line}\n" long_at)
  if(NOT long_at EQUAL -1)
    list(APPEND env COST 1000)
  endif()
  string(FIND "${alone}" "\n${line}\n" alone_at)
  if(NOT alone_at EQUAL -1)
    list(APPEND env RUN_SERIAL TRUE)
  endif()
  # doctest splits a --test-case filter at commas; a backslash keeps one in the name.
  string(REPLACE "," "\\," filter "${line}")
  string(APPEND script
         "add_test([==[${PREFIX}: ${line}]==] \"${EXE}\" [==[--test-case=${filter}]==])\n"
         "set_tests_properties([==[${PREFIX}: ${line}]==] PROPERTIES LABELS \"${label}\" ${env})\n")
endwhile()
file(WRITE "${OUT}" "${script}")
