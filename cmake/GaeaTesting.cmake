# gaea_add_mpi_test(<name> SOURCES <src>... NRANKS <n>... [TIMEOUT <s>]
#                   [TRANSPORTS sm tcp] [MODES auto spin adaptive interrupt off] [ENV VAR=value ...]
#                   [PLAIN_MAIN] [MULTINODE [MULTINODE_MODES m...]])
#
# Builds one Catch2 executable and registers one ctest test per (ranks, transport, progress mode):
#   <name>.np<N>.<transport>.<mode>
# The helper, not the user, adds what mpirun needs here: running as root and oversubscription
# (through Open MPI's environment variables), UCX_TLS and GAEA_PROGRESS. Every test gets a timeout
# so that a rank that fails while others wait in a collective cannot hang the suite.
# MULTINODE also registers it across emulated hosts (gaea_add_multinode, under MULTINODE_MODES,
# default auto).
# The environment of every test that runs mpirun (one home): running as root and oversubscribing
# through Open MPI's variables, and the hang watchdog, so that a test that would hang fails with
# what it waited for (generous: well above any single wait of the suite, below the test timeouts
# of the long tests).
set(GAEA_TEST_ENV
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    GAEA_HANG_TIMEOUT=100)

# gaea_test_environment(<out> [TLS <sm|tcp>] [MODE <progress mode>] [ENV VAR=value...]): the
# ENVIRONMENT property of a test that runs mpirun — GAEA_TEST_ENV, the transport, the progress
# mode and the test's own variables (later entries win) — the one way every helper builds it.
function(gaea_test_environment out)
  cmake_parse_arguments(PARSE_ARGV 1 E "" "TLS;MODE" "ENV")
  set(env ${GAEA_TEST_ENV})
  if(E_TLS)
    list(APPEND env UCX_TLS=${E_TLS})
  endif()
  if(E_MODE)
    list(APPEND env GAEA_PROGRESS=${E_MODE})
  endif()
  list(APPEND env ${E_ENV} ${E_UNPARSED_ARGUMENTS})
  set(${out} "${env}" PARENT_SCOPE)
endfunction()

function(gaea_add_mpi_test name)
  cmake_parse_arguments(T "PLAIN_MAIN;MULTINODE" "TIMEOUT"
                        "SOURCES;NRANKS;TRANSPORTS;MODES;ENV;LABELS;MULTINODE_MODES" ${ARGN})
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
        gaea_test_environment(_env TLS ${tls} MODE ${mode} ENV ${T_ENV})
        set_tests_properties(${test} PROPERTIES
          TIMEOUT ${T_TIMEOUT}
          PROCESSORS ${np}
          LABELS "mpi;${tls};${mode};${T_LABELS}"
          ENVIRONMENT "${_env}")
      endforeach()
    endforeach()
  endforeach()
  if(T_MULTINODE)
    if(NOT T_MULTINODE_MODES)
      set(T_MULTINODE_MODES auto)
    endif()
    gaea_add_multinode(${name} COMMAND $<TARGET_FILE:${name}> TIMEOUT ${T_TIMEOUT}
                       MODES ${T_MULTINODE_MODES} ENV ${T_ENV})
  endif()
endfunction()

# gaea_add_mpi_run(<name> TARGET <executable target> [ARGS <arg>...] NRANKS <n>...
#                  [TIMEOUT <s>] [TRANSPORTS sm tcp] [MODES auto ...] [ENV VAR=value ...]
#                  [EXPECT_FAILURE <regex>] [FIXTURES_SETUP <f>] [FIXTURES_REQUIRED <f>]
#                  [SINGLETON] [MULTINODE])
#
# Runs an application (not a Catch2 test) under mpirun, one ctest test per (ranks, transport,
# progress mode), named and labelled like gaea_add_mpi_test's; MODES defaults to auto only.
# The test passes when the program exits 0. With EXPECT_FAILURE it passes only when the
# program exits non-zero *and* its output matches <regex> (expect_failure.sh), so a crash or a
# failure for another reason does not count. SINGLETON runs the program without mpirun (one
# rank, an MPI singleton): for quick argument checks, as mpirun adds seconds to a failing run.
# MULTINODE also registers it across emulated hosts (gaea_add_multinode, modes MODES).
function(gaea_add_mpi_run name)
  cmake_parse_arguments(T "SINGLETON;MULTINODE"
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
        gaea_test_environment(_env TLS ${tls} MODE ${mode} ENV ${T_ENV})
        set_tests_properties(${test} PROPERTIES
          TIMEOUT ${T_TIMEOUT}
          PROCESSORS ${np}
          LABELS "mpi;${tls};${mode};${T_LABELS}"
          ENVIRONMENT "${_env}")
        if(T_FIXTURES_SETUP)
          set_tests_properties(${test} PROPERTIES FIXTURES_SETUP ${T_FIXTURES_SETUP})
        endif()
        if(T_FIXTURES_REQUIRED)
          set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED ${T_FIXTURES_REQUIRED})
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(T_MULTINODE AND NOT T_SINGLETON)
    gaea_add_multinode(${name} COMMAND $<TARGET_FILE:${T_TARGET}> ${MPIEXEC_POSTFLAGS} ${T_ARGS}
                       TIMEOUT ${T_TIMEOUT} MODES ${T_MODES} ENV ${T_ENV} WRAPPER ${wrapper}
                       FIXTURES_REQUIRED ${T_FIXTURES_REQUIRED})
  endif()
