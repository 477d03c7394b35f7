# Hostile inputs: corrupt, truncated, non-finite,
# out-of-range and per-rank-different inputs of gaea-scf, gaea-lu, gaea-lbm and gaea-checkpoint.
# Corrupt files are made in SETUP from real ones: the NWChem basis library, the repository's
# water molecule, snapshots and checkpoints written by the apps themselves, altered with
# h5_poke (the HDF5 C API; built here). Bad command-line values (CLI11 validators) expect no
# particular status: the exit code of a bad command line is cli.cmake's convention.
set(in_data ${CMAKE_CURRENT_LIST_DIR}/../data/inputs)
add_executable(gaea_hostile_h5_poke ${in_data}/h5_poke.cpp)
target_link_libraries(gaea_hostile_h5_poke PRIVATE hdf5::hdf5 MPI::MPI_C)
# Header-only: the HDF5 handles of gaea/runtime/detail/hdf5.hpp, without linking Gaea.
target_include_directories(gaea_hostile_h5_poke
                           PRIVATE ${PROJECT_SOURCE_DIR}/framework/runtime/include)
gaea_set_warnings(gaea_hostile_h5_poke)
set_target_properties(gaea_hostile_h5_poke PROPERTIES OUTPUT_NAME h5_poke
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/hostile/bin)

set(in_water ${PROJECT_SOURCE_DIR}/apps/scf/molecules/water.xyz)
set(in_files "\"$GAEA_SOURCE_DIR/tests/hostile/data/inputs\"")
set(in_lib /usr/share/nwchem/libraries)
set(in_poke "\"$GAEA_BINARY_DIR/tests/hostile/bin/h5_poke\"")
set(in_lbm "\"$GAEA_BINARY_DIR/apps/lbm/gaea-lbm\"")
# A real 16 x 32 Poiseuille snapshot (tau 0.8), written by gaea-lbm itself, as snap/lbm_000000020.h5.
set(in_lbm_snapshot
    "${in_lbm} --case poiseuille --steps 20 --tol 0 --no-check --output snap >/dev/null && cp snap/lbm_000000020.h5 r.h5")
set(in_lbm_restart $<TARGET_FILE:gaea-lbm> --case poiseuille --steps 40 --tol 0 --no-check
                   --restart r.h5)

# ---- gaea-scf: basis files ----
if(TARGET gaea-scf AND EXISTS ${in_lib}/cc-pvdz)
  # cc-pVDZ cut at line 150, inside oxygen's block: used to give 12 functions and E = -71.42.
  gaea_add_hostile(in_scf_basis_truncated
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis cut.nw -q
    SETUP "head -n 150 ${in_lib}/cc-pvdz > cut.nw"
    EXIT 1 MESSAGE "block of element O starting at line 141 has no 'end'.*truncated"
    KEEP cut.nw TRANSPORTS sm CLASS wrong)
  # The same for a Gaussian-94 file (libint2's reader took it as it was).
  gaea_add_hostile(in_scf_basis_g94_truncated
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis cut.g94 -q
    SETUP "head -n 15 ${PROJECT_SOURCE_DIR}/tests/scf/sto-3g.g94 > cut.g94"
    EXIT 1 MESSAGE "ends inside shell SP of element O [(]line 14[)], 2 of its 3 primitives missing"
    TRANSPORTS sm CLASS wrong)
  # A negative exponent used to segfault.
  gaea_add_hostile(in_scf_basis_negative_exponent
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis neg.nw -q
    SETUP "sed '143s/11720.0000000/-11720.0000000/' ${in_lib}/cc-pvdz > neg.nw"
    EXIT 1 MESSAGE "neg.nw' line 143: element O shell S: exponent -11720.* must be positive"
    TRANSPORTS sm CLASS crash)
  gaea_add_hostile(in_scf_basis_nan_coefficient
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis nan.nw -q
    SETUP "sed '144s/0.0054700/nan/' ${in_lib}/cc-pvdz > nan.nw"
    EXIT 1 MESSAGE "nan.nw' line 144: 'nan' is not a finite number" TRANSPORTS sm CLASS crash)
  gaea_add_hostile(in_scf_basis_unknown_shell
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis x.nw -q
    SETUP "sed '142s/O    S/O    X/' ${in_lib}/cc-pvdz > x.nw"
    EXIT 1 MESSAGE "x.nw' line 142: unknown shell type 'x'" TRANSPORTS sm)
  # A shell line with its primitives cut away (the next shell follows at once).
  gaea_add_hostile(in_scf_basis_empty_shell
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis e.nw -q
    SETUP "sed '143,150d' ${in_lib}/cc-pvdz > e.nw"
    EXIT 1 MESSAGE "e.nw' line 142: element O shell S has no primitives" TRANSPORTS sm CLASS wrong)
  # Uranium is not in STO-3G's library file.
  gaea_add_hostile(in_scf_basis_missing_element
    COMMAND $<TARGET_FILE:gaea-scf> u.xyz --basis sto-3g -q
    SETUP "cp ${in_files}/uranium.xyz u.xyz"
    EXIT 1 MESSAGE "no functions for element U" TRANSPORTS sm)
