#!/usr/bin/env python3
"""Each second of a Hazelcast benchmark, the CPU of the owner member's IO and partition threads.

Runs a JMH command of HazelcastBenchmark (one fork), attaches Java Flight Recorder to the member
JVM the benchmark starts (HazelcastMemberProcess, the keys' owner) with only jdk.ThreadCPULoad
every second, and dumps the recording every few seconds (the fork stops the member at its end).
It then prints, per second, the share of a core taken by the owner's IO output threads, IO input
threads and partition threads, with JMH's rate of the iteration that ended in that second, and
the iterations (from the third) grouped by whether the IO output threads wrote in both of their
two seconds (above 5% of a core) or in neither (below 1%): whether the owner wrote the answers on
its partition thread or handed them to its IO output thread (Hazelcast's write-through,
benchmarks-history.md). Use 2 s iterations (-r 2s).

Usage: jmh/member-thread-cpu.py <recording.jfr> -- java -cp "$CP" org.openjdk.jmh.Main HazelcastBenchmark \\
           -p impl=SLUICE_TOKEN_BUCKET -p keys=HOT -p limits=SINGLE -t 1 -f 1 -wi 0 -i 30 -r 2s \\
           -bm thrpt -jvmArgsAppend "$JH"
"""
import collections
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from jmh_run import run_jmh

GROUPS = [("io-out", "thread-out"), ("io-in", "thread-in"), ("partition", "partition-operation")]
SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="thread CPU every second">
  <event name="jdk.ThreadCPULoad"><setting name="enabled">true</setting><setting name="period">1 s</setting></event>
</configuration>
"""


def member_pid():
    found = subprocess.run(["pgrep", "-f", "HazelcastMemberProcess"], capture_output=True, text=True).stdout.split()
    return found[0] if found else None


def record(recording, settings, done):
    """Starts the recording in the member once it runs, and dumps it every 2 s until done is set."""
    pid = None
    while pid is None and not done.is_set():
        pid = member_pid()
        time.sleep(0.2)
    if pid is None:
        return
    # The member may not take an attach yet in its first moments: try until it started recording.
    while not done.is_set() and "Started recording" not in subprocess.run(
            ["jcmd", pid, "JFR.start", "name=member-threads", "settings=" + settings],
            capture_output=True, text=True).stdout:
        time.sleep(0.5)
    while not done.wait(2):
        subprocess.run(["jcmd", pid, "JFR.dump", "name=member-threads", "filename=" + recording], capture_output=True)


def per_second(recording):
    """{'HH:MM:SS': Counter(group -> % of a core)} from the recording's jdk.ThreadCPULoad events."""
    text = subprocess.run(["jfr", "print", "--events", "jdk.ThreadCPULoad", recording],
                          capture_output=True, text=True).stdout
    seconds = collections.OrderedDict()
    for event in text.split("jdk.ThreadCPULoad {")[1:]:
        second = re.search(r"startTime = (\d\d:\d\d:\d\d)", event).group(1)
        thread = re.search(r'eventThread = "([^"]*)"', event).group(1)
        load = sum(float(share) for share in re.findall(r"(?:user|system) = ([\d.]+)%", event))
        for label, pattern in GROUPS:
            if pattern in thread:
                seconds.setdefault(second, collections.Counter())[label] += load
    return seconds


def report(seconds, rates):
    print("second    " + "  ".join(f"{label:>9}" for label, _ in GROUPS) + "  iteration ended, decisions/s")
    keys = list(seconds)
    writing = {"in both seconds": [], "in neither": []}
    for index, second in enumerate(keys):
        loads = seconds[second]
        rate = rates.get(second)
        print(second + "  " + "  ".join(f"{loads[label]:8.1f}%" for label, _ in GROUPS)
              + (f"  {rate[0]:>3}: {rate[1]:,.0f}" if rate else ""))
        if rate and rate[0] >= 3 and index > 0:
            out = (seconds[keys[index - 1]]["io-out"], loads["io-out"])
            if min(out) > 5:
                writing["in both seconds"].append(rate[1])
            elif max(out) < 1:
                writing["in neither"].append(rate[1])
    for mode, figures in writing.items():
        if figures:
            print(f"IO output threads writing {mode}: {len(figures)} iterations, "
                  f"{min(figures):,.0f} to {max(figures):,.0f} decisions/s")


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    recording = os.path.abspath(sys.argv[1])
    with tempfile.NamedTemporaryFile("w", suffix=".jfc", delete=False) as settings:
        settings.write(SETTINGS)
    done = threading.Event()
    recorder = threading.Thread(target=record, args=(recording, settings.name, done), daemon=True)
    recorder.start()
    iterations, code = run_jmh(sys.argv[3:])
    rates = {time.strftime("%H:%M:%S", time.localtime(ended)): (number, rate) for ended, number, rate, _ in iterations}
    done.set()
    recorder.join()
    os.unlink(settings.name)
    seconds = per_second(recording)
    if not seconds:
        print(f"no thread CPU recorded in {recording}: no HazelcastMemberProcess, or jcmd or jfr failed",
              file=sys.stderr)
    report(seconds, rates)
    sys.exit(code)


if __name__ == "__main__":
    main()