endfunction()

# --- Tests across emulated hosts (scripts/cluster.sh), label "multinode" ---------------------
# A layout is <hosts>x<ranks per host>. 2x2 runs on UCX's default transports (shared memory
# inside a host, tcp between); 3x1 on links shaped like the bgq preset. Each layout is a ctest
# fixture that brings its own named cluster up and down, so a developer's cluster is untouched.
# Without root/CAP_NET_ADMIN the fixture and its tests report as skipped (exit 77).
set(GAEA_CLUSTER_LAYOUTS 2x2 3x1)
set(GAEA_CLUSTER_UP_2x2 2 --ppn 2)
set(GAEA_CLUSTER_UP_3x1 3 --ppn 1 --preset bgq)
set(GAEA_CLUSTER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/cluster.sh)

# The cluster of one layout for this build tree: "gaeat<layout digits><3 hex digits of the build
# directory's hash>", so that test runs of several trees at once (worktrees, a CI clone) never
# take down each other's hosts (cluster.sh allows 10 characters).
function(_gaea_cluster_name_of tag out)
  string(MD5 tree "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${tree}" 0 3 tree)
  set(${out} gaea${tag}${tree} PARENT_SCOPE)
endfunction()
function(_gaea_cluster_name layout out)
  string(REPLACE "x" "" digits ${layout})
  _gaea_cluster_name_of(t${digits} name)
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# The up/down tests of one emulated cluster: multinode.<fixture>.up (`cluster.sh up <args>`,
# skipped with 77 where no cluster can be made) and multinode.<fixture>.down, as fixture <fixture>.
function(_gaea_cluster_fixture fixture cluster labels up_timeout)
  add_test(NAME multinode.${fixture}.up
           COMMAND ${CMAKE_COMMAND} -E env GAEA_CLUSTER_NAME=${cluster}
                   ${GAEA_CLUSTER_SCRIPT} up ${ARGN})
  add_test(NAME multinode.${fixture}.down
           COMMAND ${CMAKE_COMMAND} -E env GAEA_CLUSTER_NAME=${cluster}
                   ${GAEA_CLUSTER_SCRIPT} down)
  set_tests_properties(multinode.${fixture}.up PROPERTIES
    FIXTURES_SETUP ${fixture} SKIP_RETURN_CODE 77 TIMEOUT ${up_timeout} LABELS "${labels}")
  set_tests_properties(multinode.${fixture}.down PROPERTIES
    FIXTURES_CLEANUP ${fixture} TIMEOUT 60 LABELS "${labels}")
endfunction()

# gaea_add_cluster_fixtures(): the up/down tests of every layout (call once).
function(gaea_add_cluster_fixtures)
  foreach(layout IN LISTS GAEA_CLUSTER_LAYOUTS)
    _gaea_cluster_name(${layout} cluster)
    _gaea_cluster_fixture(cluster_${layout} ${cluster} multinode 60 ${GAEA_CLUSTER_UP_${layout}})
  endforeach()
endfunction()

