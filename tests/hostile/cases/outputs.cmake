# Hostile cases of the outputs (the apps' result files, snapshots and checkpoints, GAEA_REPORT
# and GAEA_TRACE): files are never half-written, never replace good data with bad, never
# turn a device into a regular file, and no temporary outlives a failure or a signal.
# Every case keeps a "good" file made by SETUP (KEEP) and the harness checks that no *.tmp* file
# is left. Data: data/outputs/nan32.h5 is a 32 x 32 double matrix "A" (diagonally dominant) with
# one NaN at (5, 7), written with the HDF5 C API.

set(_out_data ${CMAKE_CURRENT_LIST_DIR}/../data/outputs)
set(_out_scf $<TARGET_FILE:gaea-scf> ${PROJECT_SOURCE_DIR}/apps/scf/molecules/water.xyz
             --basis sto-3g --quiet)
# A full filesystem: the tmpfs at ./full holds the good file, then a filler takes what is left.
set(_out_fill "echo good-data > full/good.h5 && (cat /dev/zero > full/filler 2>/dev/null || true)")

# --- Collective HDF5 on a full filesystem: an error, no hang, no crash at MPI_Finalize ---
gaea_add_hostile(out_lu_full_fs
  COMMAND $<TARGET_FILE:gaea-lu> --n 256 --block 32 --output full/good.h5
  NRANKS 2 4 TRANSPORTS sm tcp FULL_FS 64k SETUP "${_out_fill}"
  MESSAGE "No space left on device" KEEP full/good.h5 CLASS hang)
# Room for HDF5's metadata but not for the data: the reservation fails before the transfer.
gaea_add_hostile(out_lu_full_fs_partly
  COMMAND $<TARGET_FILE:gaea-lu> --n 256 --block 32 --output full/good.h5
  NRANKS 2 TRANSPORTS sm FULL_FS 256k
  SETUP "echo good-data > full/good.h5 && head -c 160k /dev/zero > full/filler"
  MESSAGE "No space left on device" KEEP full/good.h5 CLASS hang)
gaea_add_hostile(out_lbm_full_fs
  COMMAND $<TARGET_FILE:gaea-lbm> --case cavity --nx 64 --steps 20 --no-check --output full/snap
  NRANKS 2 4 TRANSPORTS sm tcp FULL_FS 64k
  SETUP "mkdir -p full/snap && echo good-series > full/snap/lbm.xmf && (cat /dev/zero > full/filler 2>/dev/null || true)"
  MESSAGE "No space left on device" KEEP full/snap/lbm.xmf ABSENT full/snap/lbm_000000020.h5
  CLASS hang)
gaea_add_hostile(out_checkpoint_full_fs
  COMMAND $<TARGET_FILE:gaea-checkpoint> --n 96 --steps 40 --every 10 --checkpoint full/good.h5
  NRANKS 2 TRANSPORTS sm tcp FULL_FS 64k SETUP "${_out_fill}"
  MESSAGE "No space left on device" KEEP full/good.h5 CLASS crash)

# --- gaea-scf --output on a full disk: an error, and the old file is not replaced by zeros ---
gaea_add_hostile(out_scf_full_fs
  COMMAND ${_out_scf} --output full/good.h5
  NRANKS 2 TRANSPORTS sm FULL_FS 64k SETUP "${_out_fill}"
  MESSAGE "No space left on device|HDF5 failed" KEEP full/good.h5 CLASS lost)

# --- Failed results never replace good ones ---
gaea_add_hostile(out_lu_nan_keeps_good
  COMMAND $<TARGET_FILE:gaea-lu> --input ${_out_data}/nan32.h5 --output good.h5
  NRANKS 2 TRANSPORTS sm SETUP "echo good-data > good.h5" KEEP good.h5 CLASS lost)
gaea_add_hostile(out_lu_failed_check_keeps_good
  COMMAND $<TARGET_FILE:gaea-lu> --n 64 --block 16 --corrupt-for-test --output good.h5
  NRANKS 2 TRANSPORTS sm SETUP "echo good-data > good.h5"
  MESSAGE_ONCE "no output written to good.h5: the check failed" KEEP good.h5 CLASS lost)
gaea_add_hostile(out_scf_expect_mismatch_keeps_good
  COMMAND ${_out_scf} --expect-energy -1.0 --output good.h5
  NRANKS 2 TRANSPORTS sm SETUP "echo good-data > good.h5" EXIT 4
  MESSAGE_ONCE "no output file written" KEEP good.h5 CLASS lost)
# The device must still be a character device afterwards (device_stays.sh, on every rank).
gaea_add_hostile(out_scf_dev_full
  COMMAND bash ${_out_data}/device_stays.sh /dev/full ${_out_scf} --output /dev/full
  NRANKS 2 TRANSPORTS sm MESSAGE "'/dev/full': is a character device" CLASS lost)
gaea_add_hostile(out_lu_dev_full
  COMMAND bash ${_out_data}/device_stays.sh /dev/full
          $<TARGET_FILE:gaea-lu> --n 64 --block 16 --output /dev/full
  NRANKS 2 TRANSPORTS sm MESSAGE "'/dev/full': is a character device" CLASS lost)

