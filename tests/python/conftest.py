"""pytest under mpirun: every rank runs every test in the same order (the collective calls match);
a test that fails on one rank is reported failed on every rank, so all ranks agree."""

import os
import sys
from pathlib import Path

import pytest

try:
    import gaea
except ImportError:  # not on PYTHONPATH: the build tree of scripts/build.sh, or GAEA_BUILD_DIR's
    build = Path(os.environ.get("GAEA_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
    sys.path.insert(0, str(build / "python"))
    import gaea

gaea.init()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not gaea.initialized():
        return
    failed_here = 1 if report.failed else 0
    failed_anywhere = gaea.allreduce(failed_here, "max")
    if failed_anywhere and not failed_here:
        report.outcome = "failed"
        report.longrepr = f"failed on another rank (this is rank {gaea.rank()})"