# gaea_add_multinode(<name> COMMAND <exe> [args...] [LAYOUTS 2x2 3x1] [MODES auto ...]
#                    [TIMEOUT s] [ENV VAR=value ...] [WRAPPER <cmd>...] [FIXTURES_REQUIRED f...])
# One test per (layout, progress mode): <name>.<layout>.<mode>, run by `cluster.sh mpirun -np
# <hosts*ranks>` with GAEA_TEST_NODES=<hosts>, which the Catch2 main checks against the runtime.
function(gaea_add_multinode name)
  cmake_parse_arguments(T "" "TIMEOUT" "COMMAND;LAYOUTS;MODES;ENV;WRAPPER;FIXTURES_REQUIRED"
                        ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT T_LAYOUTS)
    set(T_LAYOUTS ${GAEA_CLUSTER_LAYOUTS})
  endif()
  if(NOT DEFINED T_MODES)
    set(T_MODES auto)
  endif()
  foreach(layout IN LISTS T_LAYOUTS)
    string(REPLACE "x" ";" hp ${layout})
    list(GET hp 0 hosts)
    list(GET hp 1 ppn)
    math(EXPR np "${hosts} * ${ppn}")
    _gaea_cluster_name(${layout} cluster)
    foreach(mode IN LISTS T_MODES)
      set(test ${name}.${layout}.${mode})
      add_test(NAME ${test}
               COMMAND ${T_WRAPPER} ${CMAKE_COMMAND} -E env GAEA_CLUSTER_NAME=${cluster}
                       ${GAEA_CLUSTER_SCRIPT} mpirun -np ${np} ${T_COMMAND})
      gaea_test_environment(_env MODE ${mode} ENV GAEA_TEST_NODES=${hosts} ${T_ENV})
      set_tests_properties(${test} PROPERTIES
        TIMEOUT ${T_TIMEOUT}
        PROCESSORS ${np}
        SKIP_RETURN_CODE 77
        FIXTURES_REQUIRED "cluster_${layout};${T_FIXTURES_REQUIRED}"
        LABELS "mpi;multinode;${mode}"
        ENVIRONMENT "${_env}")
    endforeach()
  endforeach()
endfunction()

# --- Tests under Slurm on emulated hosts (cluster.sh up --slurm), labels "multinode;slurm" ----
# One layout, 2 hosts x 2 CPUs, each running a slurmd (slurmctld and munged on the first), as a
# fixture of its own. Without root, or without Slurm and munge (scripts/install-deps.sh --slurm),
# the fixture and its tests report as skipped (exit 77).
set(GAEA_SRUN_CHECK ${CMAKE_CURRENT_LIST_DIR}/../tests/multinode/srun_check.sh)

function(_gaea_slurm_cluster_name out)
  _gaea_cluster_name_of(s22 name)
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# gaea_add_slurm(<name> COMMAND <exe> [args...] [EXPECT <regex>...] [TIMEOUT s] [ENV VAR=value ...])
# The test <name>.slurm_2x2: `cluster.sh srun --mpi=pmix -N 2 -n 4 <exe> [args...]` with
# GAEA_TEST_NODES=2 (which the Catch2 main checks against the runtime); it passes when srun
# exits 0 and the output matches every EXPECT regex (tests/multinode/srun_check.sh). The first
# call also registers the cluster's up/down fixture.
function(gaea_add_slurm name)
  cmake_parse_arguments(T "" "TIMEOUT" "COMMAND;EXPECT;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  _gaea_slurm_cluster_name(cluster)
  get_property(fixture_made GLOBAL PROPERTY GAEA_SLURM_FIXTURE_MADE)
  if(NOT fixture_made)  # once per project (if(TEST) sees only the current directory's tests)
    set_property(GLOBAL PROPERTY GAEA_SLURM_FIXTURE_MADE TRUE)
    _gaea_cluster_fixture(cluster_slurm_2x2 ${cluster} "multinode;slurm" 90 2 --ppn 2 --slurm)
  endif()
  set(expect "")
  foreach(re IN LISTS T_EXPECT)
    list(APPEND expect --expect "${re}")
  endforeach()
  set(test ${name}.slurm_2x2)
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -E env GAEA_CLUSTER_NAME=${cluster}
                   ${GAEA_SRUN_CHECK} ${GAEA_CLUSTER_SCRIPT}
                   ${expect} -- --mpi=pmix -N 2 -n 4 ${T_COMMAND})
  gaea_test_environment(_env MODE auto ENV GAEA_TEST_NODES=2 ${T_ENV})
  set_tests_properties(${test} PROPERTIES
    TIMEOUT ${T_TIMEOUT}
    PROCESSORS 4
    SKIP_RETURN_CODE 77
    FIXTURES_REQUIRED cluster_slurm_2x2
    LABELS "mpi;multinode;slurm;auto"
    ENVIRONMENT "${_env}")
endfunction()
