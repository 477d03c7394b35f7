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

# gaea_add_mpi_run(<name> TARGET <executable target> [ARGS <arg>...] NRANKS <n>...
#                  [TIMEOUT <s>] [TRANSPORTS sm tcp] [MODES auto ...] [ENV VAR=value ...]
#                  [EXPECT_FAILURE <regex>] [FIXTURES_SETUP <f>] [FIXTURES_REQUIRED <f>]
#                  [SINGLETON])
#
# Runs an application (not a Catch2 test) under mpirun, one ctest test per (ranks, transport,
# progress mode), named and labelled like gaea_add_mpi_test's; MODES defaults to auto only.
# The test passes when the program exits 0. With EXPECT_FAILURE it passes only when the
# program exits non-zero *and* its output matches <regex> (expect_failure.sh), so a crash or a
# failure for another reason does not count. SINGLETON runs the program without mpirun (one
# rank, an MPI singleton): for quick argument checks, as mpirun adds seconds to a failing run.
function(gaea_add_mpi_run name)
  cmake_parse_arguments(T "SINGLETON"
                        "TARGET;TIMEOUT;EXPECT_FAILURE;FIXTURES_SETUP;FIXTURES_REQUIRED"
                        "ARGS;NRANKS;TRANSPORTS;MODES;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  if(NOT T_TRANSPORTS)
    set(T_TRANSPORTS sm tcp)
  endif()
  if(NOT DEFINED T_MODES)  # not if(NOT ...): "off" is a mode and a false constant
    set(T_MODES auto)
  endif()
  set(wrapper "")
  if(DEFINED T_EXPECT_FAILURE)
    set(wrapper ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_failure.sh "${T_EXPECT_FAILURE}")
  endif()
  if(T_SINGLETON)
    set(T_NRANKS 1)
  endif()
  foreach(np IN LISTS T_NRANKS)
    foreach(tls IN LISTS T_TRANSPORTS)
      foreach(mode IN LISTS T_MODES)
        set(test ${name}.np${np}.${tls}.${mode})
        set(launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS})
        if(T_SINGLETON)
          set(test ${name}.singleton.${tls}.${mode})
          set(launcher "")
        endif()
        add_test(NAME ${test}
                 COMMAND ${wrapper} ${launcher} $<TARGET_FILE:${T_TARGET}> ${MPIEXEC_POSTFLAGS}
                         ${T_ARGS})
        set_tests_properties(${test} PROPERTIES
          TIMEOUT ${T_TIMEOUT}
          PROCESSORS ${np}
          LABELS "mpi;${tls};${mode};${T_LABELS}"
          ENVIRONMENT "UCX_TLS=${tls};GAEA_PROGRESS=${mode};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${T_ENV}")
        if(T_FIXTURES_SETUP)
          set_tests_properties(${test} PROPERTIES FIXTURES_SETUP ${T_FIXTURES_SETUP})
        endif()
        if(T_FIXTURES_REQUIRED)
          set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED ${T_FIXTURES_REQUIRED})
        endif()
      endforeach()
    endforeach()
  endforeach()
endfunction()
