# An error on one rank ends the whole job, never a hang (runtime::fail, GAEA_HANG_TIMEOUT): the
# failing rank prints its message once, the others stay quiet (a "stopping" line each under
# GAEA_VERBOSE=1). gaea-fault injects the faults.
set(_fault $<TARGET_FILE:gaea-fault>)
set(_from1 "rank 1 \\(host [^)]*\\): error: injected fault on rank 1")

gaea_add_hostile(fail_throw COMMAND ${_fault} throw 1 NRANKS 2 4 EXIT 3 MESSAGE "${_from1}"
                 CLASS hang)
gaea_add_hostile(fail_throw_verbose_says_stopping COMMAND ${_fault} throw 1 NRANKS 3 EXIT 3
                 MESSAGE "rank 2 \\(host [^)]*\\): stopping: rank 1 \\(host [^)]*\\) failed: injected fault on rank 1"
                 MESSAGE_ONCE "rank 0 \\(host [^)]*\\): stopping: rank 1 .*injected fault on rank 1"
                 ENV GAEA_VERBOSE=1)
gaea_add_hostile(fail_throw_progress_off COMMAND ${_fault} throw 1 NRANKS 2 EXIT 3
                 MESSAGE "${_from1}" ENV GAEA_PROGRESS=off CLASS hang)
gaea_add_hostile(fail_throw_interrupt COMMAND ${_fault} throw 1 NRANKS 4 TRANSPORTS tcp EXIT 3
                 MESSAGE "${_from1}" ENV GAEA_PROGRESS=interrupt CLASS hang)
gaea_add_hostile(fail_throw_in_collective COMMAND ${_fault} throw-in-coll 0 NRANKS 2 4 EXIT 3
                 MESSAGE "rank 0 \\(host [^)]*\\): error: injected fault on rank 0"
                 CLASS hang)
# The exception unwinds through the runtime: its destructor cannot know the message, says so,
# and still ends the job on every rank.
gaea_add_hostile(fail_unguarded COMMAND ${_fault} unguarded 1 NRANKS 2 EXIT 1
                 MESSAGE "rank 1 \\(host [^)]*\\)(: error| failed): an exception left the scope of gaea::runtime"
                 CLASS hang)
gaea_add_hostile(fail_terminate COMMAND ${_fault} terminate 1 NRANKS 2 EXIT 1
                 MESSAGE "uncaught exception: injected fault on rank 1 \\(through noexcept\\)"
                 CLASS hang)
# A collective called on only some ranks: the watchdog names what each rank waited for.
gaea_add_hostile(fail_collective_on_some_ranks COMMAND ${_fault} skip-barrier 1 NRANKS 2 3
                 ENV GAEA_HANG_TIMEOUT=3 MESSAGE "waited more than 3 s \\(GAEA_HANG_TIMEOUT\\)"
                 CLASS hang)
# A stopped rank is not waited on forever: the others name it; the launcher kills it.
gaea_add_hostile(fail_stopped_rank COMMAND ${_fault} stop 1 NRANKS 2 TIMEOUT 40
                 ENV GAEA_HANG_TIMEOUT=3
                 MESSAGE_ONCE "waiting for rank 1 \\(host [^)]*\\), which has not entered it"
                 CLASS hang)
# An array that outlives its runtime: the runtime's warning, then no crash.
gaea_add_hostile(fail_array_after_runtime COMMAND ${_fault} array-after-runtime NRANKS 1 2
                 TRANSPORTS sm EXIT 0 MESSAGE "the array was destroyed after the runtime"
                 MESSAGE_ONCE "outliving_array.* still alive at finalize" CLASS crash)
# A rank killed with SIGKILL while the others wait for it: the job ends with mpirun's 128+9, the
# launcher naming the rank (already so before; a guard, no class).
gaea_add_hostile(fail_killed_rank COMMAND ${_fault} sleep 1 NRANKS 2 4 TIMEOUT 40 EXIT 137
                 DURING "kill -KILL \"$(rank_pid 1)\""
                 MESSAGE_ONCE "rank 1 .*(signal 9|Killed)|lost the connection to rank 1")
