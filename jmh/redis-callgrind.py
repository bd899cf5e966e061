#!/usr/bin/env python3
"""Instructions redis-server runs per Redis-store decision, counted by valgrind's callgrind.

A redis-server (the one on the PATH) runs under callgrind; the script loads the decision's Lua
(the library of functions, or the script), sends 200 decisions to warm up, zeroes the counters
(callgrind_control -z), sends N decisions pipelined through redis-cli --pipe, each for a new
client with one limit of 100 per second (burst 100) or the three limits of the mission, and dumps the counters (callgrind_control
-d): every instruction of the server for those N commands, its network reads and writes
included, divided by N. Counts are deterministic for the same binary and input, whatever else
the machine runs.

Usage: jmh/redis-callgrind.py MODE ALGORITHM N LUA_DIR [FLOOR_SCRIPT]
  MODE       fcall        FCALL of the library (store-redis on Redis 7 and later)
             evalsha      EVALSHA of decide's script (store-redis on Redis 6.2)
             evalsha-v1   EVALSHA of a store-redis before issue 10's Functions pass: ARGV of
                          decimal strings, a schema-1 key per limit, a reply of integers
             floor        EVALSHA of jmh's token-bucket-floor.lua (FLOOR_SCRIPT)
             fcall-lease, evalsha-lease
                          a lease of at most 10 tokens instead of a decision (Redis TIME)
             fcall-give-back, evalsha-give-back
                          a give-back of 5 unused tokens of a lease of 10, each client's lease
                          taken before the counters are zeroed; both on the test-only clock
                          ('test:<micros>', one instant), so that every give-back writes
  ALGORITHM  token-bucket, gcra, fixed-window or sliding-log: one limit of 100 per second;
             mission: the jmh module's MISSION shape (LimitShape), a token bucket of 100 per
             second, a fixed window of 1,000,000 per day and a token bucket of 1,000 per minute
             (decisions only; fcall and evalsha); ignored by floor
  LUA_DIR    store-redis/src/main/resources/io/sluice/store/redis of the tree to measure

A lease's and a give-back's limits are sent as LUA_DIR's lease.lua reads them: one MessagePack
argument and the names when it or script-lease.lua calls cmsgpack.unpack, else five decimal
arguments per limit (a store-redis before the leases' MessagePack pass), so one command
measures either tree.
"""
import hashlib
import os
import socket
import struct
import subprocess
import sys
import time

mode, algorithm, count, lua_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
call, _, operation = mode.partition("-")
operation = operation if operation in ("lease", "give-back") else "decide"
port = 17000 + os.getpid() % 1000
out = f"/tmp/redis-callgrind.{mode}.{algorithm}.{os.getpid()}"
algorithm_id = {"fixed-window": 1, "sliding-log": 2, "token-bucket": 4, "gcra": 5}.get(algorithm, 0)
# The limits of a decision: name, algorithm id, permits, burst, period in microseconds.
limits = [("per-second", algorithm_id, 100, 100, 1000000)]
if algorithm == "mission":
    limits = [("per-second", 4, 100, 100, 1000000), ("per-day", 1, 1000000, 1000000, 86400000000),
              ("endpoint-cost", 4, 1000, 1000, 60000000)]
algorithms = ["common.lua", "fixed-window.lua", "sliding-log.lua", "sliding-window-counter.lua",
              "token-bucket.lua", "gcra.lua"]


def resp(*args):
    command = b"*%d\r\n" % len(args)
    for arg in args:
        arg = arg if isinstance(arg, bytes) else str(arg).encode()
        command += b"$%d\r\n%s\r\n" % (len(arg), arg)
    return command


def lua(*resources):
    # As LuaLibrary.read: each file after the first behind a comment that names it.
    text = ""
    for resource in resources:
        if text:
            text += "-- " + resource + "\n"
        text += open(os.path.join(lua_dir, resource), encoding="utf-8").read() + "\n"
    return text


def msgpack_integers(values):
    packed = bytes([0x90 | len(values)])
    for value in values:
        if value < 128:
            packed += bytes([value])
        elif value < 1 << 8:
            packed += b"\xcc" + struct.pack(">B", value)
        elif value < 1 << 16:
            packed += b"\xcd" + struct.pack(">H", value)
        elif value < 1 << 32:
            packed += b"\xce" + struct.pack(">I", value)
        else:
            packed += b"\xcf" + struct.pack(">Q", value)
    return packed


def query(command):
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(command)
        reply = b""
        while not reply.endswith(b"\r\n"):
            chunk = connection.recv(65536)
            if not chunk:
                break
            reply += chunk
        return reply


