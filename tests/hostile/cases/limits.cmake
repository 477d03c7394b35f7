# Hostile cases of the process and node limits (issue 39, item 7): a limit too low for the job is
# an error at start-up naming the limit and the remedy, on every rank; and many arrays neither
# print UCX's errors nor use up the node's SysV segments.
set(_lim ${CMAKE_CURRENT_LIST_DIR}/../data/limits)
set(_lim_lu $<TARGET_FILE:gaea-lu>)
# Before: UCX's shmat failed under the address-space limit and the job segfaulted in
# ucp_ep_rkey_unpack.
gaea_add_hostile(limits_address_space
  COMMAND bash -c "ulimit -v 600000 && exec \"$0\" --n 16384" ${_lim_lu}
  NRANKS 2 4 MESSAGE "address-space limit \\(ulimit -v\\) is 586 MiB" CLASS crash)
# Before: a UCX assertion.
gaea_add_hostile(limits_open_files
  COMMAND bash -c "ulimit -n 20 && exec \"$0\" --n 64 --block 16" ${_lim_lu}
  NRANKS 2 4 MESSAGE "open-files limit \\(ulimit -n\\) of rank [0-9]+ is 20" CLASS crash)
# Before: "Input/output error" from UCX.
gaea_add_hostile(limits_small_dev_shm
  COMMAND bash ${_lim}/small_dev_shm.sh 2 ${_lim_lu} --n 64 --block 16
  NRANKS 0 TRANSPORTS sm MESSAGE_ONCE "/dev/shm on the host of rank 0 has 4 MiB free" CLASS unclear)
# Before: 3000 arrays on 2 ranks printed thousands of "UCX ERROR shmget" lines (the node's SysV
# segments ran out, for every job on the node); now they live in posix files, silently.
gaea_add_hostile(limits_many_arrays_quiet
  COMMAND bash ${_lim}/quiet.sh $<TARGET_FILE:gaea-hold> - 3000
  NRANKS 2 TRANSPORTS sm EXIT 0 TIMEOUT 90 CLASS unclear)
