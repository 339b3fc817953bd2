# Run after a test executable is built (cmake -P, see tests/CMakeLists.txt): lists its doctest
# cases and writes a ctest file that registers each case as its own test, labelled LABEL, or
# `slow` / `bench` when its name starts so (those also get STAMPEDE_SLOW_TESTS=1, without which
# they skip themselves, and a timeout of 1500 s). The listing is cut into lines by hand, not as a CMake list: case names
# hold ';' and unbalanced '[' that a list would split or glue.
execute_process(COMMAND "${EXE}" --list-test-cases --no-skip=true OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list-test-cases failed (${rc}):\n${listing}")
endif()

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
  # doctest splits a --test-case filter at commas; a backslash keeps one in the name.
  string(REPLACE "," "\\," filter "${line}")
  string(APPEND script
         "add_test([==[${PREFIX}: ${line}]==] \"${EXE}\" [==[--test-case=${filter}]==])\n"
         "set_tests_properties([==[${PREFIX}: ${line}]==] PROPERTIES LABELS ${label} ${env})\n")
endwhile()
file(WRITE "${OUT}" "${script}")
