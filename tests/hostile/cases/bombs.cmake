# Memory and time bombs from small inputs, and diverged runs reported as success (issue 39,
# items 3 and 4): devices, FIFOs and huge (sparse) files as inputs, image headers that announce
# more pixels than the file holds, tool parameters whose work has no bound. Every input is checked
# by gaea::check_input_file / read_input_file (framework/base) before it is read.
# Cases that used to allocate without bound run under `ulimit -v` (about 4 GB per process), so
# that a regression fails with bad_alloc instead of taking the shared machine's memory.
set(bomb_vm bash -c "ulimit -v 4000000 && exec \"$0\" \"$@\"")
set(bomb_water ${PROJECT_SOURCE_DIR}/apps/scf/molecules/water.xyz)

# ---- gaea-scf: the molecule and the basis ----
if(TARGET gaea-scf)
  # /dev/zero as the molecule: every rank read one endless line until the OOM killer came.
  gaea_add_hostile(bomb_scf_xyz_dev_zero
    COMMAND ${bomb_vm} $<TARGET_FILE:gaea-scf> /dev/zero --basis sto-3g -q
    NRANKS 2 4 MESSAGE "xyz file '/dev/zero': is a character device. only a regular file"
    TIMEOUT 30 CLASS crash)
  # A 4 GB (sparse) file: read whole on every rank.
  gaea_add_hostile(bomb_scf_xyz_huge
    COMMAND ${bomb_vm} $<TARGET_FILE:gaea-scf> big.xyz --basis sto-3g -q
    SETUP "truncate -s 4G big.xyz"
    NRANKS 2 4 MESSAGE "xyz file 'big.xyz': is 4294967296 bytes, more than the 67108864"
    TIMEOUT 30 CLASS crash)
  # A FIFO nobody writes: every rank blocked in open() for ever.
  gaea_add_hostile(bomb_scf_xyz_fifo
    COMMAND $<TARGET_FILE:gaea-scf> m.xyz --basis sto-3g -q
    SETUP "mkfifo m.xyz"
    NRANKS 2 4 MESSAGE "xyz file 'm.xyz': is a FIFO. only a regular file can be read"
    TIMEOUT 30 CLASS hang)
  # A 4 GB basis file: scanned line by line (one 4 GB line) for its format.
  gaea_add_hostile(bomb_scf_basis_huge
    COMMAND ${bomb_vm} $<TARGET_FILE:gaea-scf> ${bomb_water} --basis big.nw -q
    SETUP "truncate -s 4G big.nw"
    NRANKS 2 4 MESSAGE "basis file 'big.nw': is 4294967296 bytes, more than the 67108864"
    TIMEOUT 30 CLASS crash)
endif()

# ---- gaea-lbm: masks, restarts, divergence ----
# A 20-byte PGM header announcing 100000 x 100000 pixels: every rank allocated 10 GB first.
gaea_add_hostile(bomb_lbm_pgm_header
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-lbm> --case mask --mask m.pgm
  SETUP "printf 'P5 100000 100000 255\\n' > m.pgm"
  NRANKS 2 4
  MESSAGE "mask 'm.pgm': the header announces 100000 x 100000 pixels, at least 10000000000 bytes of raster, but only 0 follow"
  TIMEOUT 30 CLASS crash)
# 2^20 x 2^20 (the largest accepted side) ended in a bare std::bad_alloc.
gaea_add_hostile(bomb_lbm_pgm_header_2to20
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-lbm> --case mask --mask m.pgm
  SETUP "printf 'P4 1048576 1048576\\n' > m.pgm"
  NRANKS 2 4 MESSAGE "mask 'm.pgm': the header announces 1048576 x 1048576 pixels"
  TIMEOUT 30 CLASS unclear)
gaea_add_hostile(bomb_lbm_mask_fifo
  COMMAND $<TARGET_FILE:gaea-lbm> --case mask --mask m.pgm
  SETUP "mkfifo m.pgm"
  NRANKS 2 4 MESSAGE "mask 'm.pgm': is a FIFO. only a regular file can be read"
  TIMEOUT 30 CLASS hang)
gaea_add_hostile(bomb_lbm_mask_h5_fifo
  COMMAND $<TARGET_FILE:gaea-lbm> --case mask --mask m.h5
  SETUP "mkfifo m.h5"
  NRANKS 2 4 MESSAGE "mask 'm.h5': is a FIFO. only a regular file can be read"
  TIMEOUT 30 CLASS hang)