endif()

# ---- gaea-scf: molecules and options ----
if(TARGET gaea-scf)
  # 1e-8 Angstrom apart: E = +5.3e7 Eh, exit 0, before.
  gaea_add_hostile(in_scf_atoms_too_close
    COMMAND $<TARGET_FILE:gaea-scf> close.xyz --basis sto-3g -q
    SETUP "cp ${in_files}/close.xyz close.xyz"
    EXIT 1 MESSAGE "atoms 1 [(]O, line 3[)] and 2 [(]H, line 4[)] are 1e-08 Angstrom apart"
    TRANSPORTS sm CLASS wrong)
  gaea_add_hostile(in_scf_nan_coordinate
    COMMAND $<TARGET_FILE:gaea-scf> nan.xyz --basis sto-3g -q
    SETUP "sed '4s/0.866811829/nan/' ${in_water} > nan.xyz"
    EXIT 1 MESSAGE "nan.xyz' line 4: coordinates are not finite numbers" TRANSPORTS sm)
  gaea_add_hostile(in_scf_huge_coordinate
    COMMAND $<TARGET_FILE:gaea-scf> big.xyz --basis sto-3g -q
    SETUP "cp ${in_files}/far.xyz big.xyz"
    EXIT 1 MESSAGE "big.xyz' line 4: coordinate 1e[+]300 of atom 2 [(]H[)] is beyond"
    TRANSPORTS sm CLASS wrong)
  # Odd electron count (charge 1): RHF needs a closed shell (singlet).
  gaea_add_hostile(in_scf_odd_electrons
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis sto-3g --charge 1 -q
    EXIT 1 MESSAGE "odd number of electrons [(]9[)]" TRANSPORTS sm)
  # --schwarz 1e300 screened every integral and "converged" to -117.84.
  foreach(v "1e300;huge;wrong" "nan;nan;accepted" "-1;negative;accepted")
    list(GET v 0 value)
    list(GET v 1 tag)
    list(GET v 2 class)
    gaea_add_hostile(in_scf_schwarz_${tag}
      COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis sto-3g -q --schwarz ${value}
      MESSAGE_ONCE "schwarz: value ${value} is not (a finite number )?in .0, 1e-06."
      TRANSPORTS sm CLASS ${class})
  endforeach()
  gaea_add_hostile(in_scf_energy_tol_nan
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis sto-3g -q --energy-tol nan
    MESSAGE_ONCE "energy-tol: value nan is not a finite number" TRANSPORTS sm
    CLASS accepted)
  # --threads 100000 crashed in pthread_create; now capped with a warning, and the run succeeds.
  gaea_add_hostile(in_scf_threads_huge
    COMMAND $<TARGET_FILE:gaea-scf> ${in_water} --basis sto-3g -q --threads 100000
            --expect-energy -74.942079928344 --tolerance 1e-8
    EXIT 0 MESSAGE_ONCE "warning: --threads 100000 exceeds the [0-9]+ hardware threads"
    TRANSPORTS sm CLASS crash)
  # A molecule broken on rank 1 only (as on a node with a damaged copy): used to hang.
  gaea_add_hostile(in_scf_bad_on_rank1
    COMMAND sh -c "exec \"$0\" in$OMPI_COMM_WORLD_RANK.xyz --basis sto-3g -q"
            $<TARGET_FILE:gaea-scf>
    SETUP "cp ${in_water} in0.xyz && sed '4s/0.866811829/0.86x6/' ${in_water} > in1.xyz"
    EXIT 1 MESSAGE "rank 1: xyz file 'in1.xyz' line 4: coordinates are not finite" CLASS hang)
  # A different molecule on each rank: every rank computed with its own, or hung.
  gaea_add_hostile(in_scf_molecule_per_rank
    COMMAND sh -c "exec \"$0\" in$OMPI_COMM_WORLD_RANK.xyz --basis sto-3g -q"
            $<TARGET_FILE:gaea-scf>
    SETUP "cp ${in_water} in0.xyz && sed '4s/0.866811829/0.866811830/' ${in_water} > in1.xyz"
    EXIT 1 MESSAGE "inputs differ between ranks: rank 0 has molecule in0.xyz.*rank 1 has molecule in1.xyz"
    TRANSPORTS sm CLASS hang)
