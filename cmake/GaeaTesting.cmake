# gaea_add_mpi_test(<name> SOURCES <src>... NRANKS <n>... [TIMEOUT <s>]
#                   [TRANSPORTS sm tcp] [MODES auto spin adaptive interrupt off] [ENV VAR=value ...]
#                   [PLAIN_MAIN])
#
# Builds one Catch2 executable and registers one ctest test per (ranks, transport, progress mode):
#   <name>.np<N>.<transport>.<mode>
# The helper, not the user, adds what mpirun needs here: running as root and oversubscription
# (through Open MPI's environment variables), UCX_TLS and GAEA_PROGRESS. Every test gets a timeout
# so that a rank that fails while others wait in a collective cannot hang the suite.
function(gaea_add_mpi_test name)
  cmake_parse_arguments(T "PLAIN_MAIN" "TIMEOUT" "SOURCES;NRANKS;TRANSPORTS;MODES;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT T_TRANSPORTS)
    set(T_TRANSPORTS sm tcp)
  endif()
  if(NOT T_MODES)
    set(T_MODES auto spin adaptive interrupt off)
  endif()
  add_executable(${name} ${T_SOURCES})
    if(T_PLAIN_MAIN)  # the test manages the runtime itself
    target_link_libraries(${name} PRIVATE gaea_catch_main gaea::gaea)
  else()            # a Catch2 session inside one gaea::runtime
    target_link_libraries(${name} PRIVATE gaea_test_main gaea::gaea)
  endif()
  gaea_set_warnings(${name})
  foreach(np IN LISTS T_NRANKS)
    foreach(tls IN LISTS T_TRANSPORTS)
      foreach(mode IN LISTS T_MODES)
        set(test ${name}.np${np}.${tls}.${mode})
        add_test(NAME ${test}
                 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                         $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
        set_tests_properties(${test} PROPERTIES
          TIMEOUT ${T_TIMEOUT}
          PROCESSORS ${np}
          LABELS "mpi;${tls};${mode};${T_LABELS}"
          ENVIRONMENT "UCX_TLS=${tls};GAEA_PROGRESS=${mode};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${T_ENV}")
      endforeach()
    endforeach()
  endforeach()
endfunction()
