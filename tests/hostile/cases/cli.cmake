# Hostile cases of the command lines and the GAEA_* environment. The convention
# (apps/common/cli.hpp): --help and --version exit 0; a bad command line prints
# "<program>: error: ..." ("<program>: rank R: error: ..." under mpirun) once for the job and exits
# 2, under mpirun or not; GAEA_* variables are checked at start-up (invalid value: an error,
# printed once; unknown name: a warning naming the closest known one). None of these is about the transport: sm only.

# One program's command-line cases. PROGRAM is the executable's name; BASE the required
# arguments given before the unknown flag; MISSING and NOT_A_NUMBER are argument lists that miss
# a required argument/value or give text to a numeric option, with the message expected; <X>_CLASS the class of each before the fix
# (empty: it already behaved and the case guards against a regression).
function(gaea_cli_cases name program)
  cmake_parse_arguments(C "" "HELP_CLASS;VERSION_CLASS;UNKNOWN_CLASS;MISSING_MESSAGE;MISSING_CLASS;NUMBER_MESSAGE;NUMBER_CLASS"
                        "BASE;MISSING;NOT_A_NUMBER" ${ARGN})
  if(NOT TARGET ${program})
    return()
  endif()
  set(exe $<TARGET_FILE:${program}>)
  foreach(c HELP VERSION UNKNOWN MISSING NUMBER)
    set(${c}_class "")
    if(C_${c}_CLASS)
      set(${c}_class CLASS ${C_${c}_CLASS})
    endif()
  endforeach()
  gaea_add_hostile(cli_${name}_help COMMAND ${exe} --help NRANKS 0 TRANSPORTS sm EXIT 0
                   MESSAGE "Usage: ${program}" ${HELP_class})
  gaea_add_hostile(cli_${name}_version COMMAND ${exe} --version NRANKS 0 TRANSPORTS sm EXIT 0
                   MESSAGE "${program} \\(Gaea [0-9]+\\.[0-9]+\\.[0-9]+\\)" ${VERSION_class})
  gaea_add_hostile(cli_${name}_unknown_flag COMMAND ${exe} ${C_BASE} --no-such-flag NRANKS 0 2
                   TRANSPORTS sm EXIT 2
                   MESSAGE "${program}: (rank [0-9]+: )?error: .*--no-such-flag" ${UNKNOWN_class})
  # Every rank parses the same way: the per-rank output is shown by the unknown flag and the
  # non-number under mpirun; a missing argument runs as one process to keep the suite short.
  gaea_add_hostile(cli_${name}_missing_argument COMMAND ${exe} ${C_MISSING} NRANKS 0
                   TRANSPORTS sm EXIT 2 MESSAGE "${program}: (rank [0-9]+: )?error: ${C_MISSING_MESSAGE}"
                   ${MISSING_class})
  if(C_NOT_A_NUMBER)
    gaea_add_hostile(cli_${name}_not_a_number COMMAND ${exe} ${C_NOT_A_NUMBER} NRANKS 2
                     TRANSPORTS sm EXIT 2 MESSAGE "${program}: (rank [0-9]+: )?error: ${C_NUMBER_MESSAGE}"
                     ${NUMBER_class})
  endif()
endfunction()

# Before: gaea-scf exited 106/109 without mpirun (CLI11's codes) and printed on rank 0 only.
gaea_cli_cases(scf gaea-scf VERSION_CLASS unclear UNKNOWN_CLASS unclear
               BASE water.xyz --basis sto-3g
               MISSING "" MISSING_MESSAGE "xyz is required" MISSING_CLASS unclear
               NOT_A_NUMBER water.xyz --basis sto-3g --charge one
               NUMBER_MESSAGE ".*--charge.*one" NUMBER_CLASS unclear)
# Before: gaea-lu parsed after starting the runtime, printed on rank 0 only; no --version.
gaea_cli_cases(lu gaea-lu VERSION_CLASS unclear
               MISSING --n MISSING_MESSAGE ".*--n"
               NOT_A_NUMBER --n abc NUMBER_MESSAGE ".*--n.*abc")
gaea_cli_cases(lbm gaea-lbm VERSION_CLASS unclear
               MISSING --case MISSING_MESSAGE ".*--case"
               NOT_A_NUMBER --nx abc NUMBER_MESSAGE ".*--nx.*abc")
# Before: gaea-info, gaea-demo and gaea-checkpoint parsed argv by hand: gaea-info ignored
# --version and unknown flags (ran as if absent), gaea-demo read "--help" as n = 0, and
# gaea-checkpoint's --help asked for a value.
gaea_cli_cases(info gaea-info VERSION_CLASS accepted UNKNOWN_CLASS accepted
               MISSING --env extra MISSING_MESSAGE ".*extra" MISSING_CLASS accepted)
gaea_cli_cases(demo gaea-demo HELP_CLASS unclear VERSION_CLASS unclear UNKNOWN_CLASS unclear
               MISSING 64 32 extra MISSING_MESSAGE ".*extra" MISSING_CLASS accepted
               NOT_A_NUMBER abc NUMBER_MESSAGE ".*abc" NUMBER_CLASS unclear)
gaea_cli_cases(checkpoint gaea-checkpoint HELP_CLASS unclear VERSION_CLASS unclear
               MISSING --checkpoint MISSING_MESSAGE ".*--checkpoint"
               NOT_A_NUMBER --n abc NUMBER_MESSAGE ".*--n.*abc" NUMBER_CLASS unclear)