server = subprocess.Popen(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "redis-server",
                           "--port", str(port), "--save", "", "--appendonly", "no"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(600):
    try:
        if query(resp("PING")).startswith(b"+PONG"):
            break
    except OSError:
        time.sleep(0.2)

if call == "fcall":
    template = lua("library-header.lua", *algorithms, "decide.lua", "lease.lua", "give-back.lua",
                   "library-footer.lua")
    version = hashlib.sha1(template.encode()).hexdigest()[:16]
    reply = query(resp("FUNCTION", "LOAD", "REPLACE", template.replace("${version}", version)))
    assert not reply.startswith(b"-"), reply
    function_of = {"decide": "decide", "lease": "lease", "give-back": "give_back"}
    called = f"sluice_{version}_{function_of[operation]}"
    taken = f"sluice_{version}_lease"
else:
    leasable = ["common.lua", "fixed-window.lua", "sliding-window-counter.lua", "token-bucket.lua", "gcra.lua"]
    body = {"evalsha": lambda: lua(*algorithms, "decide.lua", "script-decide.lua"),
            "evalsha-lease": lambda: lua(*leasable, "lease.lua", "script-lease.lua"),
            "evalsha-give-back": lambda: lua("common.lua", "give-back.lua", "script-give-back.lua"),
            "evalsha-v1": lambda: lua(*algorithms, "decide.lua"),
            "floor": lambda: open(sys.argv[5], encoding="utf-8").read()}[mode]()
    reply = query(resp("SCRIPT", "LOAD", body))
    assert reply.startswith(b"$40"), reply
    called = hashlib.sha1(body.encode()).hexdigest()
    if operation == "give-back":
        lease_body = lua(*leasable, "lease.lua", "script-lease.lua")
        assert query(resp("SCRIPT", "LOAD", lease_body)).startswith(b"$40")
        taken = hashlib.sha1(lease_body.encode()).hexdigest()

message_pack_leases = any("cmsgpack.unpack" in open(os.path.join(lua_dir, resource), encoding="utf-8").read()
                          for resource in ("lease.lua", "script-lease.lua"))
# The give-backs' one instant, on the test-only clock.
instant = 1_000_000_000_000


def lease_limits():
    if message_pack_leases:
        return [msgpack_integers([0, algorithm_id, 100, 100, 1000000]), "per-second"]
    return ["per-second", algorithm_id, 100, 100, 1000000]


def lease(i, prefix, clock):
    key = f"sluice{{{prefix}{i:016d}xxxxx}}"
    command = "FCALL" if call == "fcall" else "EVALSHA"
    return resp(command, called if operation == "lease" else taken, 1, key, clock, 10, *lease_limits())


def give_back(i, prefix):
    key = f"sluice{{{prefix}{i:016d}xxxxx}}"
    return resp("FCALL" if call == "fcall" else "EVALSHA", called, 1, key, f"test:{instant}", 5, instant,
                *lease_limits())


def decision(i, prefix):
    if operation == "lease":
        return lease(i, prefix, "redis")
    if operation == "give-back":
        return give_back(i, prefix)
    key = f"sluice{{{prefix}{i:016d}xxxxx}}"
    if mode == "floor":
        return resp("EVALSHA", called, 1, key, 100, 10000, 1)
    if mode == "evalsha-v1":
        return resp("EVALSHA", called, 2, key, f"sluice:v1:{{{prefix}{i:016d}xxxxx}}:per-second", "redis", 1,
                    "per-second", algorithm_id, 100, 100, 1000000)
    numbers = msgpack_integers([0] + [number for limit in limits for number in limit[1:]])
    # Each sliding-log limit's list, after the client's key (decide.lua's KEYS).
    keys = [key] + [f"{key}:log:{limit[0]}" for limit in limits if limit[1] == 2]
    return resp("FCALL" if mode == "fcall" else "EVALSHA", called, len(keys), *keys, "redis", 1, numbers,
                *(limit[0] for limit in limits))


def send(prefix, n, command=decision):
    piped = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], capture_output=True,
                           input=b"".join(command(i, prefix) for i in range(n)))
    assert b"errors: 0" in piped.stdout, piped.stdout


def given_lease(i, prefix):
    return lease(i, prefix, f"test:{instant}")


if operation == "give-back":
    # The leases given back, not counted.
    send("w", 200, given_lease)
    send("m", count, given_lease)
send("w", 200)
subprocess.run(["callgrind_control", "-z", str(server.pid)], capture_output=True)
send("m", count)
subprocess.run(["callgrind_control", "-d", str(server.pid)], capture_output=True)
time.sleep(1)
try:
    query(resp("SHUTDOWN", "NOSAVE"))
except OSError:
    pass
server.wait()
with open(out + ".1") as dump:
    total = next(int(line.split()[1]) for line in dump if line.startswith("summary:"))
calls = {"decide": "decisions", "lease": "leases", "give-back": "give-backs"}[operation]
print(f"{mode} {algorithm}: {total:,} instructions for {count:,} {calls}, {total / count:,.0f} per {calls[:-1]}")
