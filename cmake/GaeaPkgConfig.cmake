# gaea.pc and gaea-config for projects that do not use CMake:
#   c++ prog.cpp $(pkg-config --cflags --libs gaea)        (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig)
#   c++ prog.cpp $(gaea-config --cflags --libs)            (finds its own gaea.pc)
# Both are relocatable: gaea.pc derives its prefix from ${pcfiledir}, gaea-config from its own
# path. The dependencies are named as pkg-config modules (whichever name this system's MPI and
# HDF5 packages use), so their flags come from the consumer's system, not from this build.
include_guard(GLOBAL)

# The first of `candidates` that pkg-config knows, into `out` (empty when none), its version
# into `out`_VERSION.
function(_gaea_pc_module out)
  set(${out} "" PARENT_SCOPE)
  set(${out}_VERSION "" PARENT_SCOPE)
  foreach(_m IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "_gaea_probe_${_m}" _var)
    pkg_check_modules(${_var} QUIET ${_m})
    if(${_var}_FOUND)
      set(${out} ${_m} PARENT_SCOPE)
      set(${out}_VERSION "${${_var}_VERSION}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

_gaea_pc_module(_gaea_pc_mpi ompi-c mpich mpi-c mpi)
_gaea_pc_module(_gaea_pc_hdf5 hdf5-openmpi hdf5-mpich hdf5-mpi hdf5)
set(GAEA_PC_REQUIRES "ucx >= ${GAEA_UCX_MIN_VERSION}, hwloc >= ${GAEA_HWLOC_MIN_VERSION}, tbb")
set(GAEA_PC_EXTRA_LIBS "")
set(GAEA_PC_EXTRA_CFLAGS "")
# gaea::dense: OpenBLAS and LAPACKE by name (their own .pc files add -I/usr/include/<triplet>,
# which breaks #include_next in the C++ headers).
string(APPEND GAEA_PC_EXTRA_LIBS " -llapacke -lopenblas")
# gaea::trace writes OTF2 through libotf2 (no .pc file on every system: by name).
if(GAEA_WITH_OTF2)
  string(APPEND GAEA_PC_EXTRA_LIBS " -lotf2")
endif()
if(_gaea_pc_mpi)
  string(APPEND GAEA_PC_REQUIRES ", ${_gaea_pc_mpi}")
else()  # no pkg-config file for MPI: the flags FindMPI found (not relocatable, but correct)
  foreach(_d IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND GAEA_PC_EXTRA_CFLAGS " -I${_d}")
  endforeach()
  foreach(_l IN LISTS MPI_C_LIBRARIES)
    string(APPEND GAEA_PC_EXTRA_LIBS " ${_l}")
  endforeach()
endif()
if(_gaea_pc_hdf5)
  string(APPEND GAEA_PC_REQUIRES ", ${_gaea_pc_hdf5}")
else()
  foreach(_l IN LISTS HDF5_C_LIBRARIES)
    string(APPEND GAEA_PC_EXTRA_LIBS " ${_l}")
  endforeach()
endif()

# -l flags in link order: a module before the modules it depends on (the reverse of the order
# gaea_add_module registered them in).
get_property(_gaea_modules GLOBAL PROPERTY GAEA_MODULES)
set(GAEA_PC_LIBS "")
foreach(_t IN LISTS _gaea_modules)
  get_target_property(_type ${_t} TYPE)
  # The GA C and Fortran APIs have their own files (gaea-ga.pc, gaea-ga-fortran*.pc): C++
  # consumers of gaea.pc do not link them.
  if(NOT _type STREQUAL "INTERFACE_LIBRARY" AND NOT _t MATCHES "^gaea_ga_compat")
    set(GAEA_PC_LIBS "-l${_t} ${GAEA_PC_LIBS}")
  endif()
endforeach()
string(STRIP "${GAEA_PC_LIBS}" GAEA_PC_LIBS)

# The install directories relative to the prefix (gaea.pc lives in <libdir>/pkgconfig).
file(RELATIVE_PATH GAEA_PC_PREFIX_FROM_PCDIR "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
file(RELATIVE_PATH GAEA_PREFIX_FROM_BINDIR "/p/${CMAKE_INSTALL_BINDIR}" "/p")
string(REGEX REPLACE "/$" "" GAEA_PC_PREFIX_FROM_PCDIR "${GAEA_PC_PREFIX_FROM_PCDIR}")
string(REGEX REPLACE "/$" "" GAEA_PREFIX_FROM_BINDIR "${GAEA_PREFIX_FROM_BINDIR}")

# Shared libraries: programs linked with these flags find them without LD_LIBRARY_PATH.
set(GAEA_PC_RPATH "")
if(BUILD_SHARED_LIBS)
  set(GAEA_PC_RPATH " -Wl,-rpath,\${libdir}")
endif()

# What `gaea-config --config` prints: the build and the versions it was built against.
set(GAEA_CONFIG_SUMMARY
"Gaea ${PROJECT_VERSION}
build type       ${CMAKE_BUILD_TYPE}
C++ compiler     ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} (${CMAKE_CXX_COMPILER})
C++ standard     20
options          BUILD_SHARED_LIBS=${BUILD_SHARED_LIBS} GAEA_BUILD_APPS=${GAEA_BUILD_APPS} GAEA_BUILD_BENCH=${GAEA_BUILD_BENCH} GAEA_BUILD_TESTS=${GAEA_BUILD_TESTS} GAEA_WARNINGS_AS_ERRORS=${GAEA_WARNINGS_AS_ERRORS}
libraries        ${GAEA_PC_LIBS}
MPI              ${_gaea_pc_mpi} ${_gaea_pc_mpi_VERSION} (MPI standard ${MPI_C_VERSION})
UCX              ${UCX_VERSION}
hwloc            ${HWLOC_VERSION}
oneTBB           ${TBB_VERSION}
HDF5             ${HDF5_VERSION} (pkg-config ${_gaea_pc_hdf5})
Eigen            ${Eigen3_VERSION}
GA linear algebra ${GAEA_GA_LINALG}
nlohmann-json    ${nlohmann_json_VERSION}")

# gaea-ga.pc: ScaLAPACK by file name when the GA C API's linear algebra uses it.
set(GAEA_GA_PC_EXTRA_LIBS "")
if(GAEA_GA_LINALG STREQUAL "ScaLAPACK")
  get_filename_component(_gaea_sl "${GAEA_SCALAPACK_LIBRARY}" NAME_WE)
  string(REGEX REPLACE "^lib" "" _gaea_sl "${_gaea_sl}")
  set(GAEA_GA_PC_EXTRA_LIBS " -l${_gaea_sl}")
  unset(_gaea_sl)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gaea.pc.in ${PROJECT_BINARY_DIR}/gaea.pc @ONLY)
if(TARGET gaea_ga_compat)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/gaea-ga.pc.in ${PROJECT_BINARY_DIR}/gaea-ga.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/gaea-ga.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT library)
endif()
# GA's Fortran API: gaea-ga-fortran.pc (default INTEGER) and gaea-ga-fortran-i8.pc
# (-fdefault-integer-8, which its flags carry).
foreach(_suffix "" "_i8")
  if(NOT TARGET gaea_ga_compat_fortran${_suffix})
    continue()
  endif()
  set(GAEA_PC_FORTRAN_LIB gaea_ga_compat_fortran${_suffix})
  set(GAEA_PC_FORTRAN_FLAGS "")
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
    set(GAEA_PC_FORTRAN_FLAGS "-fno-aggressive-loop-optimizations")
  endif()
  if(_suffix STREQUAL "_i8")
    set(GAEA_PC_FORTRAN_NAME gaea-ga-fortran-i8)
    set(GAEA_PC_FORTRAN_INTS "8-byte default INTEGER (-fdefault-integer-8, as NWChem builds GA)")
    string(APPEND GAEA_PC_FORTRAN_FLAGS " -fdefault-integer-8")
  else()
    set(GAEA_PC_FORTRAN_NAME gaea-ga-fortran)
    set(GAEA_PC_FORTRAN_INTS "4-byte default INTEGER")
  endif()
  string(STRIP "${GAEA_PC_FORTRAN_FLAGS}" GAEA_PC_FORTRAN_FLAGS)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/gaea-ga-fortran.pc.in
                 ${PROJECT_BINARY_DIR}/${GAEA_PC_FORTRAN_NAME}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${GAEA_PC_FORTRAN_NAME}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gaea-config.in ${PROJECT_BINARY_DIR}/gaea-config @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gaea.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT library)
install(PROGRAMS ${PROJECT_BINARY_DIR}/gaea-config DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT library)
