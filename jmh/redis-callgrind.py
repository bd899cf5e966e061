#!/usr/bin/env python3
"""Instructions redis-server runs per Redis-store decision, counted by valgrind's callgrind.

A redis-server (the one on the PATH) runs under callgrind; the script loads the decision's Lua
(the library of functions, or the script), sends 200 decisions to warm up, zeroes the counters
(callgrind_control -z), sends N decisions pipelined through redis-cli --pipe, each for a new
client with one limit of 100 per second (burst 100), and dumps the counters (callgrind_control
-d): every instruction of the server for those N commands, its network reads and writes
included, divided by N. Counts are deterministic for the same binary and input, whatever else
the machine runs.

Usage: jmh/redis-callgrind.py MODE ALGORITHM N LUA_DIR [FLOOR_SCRIPT]
  MODE       fcall        FCALL of the library (store-redis on Redis 7 and later)
             evalsha      EVALSHA of decide's script (store-redis on Redis 6.2)
             evalsha-v1   EVALSHA of a store-redis before issue 10's Functions pass: ARGV of
                          decimal strings, a schema-1 key per limit, a reply of integers
             floor        EVALSHA of jmh's token-bucket-floor.lua (FLOOR_SCRIPT)
  ALGORITHM  token-bucket or gcra (ignored by floor)
  LUA_DIR    store-redis/src/main/resources/io/sluice/store/redis of the tree to measure
"""
import hashlib
import os
import socket
import struct
import subprocess
import sys
import time

mode, algorithm, count, lua_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
port = 17000 + os.getpid() % 1000
out = f"/tmp/redis-callgrind.{mode}.{algorithm}.{os.getpid()}"
algorithm_id = {"token-bucket": 4, "gcra": 5}.get(algorithm, 0)
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

if mode == "fcall":
    template = lua("library-header.lua", *algorithms, "decide.lua", "lease.lua", "give-back.lua",
                   "library-footer.lua")
    version = hashlib.sha1(template.encode()).hexdigest()[:16]
    reply = query(resp("FUNCTION", "LOAD", "REPLACE", template.replace("${version}", version)))
    assert not reply.startswith(b"-"), reply
    called = f"sluice_{version}_decide"
else:
    body = {"evalsha": lambda: lua(*algorithms, "decide.lua", "script-decide.lua"),
            "evalsha-v1": lambda: lua(*algorithms, "decide.lua"),
            "floor": lambda: open(sys.argv[5], encoding="utf-8").read()}[mode]()
    reply = query(resp("SCRIPT", "LOAD", body))
    assert reply.startswith(b"$40"), reply
    called = hashlib.sha1(body.encode()).hexdigest()


def decision(i, prefix):
    key = f"sluice{{{prefix}{i:016d}xxxxx}}"
    if mode == "floor":
        return resp("EVALSHA", called, 1, key, 100, 10000, 1)
    if mode == "evalsha-v1":
        return resp("EVALSHA", called, 2, key, f"sluice:v1:{{{prefix}{i:016d}xxxxx}}:per-second", "redis", 1,
                    "per-second", algorithm_id, 100, 100, 1000000)
    numbers = msgpack_integers([0, algorithm_id, 100, 100, 1000000])
    return resp("FCALL" if mode == "fcall" else "EVALSHA", called, 1, key, "redis", 1, numbers, "per-second")


def send(prefix, n):
    piped = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], capture_output=True,
                           input=b"".join(decision(i, prefix) for i in range(n)))
    assert b"errors: 0" in piped.stdout, piped.stdout


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
print(f"{mode} {algorithm}: {total:,} instructions for {count:,} decisions, {total / count:,.0f} per decision")
