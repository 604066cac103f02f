# Writes OUTPUT from TEMPLATE with the commit of SOURCE_DIR's checkout, and
# "-dirty" when tracked files differ from it. Run at every build (see
# src/CMakeLists.txt), so a binary never reports the commit of an older cmake
# run; configure_file leaves OUTPUT untouched when nothing changed, so an
# unchanged commit rebuilds nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE TESSERA_GIT_COMMIT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT TESSERA_GIT_COMMIT)
  set(TESSERA_GIT_COMMIT unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${SOURCE_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT rc EQUAL 0 OR changes)
    string(APPEND TESSERA_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
