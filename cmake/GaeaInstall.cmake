# Installation and package export: `cmake --install <build> --prefix <p>` produces
#   <p>/include/gaea/...                       public headers (installed by each framework/*)
#   <p>/lib/libgaea_*.a                         the libraries
#   <p>/lib/cmake/Gaea/GaeaConfig.cmake         find_package(Gaea) entry point
#   <p>/lib/cmake/Gaea/GaeaConfigVersion.cmake  SameMajorVersion compatibility
#   <p>/lib/cmake/Gaea/GaeaTargets*.cmake       imported targets gaea::base, ..., gaea::gaea
#   <p>/lib/pkgconfig/gaea.pc                   pkg-config --cflags --libs gaea
#   <p>/bin/gaea-config                         --cflags --libs --version --config
#   <p>/bin/gaea-info                           the machine as Gaea sees it (GAEA_BUILD_APPS=ON)
#   <p>/share/modulefiles/gaea/<version>.lua    Lmod modulefile (`module use <p>/share/modulefiles`)
# all in the install component "library" (`cmake --install <build> --component library`); the
# other programs of apps/ are the component "apps". Every path is relative to <p>: a copied
# prefix works.
# Consumers: find_package(Gaea REQUIRED) then target_link_libraries(app PRIVATE gaea::gaea).
include(CMakePackageConfigHelpers)

set(GAEA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Gaea"
    CACHE STRING "Where to install GaeaConfig.cmake and the exported targets (relative to prefix)")
mark_as_advanced(GAEA_INSTALL_CMAKEDIR)

# Every module registered by gaea_add_module() (and the umbrella target) goes into the one
# export set. A target linked by an exported target must itself be exported or be an imported
# target that GaeaConfig.cmake recreates (find_dependency), otherwise install(EXPORT) fails.
get_property(_gaea_install_targets GLOBAL PROPERTY GAEA_MODULES)

install(TARGETS ${_gaea_install_targets}
        EXPORT GaeaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT library
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT GaeaTargets
        NAMESPACE gaea::
        FILE GaeaTargets.cmake
        DESTINATION ${GAEA_INSTALL_CMAKEDIR}
        COMPONENT library)

# Values substituted into GaeaConfig.cmake: the dependency versions (GAEA_*_MIN_VERSION, from
# GaeaDependencies.cmake) and the pkg-config directories UCX/HWLOC were found in (a fallback for
# the consumer when its own PKG_CONFIG_PATH does not contain them, e.g. a module-provided UCX).
set(GAEA_PKG_CONFIG_HINTS)
foreach(_mod IN ITEMS ucx hwloc)
  pkg_get_variable(_pcdir ${_mod} pcfiledir)
  if(_pcdir AND IS_DIRECTORY "${_pcdir}")
    list(APPEND GAEA_PKG_CONFIG_HINTS "${_pcdir}")
  endif()
endforeach()
list(REMOVE_DUPLICATES GAEA_PKG_CONFIG_HINTS)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/GaeaConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/GaeaConfig.cmake
  INSTALL_DESTINATION ${GAEA_INSTALL_CMAKEDIR}
  NO_SET_AND_CHECK_MACRO)

write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/GaeaConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)

install(FILES ${CMAKE_CURRENT_BINARY_DIR}/GaeaConfig.cmake
              ${CMAKE_CURRENT_LIST_DIR}/GaeaFindDense.cmake
              ${CMAKE_CURRENT_LIST_DIR}/GaeaFindScalapack.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/GaeaConfigVersion.cmake
        DESTINATION ${GAEA_INSTALL_CMAKEDIR}
        COMPONENT library)

# The license, how to cite and the changes, beside the library (share/doc/Gaea).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CITATION.cff
              ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT library)

# The Lmod modulefile. Its prefix is found from its own path (myFileName()) when the data
# directory is relative to the prefix; an absolute CMAKE_INSTALL_DATADIR falls back to the
# configured prefix. Each *_EXPR is a Lua expression: pathJoin(root, "<relative dir>") or an
# absolute path.
set(_gaea_moddir "${CMAKE_INSTALL_DATADIR}/modulefiles/gaea")
if(IS_ABSOLUTE "${_gaea_moddir}")
  set(GAEA_MODULE_ROOT_EXPR "[==[${CMAKE_INSTALL_PREFIX}]==]")
  set(GAEA_MODULE_LEVELS 0)
else()
  set(GAEA_MODULE_ROOT_EXPR "myFileName()")
  # One level for the file name, one per component of the folder.
  string(REGEX REPLACE "/+" ";" _parts "${_gaea_moddir}")
  list(REMOVE_ITEM _parts "" ".")
  list(LENGTH _parts GAEA_MODULE_LEVELS)
  math(EXPR GAEA_MODULE_LEVELS "${GAEA_MODULE_LEVELS} + 1")
endif()
if(NOT DEFINED GAEA_PYTHON_INSTALL_DIR)
  set(GAEA_PYTHON_INSTALL_DIR lib/python3/dist-packages)  # python/CMakeLists.txt's default
endif()
foreach(_kind IN ITEMS BINDIR LIBDIR PYTHONDIR)
  if(_kind STREQUAL "PYTHONDIR")
    set(_dir "${GAEA_PYTHON_INSTALL_DIR}")
  else()
    set(_dir "${CMAKE_INSTALL_${_kind}}")
  endif()
  if(IS_ABSOLUTE "${_dir}")
    set(GAEA_MODULE_${_kind}_EXPR "[==[${_dir}]==]")
  else()
    set(GAEA_MODULE_${_kind}_EXPR "pathJoin(root, [==[${_dir}]==])")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/gaea.lua.in
               ${PROJECT_BINARY_DIR}/modulefiles/gaea/${PROJECT_VERSION}.lua @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/modulefiles/gaea/${PROJECT_VERSION}.lua
        DESTINATION ${_gaea_moddir}
        COMPONENT library)

include(GaeaPkgConfig)

unset(_gaea_install_targets)
unset(_t)
unset(_mod)
unset(_pcdir)
unset(_gaea_moddir)
unset(_parts)
unset(_kind)
unset(_dir)
