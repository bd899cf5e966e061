#!/usr/bin/env python3
"""Where a JMH fork's threads spend each decision: running, or runnable and waiting for a core.

Runs a JMH command, notes when each iteration's rate is printed, and every 0.25 s reads
/proc/<pid>/task/*/schedstat of its forked JVM (the process running JMH's ForkedMain): each
thread's time on a CPU, its time runnable but waiting for one, and how many times it was
scheduled (Linux only). At the end it prints, per measurement iteration but the last, the
decisions per second JMH reported and, per group of threads (by name), the microseconds running
and waiting and the times scheduled per decision. Use one fork (-f 1) in throughput mode; the
groups are the Ignite benchmark's threads (GROUPS).

Usage: jmh/thread-schedstat.py -- java -cp "$CP" org.openjdk.jmh.Main IgniteBenchmark \\
           -p impl=SLUICE_TOKEN_BUCKET -p keys=HOT -p limits=SINGLE -t 1 -f 1 -wi 0 -i 10 -r 2s \\
           -jvmArgsAppend "$J"
"""
import glob
import re
import sys
import threading
import time

from jmh_run import run_jmh

# Thread names (Linux keeps their first 15 characters) by group, in the order printed: JMH's
# thread, Sluice's sending thread (sluice-grid-<n>-send-1), Ignite's stripes and NIO workers, the JIT.
GROUPS = [("caller", r"io\.sluice\.jmh"), ("sender", r"sluice-grid-\d+-s"), ("stripes", r"sys-stripe"),
          ("nio", r"grid-nio-worker"), ("jit", r"C[12] CompilerThre")]
PERIOD = 0.25


def fork_pid():
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            if b"ForkedMain" in open(cmdline, "rb").read():
                return cmdline.split("/")[2]
        except OSError:
            pass
    return None


def sample(samples, done):
    """Appends (time, {tid: (name, run ns, wait ns, times scheduled)}) until done is set."""
    pid = None
    while not done.is_set():
        if pid is None or not glob.glob(f"/proc/{pid}"):
            pid = fork_pid()
            if pid is None:
                time.sleep(0.05)
                continue
        threads = {}
        for task in glob.glob(f"/proc/{pid}/task/*"):
            try:
                name = open(task + "/comm").read().strip()
                run, wait, scheduled = (int(field) for field in open(task + "/schedstat").read().split()[:3])
            except (OSError, ValueError):
                continue
            threads[task.rsplit("/", 1)[1]] = (name, run, wait, scheduled)
        samples.append((time.time(), threads))
        time.sleep(PERIOD)


def group(name):
    for label, pattern in GROUPS:
        if re.match(pattern, name):
            return label
    return "other"


def report(samples, iterations):
    labels = list(dict.fromkeys(label for label, _ in GROUPS)) + ["other"]
    print("iteration  decisions/s  " + "  ".join(f"{label}: run/wait us (scheduled)" for label in labels))
    # JMH prints the last iteration's rate only after the trial's tear-down (the servers stopped),
    # so no window of samples ends with it: it is left out.
    for end, number, rate, seconds in iterations[:-1]:
        before = min(samples, key=lambda s: abs(s[0] - (end - seconds)))
        after = min(samples, key=lambda s: abs(s[0] - end))
        decisions = rate * (after[0] - before[0])
        if decisions <= 0:
            continue
        totals = {label: [0, 0, 0] for label in labels}
        for tid, (name, run, wait, scheduled) in after[1].items():
            if tid in before[1]:
                _, run0, wait0, scheduled0 = before[1][tid]
                total = totals[group(name)]
                total[0] += run - run0
                total[1] += wait - wait0
                total[2] += scheduled - scheduled0
        cells = "  ".join(f"{t[0] / decisions / 1000:.1f}/{t[1] / decisions / 1000:.1f} ({t[2] / decisions:.2f})"
                          for t in (totals[label] for label in labels))
        print(f"{number:>9}  {rate:>11,.0f}  {cells}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "--":
        sys.exit(__doc__)
    samples, done = [], threading.Event()
    sampler = threading.Thread(target=sample, args=(samples, done), daemon=True)
    sampler.start()
    iterations, code = run_jmh(sys.argv[2:])
    done.set()
    sampler.join()
    report(samples, iterations)
    sys.exit(code)


if __name__ == "__main__":
    main()