endif()

# ---- gaea-lu ----
# The distribution's tile tables grew to ~12 GB per rank until the OOM killer came.
gaea_add_hostile(in_lu_huge_n
  COMMAND $<TARGET_FILE:gaea-lu> --n 9223372036854775807
  EXIT 2 MESSAGE "n 9223372036854775807 must be in .1, 67108864." TRANSPORTS sm
  CLASS crash)
# The largest accepted order: 32 PiB of matrix; the capacity check refuses it before any
# table is built (framework/ga).
gaea_add_hostile(in_lu_n_too_big_for_memory
  COMMAND $<TARGET_FILE:gaea-lu> --n 67108864
  EXIT 2 MESSAGE "global_array 'lu_A': needs [0-9]+ MiB .*nothing was allocated" TRANSPORTS sm
  CLASS crash)
gaea_add_hostile(in_lu_input_nan
  COMMAND $<TARGET_FILE:gaea-lu> --input a.h5
  SETUP "${in_poke} matrix a.h5 A 64 && ${in_poke} set a.h5 A 197 nan"
  EXIT 2 MESSAGE "input 'a.h5', dataset 'A': element [(]3, 5[)] is nan" KEEP a.h5
  TRANSPORTS sm CLASS wrong)
gaea_add_hostile(in_lu_threads_huge
  COMMAND $<TARGET_FILE:gaea-lu> --n 128 --threads 100000
  EXIT 0 MESSAGE_ONCE "warning: --threads 100000 exceeds the [0-9]+ hardware threads"
  TRANSPORTS sm CLASS crash)
gaea_add_hostile(in_lu_n_per_rank
  COMMAND sh -c "exec \"$0\" --n $((100 + OMPI_COMM_WORLD_RANK))" $<TARGET_FILE:gaea-lu>
  NRANKS 2 4 EXIT 2 MESSAGE "options differ between ranks: rank 0 has --n 100 .*rank 1 has --n 101" CLASS hang)
gaea_add_hostile(in_lu_input_missing_on_rank1
  COMMAND sh -c "exec \"$0\" --input a$OMPI_COMM_WORLD_RANK.h5" $<TARGET_FILE:gaea-lu>
  SETUP "${in_poke} matrix a0.h5 A 64"
  EXIT 2 MESSAGE "rank 1: --input: .*a1.h5" TRANSPORTS sm CLASS hang)

# ---- gaea-lbm ----
# --tau nan was replaced by the default 0.8.
gaea_add_hostile(in_lbm_tau_nan
  COMMAND $<TARGET_FILE:gaea-lbm> --case poiseuille --steps 10 --tau nan
  MESSAGE_ONCE "tau: value nan is not a finite number in [(]0.5, 100." TRANSPORTS sm
  CLASS accepted)
gaea_add_hostile(in_lbm_tau_unstable
  COMMAND $<TARGET_FILE:gaea-lbm> --case poiseuille --steps 10 --tau 0.5
  MESSAGE_ONCE "tau: value 0.5 is not in [(]0.5, 100." TRANSPORTS sm)
gaea_add_hostile(in_lbm_threads_huge
  COMMAND $<TARGET_FILE:gaea-lbm> --case poiseuille --steps 10 --tol 0 --no-check
          --threads 100000
  EXIT 0 MESSAGE_ONCE "warning: --threads 100000 exceeds the [0-9]+ hardware threads"
  TRANSPORTS sm CLASS crash)
# The control: the unaltered snapshot restarts (the checks do not refuse real data).
gaea_add_hostile(in_lbm_restart_good
  COMMAND ${in_lbm_restart}
  SETUP "${in_lbm_snapshot}"
  EXIT 0 MESSAGE_ONCE "restarted from r.h5 at step 20" KEEP r.h5 TRANSPORTS sm)
