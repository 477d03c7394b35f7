# Collective calls whose arguments differ between ranks (issue 39, item 5): every collective that
# creates or runs something agrees on its arguments first (coll::agree_on), so a mismatch ends
# the job with a gaea::error on every rank naming both values, instead of a crash, a wrong answer
# or two objects where one was meant. gaea-mismatch (mismatch.cpp) makes rank 1 differ.
add_executable(gaea-mismatch ${CMAKE_CURRENT_LIST_DIR}/../mismatch.cpp)
target_link_libraries(gaea-mismatch PRIVATE gaea::gaea gaea::ga_compat MPI::MPI_C)
gaea_set_warnings(gaea-mismatch)

set(_mismatch $<TARGET_FILE:gaea-mismatch>)
set(_np 2 4)

# An extra array on rank 1 made the ranks pair its segment with the next array's: the issue saw a
# segfault in ucp_ep_rkey_unpack or reads of another array; this program hung in the next barrier.
gaea_add_hostile(agree_extra_array COMMAND ${_mismatch} extra-array NRANKS ${_np}
                 MESSAGE "global_array created as 'second' on rank 0 but as 'extra' on rank 1"
                 CLASS hang)
gaea_add_hostile(agree_dims COMMAND ${_mismatch} dims NRANKS ${_np}
                 MESSAGE "global_array 'A': created with dims \\[100, 100\\] on rank 0 but \\[100, 200\\] on rank 1"
                 CLASS wrong)
gaea_add_hostile(agree_element_type COMMAND ${_mismatch} type NRANKS ${_np}
                 MESSAGE "global_array 'A': created with element type double on rank 0 but float on rank 1"
                 CLASS accepted)
gaea_add_hostile(agree_name COMMAND ${_mismatch} name NRANKS ${_np}
                 MESSAGE "global_array created as 'A' on rank 0 but as 'B' on rank 1"
                 CLASS accepted)
# run(100) on some ranks and run(150) on one ran 149 tasks and returned normally.
gaea_add_hostile(agree_pool_run COMMAND ${_mismatch} pool-n NRANKS ${_np}
                 MESSAGE "task_pool 'P': run with n_tasks 100 on rank 0 but 150 on rank 1"
                 CLASS wrong)
# Each rank that named itself the owner made a counter of its own.
gaea_add_hostile(agree_counter_owner COMMAND ${_mismatch} counter-owner NRANKS ${_np}
                 MESSAGE "shared_counter 'C': created with owner 0 on rank 0 but 1 on rank 1"
                 CLASS wrong)
# The GA C API creates through the same path: GA_Ddot used to return a number.
gaea_add_hostile(agree_nga_create COMMAND ${_mismatch} nga-dims NRANKS ${_np}
                 MESSAGE "NGA_Create: global_array 'A': created with dims \\[100, 100\\] on rank 0 but \\[100, 200\\] on rank 1"
                 CLASS wrong)
# The other collectives that create or run something with arguments (issue 39, item 5): a
# mutex_set, a task_counter, a group subset, and the I/O calls.
gaea_add_hostile(agree_mutex_count COMMAND ${_mismatch} mutex-count NRANKS ${_np}
                 MESSAGE "mutex_set 'M': created with count 2 on rank 0 but 3 on rank 1"
                 CLASS wrong)
gaea_add_hostile(agree_task_range COMMAND ${_mismatch} task-range NRANKS ${_np}
                 MESSAGE "task_counter 'T': created with range \\[0, 100\\) on rank 0 but \\[0, 150\\) on rank 1"
                 CLASS wrong)
gaea_add_hostile(agree_group_subset COMMAND ${_mismatch} group-subset NRANKS ${_np}
                 MESSAGE "group 'S': subset of 'world' with members \\[0\\] on rank 0 but \\[0, 1\\] on rank 1"
                 CLASS wrong)
gaea_add_hostile(agree_write_dataset COMMAND ${_mismatch} write-dataset NRANKS ${_np}
                 MESSAGE "ga::write 'out.h5': writing with dataset 'x' on rank 0 but 'y' on rank 1"
                 ABSENT out.h5
                 CLASS wrong)
gaea_add_hostile(agree_read_patch COMMAND ${_mismatch} read-patch NRANKS ${_np}
                 MESSAGE "ga::read 'in.h5': reading with patch \\[0:99\\] on rank 0 but \\[0:49\\] on rank 1"
                 CLASS wrong)
