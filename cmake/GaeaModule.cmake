# gaea_add_module(<name> SOURCES <file>... [PUBLIC <dep>...] [PRIVATE <dep>...])
#
# One framework folder = one library, declared the same way everywhere: target gaea_<name>
# (alias gaea::<name>, file libgaea_<name>, exported as gaea::<name>), public headers from
# include/ (installed as the "library" component), private headers from src/ (src/detail/),
# C++20, the project's warning set, and registration for export (GaeaInstall.cmake installs
# every registered module and lists them in gaea.pc in link order).
# Modules must be added in dependency order (a module after everything it links).
include_guard(GLOBAL)

function(gaea_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 M "" "" "SOURCES;PUBLIC;PRIVATE")
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gaea_add_module(${name}): unknown arguments ${M_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT M_SOURCES)
    message(FATAL_ERROR "gaea_add_module(${name}): no SOURCES")
  endif()
  set(t gaea_${name})
  add_library(${t} ${M_SOURCES})
  add_library(gaea::${name} ALIAS ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME gaea_${name})
  target_include_directories(${t} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_features(${t} PUBLIC cxx_std_20)
  target_link_libraries(${t} PUBLIC ${M_PUBLIC} PRIVATE ${M_PRIVATE})
  gaea_set_warnings(${t})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT library)
  set_property(GLOBAL APPEND PROPERTY GAEA_MODULES ${t})
endfunction()
