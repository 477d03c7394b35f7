# Hostile cases of isolation between users: a job's shared memory (array segments, UCX's message
# queues, counters) is its user's only. Another user in the job owner's group probes every SysV
# segment and /dev/shm file of the owner and the ranks' /proc entries while the job holds its
# objects (data/isolation/other_user.sh, probe.py). Before: UCX's sysv segments had mode 0660 and
# the probe attached, read and overwrote the job's arrays.
set(_iso ${CMAKE_CURRENT_LIST_DIR}/../data/isolation)
foreach(np 2 4)
  gaea_add_hostile(isolation_other_user_np${np}
    COMMAND bash ${_iso}/other_user.sh $<TARGET_FILE:gaea-hold> ${np}
    NRANKS 0 TRANSPORTS sm tcp EXIT 0 MESSAGE "probe: [0-9]+ objects of uid [0-9]+ tried, 0 reached"
    TIMEOUT 90 CLASS accepted)
endforeach()
