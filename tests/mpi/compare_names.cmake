# mpi_backend_names_agree: the MPI backends registered by mpi/backends.cpp (WITH: a build with the
# MPI part) must be exactly the names experiments/wiring/make_registry.cpp lists as unavailable in a build
# without it (WITHOUT), so that a suite naming one loads everywhere and its records say why.
#   cmake -DWITH=... -DWITHOUT=... -P compare_names.cmake
foreach(side WITH WITHOUT)
  execute_process(COMMAND "${${side}}" mpi OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${${side}} mpi exited with ${_rc}: ${_err}")
  endif()
  string(STRIP "${_out}" _out)
  string(REPLACE "\n" ";" _names "${_out}")
  list(SORT _names)
  set(_${side} "${_names}")
endforeach()
if(NOT _WITH)
  message(FATAL_ERROR "the build with the MPI part registers no backend of kind mpi")
endif()
set(_only_with "${_WITH}")
list(REMOVE_ITEM _only_with ${_WITHOUT})
set(_only_without "${_WITHOUT}")
list(REMOVE_ITEM _only_without ${_WITH})
if(_only_with OR _only_without OR NOT _WITH STREQUAL _WITHOUT)
  message(FATAL_ERROR "the MPI backend names disagree:\n"
                      "  registered by mpi/backends.cpp only: ${_only_with}\n"
                      "  listed by experiments/wiring/make_registry.cpp (no MPI part) only: ${_only_without}\n"
                      "  (sorted: ${_WITH} against ${_WITHOUT})")
endif()
message(STATUS "both list: ${_WITH}")
