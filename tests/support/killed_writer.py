"""A writer killed mid-way, for the crash tests: a Python script run in its own process, which
prints the id of the job it began and then waits; it is killed (SIGKILL, no clean-up of any
kind) as soon as the id is read, so the job is left exactly where the script stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys


def job_id_of_killed_writer(script: str, *arguments: str) -> str:
    """Runs `script` with `arguments`, reads the job id it prints, kills it; returns the id."""
    process = subprocess.Popen(
        [sys.executable, "-c", script, *arguments],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
    )
    assert process.stdout is not None
    job_id = process.stdout.readline().strip()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return job_id
