# Third-party dependencies, all from Debian 12 packages (see scripts/install-deps.sh).
# On clusters, point CMake at module-provided MPI/UCX with MPI_HOME / UCX_ROOT (see docs/clusters.md).
# The minimum versions, one home: the build, GaeaConfig.cmake and gaea.pc require the same.
set(GAEA_MPI_MIN_VERSION 3.1)
set(GAEA_UCX_MIN_VERSION 1.12)
set(GAEA_HWLOC_MIN_VERSION 2.0)
set(GAEA_EIGEN3_MIN_VERSION 3.3)
find_package(MPI ${GAEA_MPI_MIN_VERSION} REQUIRED COMPONENTS C)
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

if(DEFINED UCX_ROOT OR DEFINED ENV{UCX_ROOT})
  set(_gaea_ucx_root "${UCX_ROOT}")
  if(NOT _gaea_ucx_root)
    set(_gaea_ucx_root "$ENV{UCX_ROOT}")
  endif()
  list(PREPEND CMAKE_PREFIX_PATH "${_gaea_ucx_root}")
  set(ENV{PKG_CONFIG_PATH} "${_gaea_ucx_root}/lib/pkgconfig:${_gaea_ucx_root}/lib64/pkgconfig:$ENV{PKG_CONFIG_PATH}")
endif()
pkg_check_modules(UCX REQUIRED IMPORTED_TARGET ucx>=${GAEA_UCX_MIN_VERSION})
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=${GAEA_HWLOC_MIN_VERSION})
find_package(Eigen3 ${GAEA_EIGEN3_MIN_VERSION} REQUIRED NO_MODULE)
find_package(TBB REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
include(GaeaFindDense)
if(_gaea_dense_missing)
  message(FATAL_ERROR "Gaea needs ${_gaea_dense_missing} (Debian: libopenblas-dev liblapacke-dev; "
                      "scripts/install-deps.sh --library), or GAEA_OPENBLAS_LIBRARY / "
                      "GAEA_LAPACKE_LIBRARY pointing at them")
endif()

# ScaLAPACK for the GA C API's linear algebra, optional: without it rank 0 solves with Eigen.
# GAEA_GA_LINALG names the choice (gaea-config --config, gaea-info).
set(GAEA_GA_LINALG "Eigen on rank 0")
if(GAEA_WITH_SCALAPACK)
  include(GaeaFindScalapack)
  if(TARGET Gaea::scalapack)
    set(GAEA_GA_LINALG "ScaLAPACK")
    message(STATUS "GA C API linear algebra: ScaLAPACK (${GAEA_SCALAPACK_LIBRARY})")
  else()
    message(STATUS "GA C API linear algebra: ScaLAPACK not found (Debian: "
                   "libscalapack-openmpi-dev); Eigen on rank 0")
  endif()
else()
  message(STATUS "GA C API linear algebra: Eigen on rank 0 (GAEA_WITH_SCALAPACK=OFF)")
endif()

# OTF2 (GAEA_TRACE=*.otf2), optional: on by default; off, the other trace formats remain.
if(GAEA_WITH_OTF2)
  find_path(GAEA_OTF2_INCLUDE_DIR otf2/otf2.h)
  find_library(GAEA_OTF2_LIBRARY otf2)
  if(NOT GAEA_OTF2_INCLUDE_DIR OR NOT GAEA_OTF2_LIBRARY)
    message(FATAL_ERROR "GAEA_WITH_OTF2=ON but OTF2 was not found (Debian: libotf2-trace-dev, "
                        "scripts/install-deps.sh --library). Install it, point CMAKE_PREFIX_PATH at "
                        "an OTF2 3.x, or configure with -DGAEA_WITH_OTF2=OFF (GAEA_TRACE then "
                        "writes .json and .h5 traces only)")
  endif()
  message(STATUS "OTF2 traces: ${GAEA_OTF2_LIBRARY}")
else()
  message(STATUS "OTF2 traces: off (GAEA_WITH_OTF2=OFF)")
endif()
