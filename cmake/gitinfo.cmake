# Run at every build (cmake -P): writes the git sha and dirty flag into OUT, touching it only
# when they change, so a result file names the exact commit its binary came from.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR sha STREQUAL "")
  set(sha "unknown")
  set(dirty "true")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status STREQUAL "")
    set(dirty "false")
  else()
    set(dirty "true")
  endif()
endif()
set(content "// Generated at build time by cmake/gitinfo.cmake.\nnamespace parcomp::bench {\nextern const char* const kGitSha;\nextern const bool kGitDirty;\nconst char* const kGitSha = \"${sha}\";\nconst bool kGitDirty = ${dirty};\n}\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