gaea_add_hostile(bomb_lbm_restart_fifo
  COMMAND $<TARGET_FILE:gaea-lbm> --case poiseuille --steps 40 --restart r.h5
  SETUP "mkfifo r.h5"
  NRANKS 2 4 MESSAGE "restart file 'r.h5': is a FIFO. only a regular file can be read"
  TIMEOUT 30 CLASS hang)
# Diverged to NaN with --tol 0 (no steadiness test): the cavity's check "PASSED" on NaN
# velocities, or with --no-check a checksum was printed and a snapshot written, exit 0. Now the
# field is checked every --check steps and before anything is written or reported.
gaea_add_hostile(bomb_lbm_nan_cavity_check
  COMMAND $<TARGET_FILE:gaea-lbm> --case cavity --nx 32 --tau 0.5001 --u 0.4 --tol 0
          --steps 2000
  NRANKS 2 4 MESSAGE "lbm: the flow diverged [(]non-finite populations[)] by step [0-9]+"
  TIMEOUT 30 CLASS wrong)
gaea_add_hostile(bomb_lbm_nan_cavity_output
  COMMAND $<TARGET_FILE:gaea-lbm> --case cavity --nx 32 --tau 0.5001 --u 0.4 --tol 0 --no-check
          --steps 2000 --output out
  NRANKS 2 4 MESSAGE "lbm: the flow diverged [(]non-finite populations[)] by step [0-9]+"
  ABSENT out TIMEOUT 30 CLASS wrong)

# ---- gaea-lu and gaea-checkpoint: HDF5 inputs (framework/ga's readers) ----
gaea_add_hostile(bomb_lu_input_fifo
  COMMAND $<TARGET_FILE:gaea-lu> --input a.h5
  SETUP "mkfifo a.h5"
  NRANKS 2 4 MESSAGE "'a.h5'.*is a FIFO. only a regular file can be read" TIMEOUT 30 CLASS hang)
gaea_add_hostile(bomb_checkpoint_file_fifo
  COMMAND $<TARGET_FILE:gaea-checkpoint> --phase restart --checkpoint c.h5
  SETUP "mkfifo c.h5"
  NRANKS 2 4 MESSAGE "'c.h5'.*is a FIFO. only a regular file can be read" TIMEOUT 30 CLASS hang)

# ---- gaea-coll predict (one process) ----
# 2^50 bytes: the replay's pipeline of 64 KiB chunks grew to 24 GB.
gaea_add_hostile(bomb_coll_predict_bytes_huge
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-coll> predict --bytes 1125899906842624
  NRANKS 0 EXIT 2 MESSAGE "--bytes: Value 1125899906842624 not in range" TIMEOUT 30 CLASS crash)
# 2^64 - 1 overflowed and an algorithm was "chosen".
gaea_add_hostile(bomb_coll_predict_bytes_overflow
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-coll> predict --bytes 18446744073709551615
  NRANKS 0 EXIT 2 MESSAGE "--bytes: Value 18446744073709551615 not in range" TIMEOUT 30
  CLASS wrong)
# All-to-all over 65536 members: 4.3e9 messages replayed, never returned.
gaea_add_hostile(bomb_coll_predict_alltoall_ranks
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-coll> predict --op alltoall --ranks 65536
  NRANKS 0 EXIT 2 MESSAGE "would replay about 4.29e[+]09 messages, more than the 2097152"
  TIMEOUT 30 CLASS hang)
gaea_add_hostile(bomb_coll_calibration_fifo
  COMMAND $<TARGET_FILE:gaea-coll> predict --calibration c.json
  SETUP "mkfifo c.json"
  NRANKS 0 MESSAGE "calibration file 'c.json': is a FIFO. only a regular file can be read"
  TIMEOUT 30 CLASS hang)

# ---- gaea-model (one process) ----
# /dev/urandom as the machine: read until the memory ran out.
gaea_add_hostile(bomb_model_machine_urandom
  COMMAND ${bomb_vm} $<TARGET_FILE:gaea-model> scale --machine /dev/urandom
  NRANKS 0 MESSAGE "machine file '/dev/urandom': is a character device. only a regular file"
  TIMEOUT 30 CLASS crash)
gaea_add_hostile(bomb_model_profile_fifo
  COMMAND $<TARGET_FILE:gaea-model> scf --machine ${PROJECT_SOURCE_DIR}/framework/model/machines/bgq.json
          --profile p.json
  SETUP "mkfifo p.json"
  NRANKS 0 MESSAGE "profile 'p.json': is a FIFO. only a regular file can be read"
  TIMEOUT 30 CLASS hang)
