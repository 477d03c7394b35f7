# Spack recipe for Gaea (docs/install.md#spack). Spack is not available on the machine this
# recipe was written on (no network): it is checked only for Python syntax (ctest
# package.spack_recipe runs `python3 -m py_compile` on it), never concretized or built. The
# dependencies mirror the Debian packages of scripts/install-deps.sh (--library, --apps,
# --tests, --python).
#
# No release tarball is published yet, so the version has no URL or checksum: build from a
# source tree with
#   spack repo create <repo> gaea-local && mkdir -p <repo>/packages/gaea
#   cp packaging/spack/package.py <repo>/packages/gaea/ && spack repo add <repo>
#   spack develop --path <gaea-source> gaea@0.2.0 && spack install gaea@0.2.0   (in an environment)
# When a release is published, give version() its url and sha256.
from spack.package import *


class Gaea(CMakePackage):
    """Gaea: a C++20 task-parallel PGAS framework (global arrays, shared counters, collectives
    on UCX and MPI) with the C and Fortran APIs of Global Arrays."""

    license("BSD-3-Clause")

    version("0.2.0")

    variant("shared", default=True, description="Shared libraries (BUILD_SHARED_LIBS)")
    variant("python", default=False, description="The Python package gaea (GAEA_BUILD_PYTHON)")
    variant("fortran", default=True, description="GA's Fortran API (gaea-ga-fortran)")
    variant("otf2", default=True, description="OTF2 traces (GAEA_WITH_OTF2)")
    variant(
        "scalapack",
        default=True,
        description="GA C API linear algebra on ScaLAPACK (GAEA_WITH_SCALAPACK)",
    )
    variant("apps", default=False, description="Mini-apps and tools (GAEA_BUILD_APPS)")
    variant("tests", default=False, description="The test suite (GAEA_BUILD_TESTS)")
    variant("bench", default=False, description="The benchmarks (GAEA_BUILD_BENCH)")
    variant("examples", default=False, description="One example per module (GAEA_BUILD_EXAMPLES)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type=("build", "run"))

    # The library (scripts/install-deps.sh --library); minimum versions of
    # cmake/GaeaDependencies.cmake.
    depends_on("mpi")
    depends_on("ucx@1.12:")
    depends_on("tbb")
    depends_on("hwloc@2:")
    depends_on("eigen@3.3:")
    depends_on("nlohmann-json@3.9:")
    # gaea.pc links -llapacke -lopenblas by name.
    depends_on("openblas")
    depends_on("hdf5+mpi")
    depends_on("otf2", when="+otf2")
    depends_on("netlib-scalapack", when="+scalapack")

    # The programs (gaea-info is built with the apps and installed with the library).
    depends_on("cli11", when="+apps")
    depends_on("cli11", when="+bench")
    depends_on("libint@2.7:", when="+apps")

    depends_on("catch2@2", type="build", when="+tests")

    extends("python", when="+python")
    depends_on("python@3:", type=("build", "run"), when="+python")
    depends_on("py-pybind11@2.6:", type="build", when="+python")
    depends_on("py-numpy", type=("build", "run"), when="+python")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define_from_variant("GAEA_BUILD_PYTHON", "python"),
            self.define_from_variant("GAEA_WITH_OTF2", "otf2"),
            self.define_from_variant("GAEA_WITH_SCALAPACK", "scalapack"),
            self.define_from_variant("GAEA_BUILD_APPS", "apps"),
            self.define_from_variant("GAEA_BUILD_TESTS", "tests"),
            self.define_from_variant("GAEA_BUILD_BENCH", "bench"),
            self.define_from_variant("GAEA_BUILD_EXAMPLES", "examples"),
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            self.define("MPI_CXX_COMPILER", spec["mpi"].mpicxx),
        ]
        if spec.satisfies("~fortran"):
            # CMakeLists.txt enables Fortran when check_language finds a compiler; a defined,
            # empty CMAKE_Fortran_COMPILER skips that check.
            args.append(self.define("CMAKE_Fortran_COMPILER", ""))
        if spec.satisfies("+python"):
            args.append(self.define("Python_EXECUTABLE", spec["python"].command.path))
            args.append(self.define("GAEA_PYTHON_INSTALL_DIR", spec["python"].package.platlib))
        return args

    def setup_run_environment(self, env):
        env.set("GAEA_ROOT", self.prefix)
