# Fails when an object of the runtime archive has a static initialiser
# (.init_array, .ctors, .preinit_array). The runtime is linked after the
# program's objects, so its initialisers run after the program's global
# constructors, which may already have recorded events: an initialiser
# would reset state they changed (token.cpp: the seq counter went back to 1
# and replays diverged after a global constructor). Clang's
# -Wglobal-constructors catches this at compile time; GCC has no such
# warning, so the archive itself is checked.
# Usage: cmake -DOBJDUMP=objdump -DARCHIVE=libracepredict_rt.a -P this
execute_process(COMMAND ${OBJDUMP} -h ${ARCHIVE}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} -h ${ARCHIVE} failed (${rc})")
endif()
set(member "")
set(bad "")
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+):[ ]+file format")
    set(member ${CMAKE_MATCH_1})
  elseif(line MATCHES " (\\.init_array|\\.ctors|\\.preinit_array)")
    list(APPEND bad "${member} (${CMAKE_MATCH_1})")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "the runtime has static initialisers, which run after "
    "the program's global constructors: ${bad}; initialise those globals at "
    "compile time (every member with an initialiser, constexpr constructors)")
endif()
message(STATUS "${ARCHIVE}: no static initialisers")
