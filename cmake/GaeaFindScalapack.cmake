# ScaLAPACK (with its BLACS) as the imported target Gaea::scalapack, for the GA C API's linear
# algebra (framework/ga_compat: GA_Diag*, GA_Solve, GA_Lu_solve, GA_Llt_solve, GA_Spd_invert).
# Optional: without it those calls solve on rank 0 with Eigen. Included by the build and by the
# installed GaeaConfig.cmake (by library name, so the package stays relocatable).
# Debian: libscalapack-openmpi-dev.
include_guard(GLOBAL)
if(NOT TARGET Gaea::scalapack)
  find_library(GAEA_SCALAPACK_LIBRARY NAMES scalapack-openmpi scalapack
               DOC "ScaLAPACK for the GA C API's parallel linear algebra")
  mark_as_advanced(GAEA_SCALAPACK_LIBRARY)
  if(GAEA_SCALAPACK_LIBRARY)
    add_library(Gaea::scalapack UNKNOWN IMPORTED)
    set_target_properties(Gaea::scalapack PROPERTIES
                          IMPORTED_LOCATION "${GAEA_SCALAPACK_LIBRARY}")
  endif()
endif()
