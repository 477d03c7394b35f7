# OpenBLAS and LAPACKE as imported targets Gaea::openblas and Gaea::lapacke, for gaea::dense.
# Included by the build (GaeaDependencies.cmake) and by the installed GaeaConfig.cmake, so that the
# exported targets name them and the package holds no absolute library path (it stays relocatable,
# and the consumer's own system libraries are used). Debian: libopenblas-dev, liblapacke-dev.
include_guard(GLOBAL)
set(_gaea_dense_missing)
foreach(_gaea_lib IN ITEMS openblas lapacke)
  string(TOUPPER "${_gaea_lib}" _gaea_up)
  if(NOT TARGET Gaea::${_gaea_lib})
    find_library(GAEA_${_gaea_up}_LIBRARY NAMES ${_gaea_lib}
                 DOC "${_gaea_lib} for gaea::dense (Eigen's BLAS and LAPACKE back-ends)")
    mark_as_advanced(GAEA_${_gaea_up}_LIBRARY)
    if(GAEA_${_gaea_up}_LIBRARY)
      add_library(Gaea::${_gaea_lib} UNKNOWN IMPORTED)
      set_target_properties(Gaea::${_gaea_lib} PROPERTIES
                            IMPORTED_LOCATION "${GAEA_${_gaea_up}_LIBRARY}")
    else()
      list(APPEND _gaea_dense_missing ${_gaea_lib})
    endif()
  endif()
endforeach()
unset(_gaea_lib)
unset(_gaea_up)
