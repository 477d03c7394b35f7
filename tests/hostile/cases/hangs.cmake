# A collective left out on one rank is never silent: after GAEA_HANG_WARN the waiting ranks say
# once which collective they wait in and which ranks are elsewhere (asked what they are doing);
# GAEA_HANG_TIMEOUT then ends the job. A message for a handler nobody registered ends the job.
# gaea-hang (hang.cpp) makes the odd rank.
add_executable(gaea-hang ${CMAKE_CURRENT_SOURCE_DIR}/hang.cpp)
target_link_libraries(gaea-hang PRIVATE gaea::gaea gaea::ga_compat MPI::MPI_C)
gaea_set_warnings(gaea-hang)

set(_hang $<TARGET_FILE:gaea-hang>)
# The odd rank is rank 1; it is asked, answers that it is not in a Gaea wait, and is named.
set(_elsewhere "rank 1 \\(host [^)]*\\): not in a Gaea wait for [0-9.]+ s \\(computing")
set(_warn "warning: no progress for [0-9.]+ s \\(GAEA_HANG_WARN\\) in")
# GAEA_HANG_TIMEOUT off: the warning comes once, and the job ends when the odd rank fails after
# 6 s (a second fault).
set(_hang_env GAEA_HANG_WARN=2 GAEA_HANG_TIMEOUT=0)
set(_fault "rank 1 \\(host [^)]*\\)(: error| failed): gaea-hang: rank 1 gives up after 6 s")

gaea_add_hostile(hang_barrier COMMAND ${_hang} barrier 1 6 NRANKS 2 4 ENV ${_hang_env} EXIT 3
                 MESSAGE "${_fault}"
                 MESSAGE_ONCE "${_warn} gaea::runtime::barrier number [0-9]+ .*${_elsewhere}"
                 CLASS hang)
gaea_add_hostile(hang_sync COMMAND ${_hang} sync 1 6 NRANKS 2 4 ENV ${_hang_env} EXIT 3
                 MESSAGE "${_fault}"
                 MESSAGE_ONCE "${_warn} global_array 'synced' sync: gaea::runtime::barrier.*${_elsewhere}"
                 CLASS hang)
gaea_add_hostile(hang_create COMMAND ${_hang} create 1 6 NRANKS 2 4 ENV ${_hang_env} EXIT 3
                 MESSAGE "${_fault}"
                 MESSAGE_ONCE "${_warn} creating global_array 'left_out': .*${_elsewhere}"
                 CLASS hang)
# (The GA layer prefixes the call to the failure it reports, so the exit code is either rank's.)
gaea_add_hostile(hang_ga_sync COMMAND ${_hang} ga-sync 1 6 NRANKS 2 4 ENV ${_hang_env}
                 MESSAGE "${_fault}"
                 MESSAGE_ONCE "${_warn} GA_Sync: gaea::runtime::barrier number [0-9]+ .*${_elsewhere}"
                 CLASS hang)
# GAEA_HANG_TIMEOUT still makes the wait an error, after the warning.
gaea_add_hostile(hang_barrier_timeout COMMAND ${_hang} barrier NRANKS 2 4 TRANSPORTS tcp
                 ENV GAEA_HANG_WARN=2 GAEA_HANG_TIMEOUT=5
                 MESSAGE "waited more than 5 s \\(GAEA_HANG_TIMEOUT\\) for gaea::runtime::barrier"
                 MESSAGE_ONCE "${_warn} gaea::runtime::barrier.*${_elsewhere}"
                 CLASS hang)

# The message for the unregistered handler ends the job with its rank's error on every rank.
gaea_add_hostile(hang_unregistered_handler COMMAND ${_hang} unregistered NRANKS 2 4
                 ENV GAEA_HANG_TIMEOUT=0 EXIT 1
                 MESSAGE "no handler registered for id 128 \\(an application\\) on rank 1, which received a message for it from rank [0-9]"
                 CLASS hang)
gaea_add_hostile(hang_unregistered_handler_off COMMAND ${_hang} unregistered NRANKS 2
                 TRANSPORTS sm ENV GAEA_HANG_TIMEOUT=0 GAEA_PROGRESS=off EXIT 1
                 MESSAGE "no handler registered for id 128 \\(an application\\) on rank 1"
                 CLASS hang)

# A long legitimate wait still completes (exit 0), with one warning; in every wait mode.
gaea_add_hostile(hang_late_rank COMMAND ${_hang} late NRANKS 2 4 EXIT 0
                 ENV GAEA_HANG_WARN=1 GAEA_HANG_TIMEOUT=0
                 MESSAGE_ONCE "${_warn} gaea::runtime::barrier number [0-9]+ ")
foreach(_mode spin adaptive interrupt off)
  gaea_add_hostile(hang_late_rank_${_mode} COMMAND ${_hang} late NRANKS 2 TRANSPORTS sm EXIT 0
                   ENV GAEA_HANG_WARN=1 GAEA_HANG_TIMEOUT=0 GAEA_PROGRESS=${_mode}
                   MESSAGE_ONCE "${_warn} gaea::runtime::barrier number [0-9]+ ")
endforeach()