# Restart files from a real snapshot, then altered: each was accepted and run on before.
foreach(v "nan;100;nan;population 0 is nan"
          "huge;100;1e30;density 1[.0-9]*e[+]30 is outside the physical range"
          "negative;612;-0.2;population 1 is negative [(]-0.2")
  list(GET v 0 tag)
  list(GET v 1 index)
  list(GET v 2 value)
  list(GET v 3 message)
  gaea_add_hostile(in_lbm_restart_${tag}
    COMMAND ${in_lbm_restart}
    SETUP "${in_lbm_snapshot} && ${in_poke} set r.h5 populations ${index} ${value}"
    EXIT 2 MESSAGE "restart file 'r.h5': cell [(]x 4, y 6[)]: ${message}" KEEP r.h5
    TRANSPORTS sm CLASS wrong)
endforeach()
gaea_add_hostile(in_lbm_restart_random
  COMMAND ${in_lbm_restart}
  SETUP "${in_lbm_snapshot} && ${in_poke} random r.h5 populations 7"
  EXIT 2 MESSAGE "restart file 'r.h5': cell .*outside the physical range" KEEP r.h5
  TRANSPORTS sm CLASS wrong)
gaea_add_hostile(in_lbm_restart_negative_step
  COMMAND ${in_lbm_restart}
  SETUP "${in_lbm_snapshot} && ${in_poke} attr r.h5 step -5"
  EXIT 2 MESSAGE "restart file 'r.h5': step -5 is negative" KEEP r.h5 TRANSPORTS sm
  CLASS accepted)
# The stored tau was never read: a restart with another tau mixed two flows.
gaea_add_hostile(in_lbm_restart_other_tau
  COMMAND ${in_lbm_restart} --tau 0.9
  SETUP "${in_lbm_snapshot}"
  EXIT 2 MESSAGE "restart file 'r.h5' was written with tau = 0.80000000000000004, the run has 0.9"
  KEEP r.h5 TRANSPORTS sm CLASS wrong)
# A snapshot's solid dataset as a mask, with -7 in one cell: it was fluid.
gaea_add_hostile(in_lbm_mask_minus7
  COMMAND $<TARGET_FILE:gaea-lbm> --case mask --mask r.h5 --steps 10 --tol 0
  SETUP "${in_lbm_snapshot} && ${in_poke} set r.h5 solid 37 -7"
  EXIT 2 MESSAGE "mask 'r.h5': dataset 'solid' holds -7 at [(]x 5, y 2[)]. only 0 [(]fluid[)] and 1"
  KEEP r.h5 TRANSPORTS sm CLASS wrong)
# A mask image damaged on rank 1 only.
gaea_add_hostile(in_lbm_mask_bad_on_rank1
  COMMAND sh -c "exec \"$0\" --case mask --mask m$OMPI_COMM_WORLD_RANK.pgm --steps 10 --tol 0"
          $<TARGET_FILE:gaea-lbm>
  SETUP "cp ${in_files}/fluid.pgm m0.pgm && cp ${in_files}/bad_magic.pgm m1.pgm"
  EXIT 2 MESSAGE "rank 1: mask 'm1.pgm': not a PBM/PGM image" CLASS hang)
gaea_add_hostile(in_lbm_options_per_rank
  COMMAND sh -c "exec \"$0\" --case poiseuille --steps 10 --nx $((16 + OMPI_COMM_WORLD_RANK))"
          $<TARGET_FILE:gaea-lbm>
  EXIT 2 MESSAGE "options differ between ranks: rank 0 has --case poiseuille --nx 16 .*rank 1 has --case poiseuille --nx 17"
  TRANSPORTS sm CLASS hang)

# ---- gaea-checkpoint ----
# A checkpoint holding a NaN restarted into a NaN field that was reported "identical".
gaea_add_hostile(in_ckpt_nan
  COMMAND $<TARGET_FILE:gaea-checkpoint> --phase restart --checkpoint c.h5
  SETUP "\"$GAEA_BINARY_DIR/apps/examples/checkpoint/gaea-checkpoint\" --phase crash --checkpoint c.h5 >/dev/null && ${in_poke} set c.h5 u 1000 nan"
  EXIT 2 MESSAGE "checkpoint 'c.h5': u[(]10, 40[)] is nan. the field must be finite" KEEP c.h5
  TRANSPORTS sm CLASS wrong)
gaea_add_hostile(in_ckpt_bad_step
  COMMAND $<TARGET_FILE:gaea-checkpoint> --phase restart --checkpoint c.h5
  SETUP "\"$GAEA_BINARY_DIR/apps/examples/checkpoint/gaea-checkpoint\" --phase crash --checkpoint c.h5 >/dev/null && ${in_poke} set c.h5 step 0 -3"
  EXIT 2 MESSAGE "checkpoint 'c.h5': step -3 is not a checkpoint step" KEEP c.h5 TRANSPORTS sm
  CLASS wrong)
