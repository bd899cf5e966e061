"""Runs a JMH command for the probes beside it (thread-schedstat.py, member-thread-cpu.py)."""
import re
import subprocess
import sys
import time


def run_jmh(command):
    """Runs a JMH command, echoing its output, and returns (measurement iterations, exit code).

    Each measurement iteration is (when its rate was printed, its number, decisions/s, its
    seconds); warm-ups are left out. A rate JMH prints on a line of its own (after a line that a
    library wrote into the iteration's) counts for the iteration last named.
    """
    iterations, seconds, number = [], None, None
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        sys.stdout.write(line)
        found = re.search(r"# Measurement: \d+ iterations, (\d+) s each", line)
        if found:
            seconds = float(found.group(1))
        if line.lstrip().startswith(("#", "Result")):
            if "Iteration" in line:
                number = None  # a warm-up's: a rate on a line of its own is not a measurement's
            continue
        found = re.match(r"Iteration +(\d+):", line)
        if found:
            number = int(found.group(1))
        found = re.search(r"(?:^|: )([\d.,]+) ops/s", line)
        if found and seconds and number:
            iterations.append((time.time(), number, float(found.group(1).replace(",", "")), seconds))
    process.wait()
    return iterations, process.returncode
