# Third-party dependencies, all from Debian 12 packages (see scripts/install-deps.sh).
# On clusters, point CMake at module-provided MPI/UCX with MPI_HOME / UCX_ROOT (see README).
find_package(MPI 3.1 REQUIRED COMPONENTS C)
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
pkg_check_modules(UCX REQUIRED IMPORTED_TARGET ucx>=1.12)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(TBB REQUIRED)