gaea_cli_cases(coll gaea-coll VERSION_CLASS unclear BASE predict
               MISSING calibrate MISSING_MESSAGE ".*--output.*required"
               NOT_A_NUMBER predict --ranks x NUMBER_MESSAGE ".*--ranks.*x")

# Under mpirun, --help prints once and every rank exits 0, without starting the runtime.
if(TARGET gaea-lu)
  gaea_add_hostile(cli_lu_help_mpirun COMMAND $<TARGET_FILE:gaea-lu> --help TRANSPORTS sm EXIT 0
                   MESSAGE_ONCE "Usage: gaea-lu")
  # A command line bad on one rank only (rank 1): that rank says why, and the job ends with 2
  # instead of rank 0 waiting for it. Before: a hang.
  gaea_add_hostile(cli_lu_bad_on_one_rank
    COMMAND bash -c "exec \"$0\" --n 64 $([[ $OMPI_COMM_WORLD_RANK == 1 ]] && echo --bogus)"
            $<TARGET_FILE:gaea-lu>
    TRANSPORTS sm MESSAGE_ONCE "gaea-lu: rank 1: error: .*--bogus" CLASS hang)
endif()

# Environment. Every set GAEA_* variable is checked before anything collective.
if(TARGET gaea-demo)
  set(demo $<TARGET_FILE:gaea-demo> 256 32)
  gaea_add_hostile(cli_env_progress_bogus COMMAND ${demo} ENV GAEA_PROGRESS=bogus TRANSPORTS sm
                   MESSAGE "GAEA_PROGRESS='bogus' must be one of auto\\|spin\\|adaptive")
  gaea_add_hostile(cli_env_adaptive_fixed_step_zero COMMAND ${demo}
                   ENV GAEA_PROGRESS=adaptive_fixed GAEA_ADAPTIVE_FIXED_STEP_NS=0 TRANSPORTS sm
                   MESSAGE "GAEA_ADAPTIVE_FIXED_STEP_NS='0' must be at least 1")
  # Before: accepted (a value other than 0 meant 1).
  gaea_add_hostile(cli_env_rkey_ptr_2 COMMAND ${demo} ENV GAEA_RKEY_PTR=2 TRANSPORTS sm
                   MESSAGE "GAEA_RKEY_PTR='2' must be one of 0\\|1" CLASS accepted)
  gaea_add_hostile(cli_env_max_transfer_tiny COMMAND ${demo} ENV GAEA_MAX_TRANSFER=4
                   TRANSPORTS sm MESSAGE "GAEA_MAX_TRANSFER='4' must be at least 8")
  # Two bad values: both named at once, not one per attempt. Before: GAEA_VERBOSE=2 was taken
  # as 1 and only GAEA_COLL_CHECK was reported.
  gaea_add_hostile(cli_env_two_invalid COMMAND ${demo} ENV GAEA_VERBOSE=2 GAEA_COLL_CHECK=yes
                   TRANSPORTS sm MESSAGE "GAEA_VERBOSE='2'.*GAEA_COLL_CHECK='yes'"
                   CLASS accepted)
  # Misspelt or miscased names: a warning naming the variable meant, and the run goes on.
  # Before: silently ignored.
  gaea_add_hostile(cli_env_misspelt COMMAND ${demo} ENV GAEA_PROGRES=spin TRANSPORTS sm EXIT 0
                   MESSAGE "unknown environment variable GAEA_PROGRES=spin \\(did you mean GAEA_PROGRESS\\?\\)"
                   CLASS accepted)
  gaea_add_hostile(cli_env_miscased COMMAND ${demo} ENV gaea_counter=owner TRANSPORTS sm EXIT 0
                   MESSAGE "gaea_counter=owner \\(did you mean GAEA_COUNTER\\?\\)" CLASS accepted)
  # An invalid value on one rank only: that rank says so and the job ends. Before: rank 1 threw
  # at its first counter operation and rank 0 waited for ever.
  gaea_add_hostile(cli_env_invalid_on_one_rank
    COMMAND bash -c "exec env $([[ $OMPI_COMM_WORLD_RANK == 1 ]] && echo GAEA_COUNTER=xyz) \"$@\""
            bash ${demo}
    TRANSPORTS sm MESSAGE_ONCE "GAEA_COUNTER='xyz' must be one of atomic\\|progress\\|owner"
    CLASS hang)
endif()
# GAEA_COUNTER=xyz in the apps that read it only when a counter is made. Before: accepted by
# gaea-lu and gaea-lbm, which never make one.
if(TARGET gaea-lu)
  gaea_add_hostile(cli_env_counter_xyz_lu COMMAND $<TARGET_FILE:gaea-lu> --n 64 ENV GAEA_COUNTER=xyz
                   TRANSPORTS sm MESSAGE "GAEA_COUNTER='xyz' must be one of atomic\\|progress\\|owner"
                   CLASS accepted)
endif()
if(TARGET gaea-lbm)
  gaea_add_hostile(cli_env_counter_xyz_lbm
                   COMMAND $<TARGET_FILE:gaea-lbm> --case cavity --nx 16 --ny 16 --steps 2
                   ENV GAEA_COUNTER=xyz TRANSPORTS sm
                   MESSAGE "GAEA_COUNTER='xyz' must be one of atomic\\|progress\\|owner"
                   CLASS accepted)
endif()
