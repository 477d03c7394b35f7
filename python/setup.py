"""Builds the native module with the project's CMake for `pip install` (see pyproject.toml).
GAEA_BUILD_DIR: the CMake build directory to use (default <repository>/build-pip, configured for
this interpreter in Release without tests, benchmarks and apps; an existing configured tree such
as ./build is reused as it is, for its interpreter, which must be this one's version: only the
target gaea_python is built);
GAEA_CMAKE_ARGS: more configure arguments."""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent


class build_with_cmake(build_py):
    def run(self):
        super().run()  # the pure-Python files
        build = Path(os.environ.get("GAEA_BUILD_DIR", ROOT / "build-pip")).resolve()
        configure = ["cmake", "-S", str(ROOT), "-B", str(build)]
        # A fresh tree builds for this interpreter; a reused one keeps its own (same version).
        if not (build / "CMakeCache.txt").exists():
            configure += [f"-DPython_EXECUTABLE={sys.executable}", "-DCMAKE_BUILD_TYPE=Release",
                          "-DGAEA_BUILD_TESTS=OFF", "-DGAEA_BUILD_BENCH=OFF",
                          "-DGAEA_BUILD_APPS=OFF",
                          # Gaea linked into the module: the wheel carries no other library.
                          "-DBUILD_SHARED_LIBS=OFF"]
        configure += shlex.split(os.environ.get("GAEA_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "gaea_python",
                               "-j", jobs])
        out = Path(self.build_lib) / "gaea"
        out.mkdir(parents=True, exist_ok=True)
        for f in (build / "python" / "gaea").iterdir():
            if f.suffix == ".so":
                shutil.copy2(f, out / f.name)


class binary_distribution(Distribution):
    def has_ext_modules(self):  # a platform wheel: the package holds a native module
        return True


setup(packages=["gaea"], cmdclass={"build_py": build_with_cmake}, distclass=binary_distribution)
