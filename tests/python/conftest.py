"""pytest under mpirun: every rank runs every test in the same order (the collective calls match);
a test that fails on one rank is reported failed on every rank, so all ranks agree."""

import gaea
import pytest

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