# --- Output into a missing directory and onto a directory ---
gaea_add_hostile(out_lu_missing_dir
  COMMAND $<TARGET_FILE:gaea-lu> --n 64 --block 16 --output nodir/lu.h5
  NRANKS 2 TRANSPORTS sm MESSAGE "--output .nodir/lu.h5.: its directory .nodir. does not exist" ABSENT nodir CLASS unclear)
gaea_add_hostile(out_scf_onto_directory
  COMMAND ${_out_scf} --output results
  NRANKS 2 TRANSPORTS sm SETUP "mkdir results && echo good-data > results/keep"
  MESSAGE "'results': is a directory" KEEP results/keep CLASS unclear)
gaea_add_hostile(out_checkpoint_onto_directory
  COMMAND $<TARGET_FILE:gaea-checkpoint> --checkpoint results
  NRANKS 2 TRANSPORTS sm SETUP "mkdir results"
  MESSAGE "'results': is a directory" CLASS unclear)

# --- GAEA_REPORT / GAEA_TRACE to a directory, a missing directory or a device ---
gaea_add_hostile(out_trace_directory
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_TRACE=tracedir
  NRANKS 2 TRANSPORTS sm SETUP "mkdir tracedir"
  MESSAGE "GAEA_TRACE 'tracedir': is a directory" ABSENT tracedir.tmp CLASS accepted)
gaea_add_hostile(out_trace_missing_dir
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_TRACE=nodir/trace.h5
  NRANKS 2 TRANSPORTS sm MESSAGE "GAEA_TRACE 'nodir/trace.h5': its directory 'nodir' does not exist"
  CLASS accepted)
gaea_add_hostile(out_report_missing_dir
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_REPORT=nodir/run.json
  NRANKS 2 TRANSPORTS sm
  MESSAGE "GAEA_REPORT 'nodir/run.json': its directory 'nodir' does not exist" CLASS accepted)
gaea_add_hostile(out_trace_device
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_TRACE=/dev/full
  NRANKS 2 TRANSPORTS sm MESSAGE "GAEA_TRACE '/dev/full': is a character device" CLASS accepted)

# A report or trace that cannot be written at the end (full disk): an error on every rank, the
# previous file kept.
gaea_add_hostile(out_report_full_fs
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_REPORT=full/good.json
  NRANKS 2 TRANSPORTS sm FULL_FS 64k
  SETUP "echo good-report > full/good.json && (cat /dev/zero > full/filler 2>/dev/null || true)"
  MESSAGE "GAEA_REPORT 'full/good.json': .*No space left on device" KEEP full/good.json
  CLASS lost)
gaea_add_hostile(out_trace_full_fs
  COMMAND $<TARGET_FILE:gaea-info> ENV GAEA_TRACE=full/good.h5
  NRANKS 2 TRANSPORTS sm FULL_FS 64k SETUP "${_out_fill}"
  MESSAGE "GAEA_TRACE 'full/good.h5': .*No space left on device" KEEP full/good.h5 CLASS lost)

# --- Signals: SIGTERM to mpirun while snapshots are written leaves no temporary ---
# A snapshot every 2 steps; term_launcher_when_tmp.sh waits for a temporary in snap/ and sends
# SIGTERM to mpirun then. Kept small (48 x 48, 1000 steps) in case the signal never comes.
gaea_add_hostile(out_lbm_sigterm_while_writing
  COMMAND $<TARGET_FILE:gaea-lbm> --case cavity --nx 48 --steps 1000 --every 2 --no-check
          --output snap
  NRANKS 2 TRANSPORTS sm tcp
  DURING "bash ${_out_data}/term_launcher_when_tmp.sh $(rank_pid 0) snap"
  CLASS lost)

# --- A trace never removes what the run did not write (issue 39, item 1) ---
# Before: GAEA_TRACE=results.otf2 moved the user's results/ aside and deleted it with everything
# in it, and replaced results.def; the job exited 0.
gaea_add_hostile(out_trace_keeps_user_directory
  COMMAND $<TARGET_FILE:gaea-lu> --n 64 --block 16
  NRANKS 2 4 ENV GAEA_TRACE=results.otf2
  SETUP "mkdir -p results/sub && echo a > results/data1.h5 && echo s > results/sub/s && echo d > results.def"
  MESSAGE "GAEA_TRACE 'results.otf2': .*not an earlier archive"
  KEEP results/data1.h5 results/sub/s results.def ABSENT results.otf2 CLASS lost)
# Before: the trace silently replaced the report (exit 0).
gaea_add_hostile(out_report_and_trace_same_file
  COMMAND $<TARGET_FILE:gaea-lu> --n 64 --block 16
  NRANKS 2 ENV GAEA_TRACE=out.json GAEA_REPORT=out.json SETUP "echo good > out.json"
  MESSAGE "GAEA_REPORT='out.json' and GAEA_TRACE='out.json' name the same file"
  KEEP out.json CLASS lost)
