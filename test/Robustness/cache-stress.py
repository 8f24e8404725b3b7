#!/usr/bin/env python3
"""Stress test of tile-run's disk cache: processes compiling the same and
different keys at once, processes killed with SIGKILL mid-write, a file-size
limit, a size cap small enough to evict while others read, and a read-only
directory. Every run's result must be right, no reader may ever be handed a
partial or corrupt entry (a checksum rejection counts as one: nothing here
corrupts files), and every published entry must verify on its own.
Usage: cache-stress.py TILE_RUN EXAMPLE WORKDIR [C-COMPILER]
(EXAMPLE: examples/elementwise_add.mlir; variant i adds i to the sum; the C
compiler, by default $CC, cc or clang-22, builds Inputs/kill-mid-write.c.)"""

import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ARGS = ["--target=cpu", "--arg", "f32:4x4=ones", "--arg", "f32:4x4=ones",
        "--arg", "f32:4x4=zeros", "--cache-info"]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def make_variant(source, workdir, i):
    path = os.path.join(workdir, f"v{i}.mlir")
    if not os.path.exists(path):
        text = source.replace(
            "%s = arith.addf %x, %y : f32",
            "%s0 = arith.addf %x, %y : f32\n"
            f"      %ci = arith.constant {i}.0 : f32\n"
            "      %s = arith.addf %s0, %ci : f32")
        assert text != source, "the example has no sum to vary"
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
    return path


def start(tool, source, workdir, cache, i, env=None, preexec=None, user=None):
    cmd = [tool, make_variant(source, workdir, i), "--cache-dir=" + cache] + ARGS
    if user:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, **(env or {})),
                            preexec_fn=preexec)


def check(proc, i, what, allow_warning=None):
    """Waits for `proc` (variant i) and checks its result; returns stdout."""
    out, err = proc.communicate()
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    want = f"{2 + i:.6e}"
    if proc.returncode != 0:
        fail(f"{what}: variant {i} exited {proc.returncode}: {err[:500]}")
    elif f"arg #2 f32 4x4: min {want} max {want}" not in out:
        fail(f"{what}: variant {i} computed the wrong result:\n{out}")
    if "rejected" in err:
        fail(f"{what}: variant {i} was handed a bad entry: {err.strip()}")
    for line in err.splitlines():
        if "warning" in line and not (allow_warning and allow_warning in line):
            fail(f"{what}: variant {i}: unexpected {line}")
    return out


def entries(cache):
    """The published entry directories of `cache`."""
    found = []
    for shard in sorted(os.listdir(cache)) if os.path.isdir(cache) else []:
        if re.fullmatch(r"[0-9a-f]{2}", shard):
            for key in sorted(os.listdir(os.path.join(cache, shard))):
                found.append(os.path.join(cache, shard, key))
    return found


def verify(cache, what):
    """Every published entry is complete and matches its checksums."""
    total = 0
    for entry in entries(cache):
        try:
            meta = json.load(open(os.path.join(entry, "meta.json")))
            assert meta["key"] == os.path.basename(entry)
            for name, digest in meta["files"].items():
                data = open(os.path.join(entry, name), "rb").read()
                assert hashlib.sha256(data).hexdigest() == digest, name
        except Exception as e:  # any failure to verify is a finding
            fail(f"{what}: published entry {entry} does not verify: {e!r}")
        total += sum(os.path.getsize(os.path.join(entry, f))
                     for f in os.listdir(entry))
    return total


def concurrent(tool, source, workdir, cache, rounds, variants, what, env=None):
    for r in range(rounds):
        procs = [(start(tool, source, workdir, cache, (r + p) % variants, env),
                  (r + p) % variants) for p in range(8)]
        for proc, i in procs:
            check(proc, i, what)
        verify(cache, what)


def main():
    tool, example, workdir = sys.argv[1:4]
    compiler = (sys.argv[4] if len(sys.argv) > 4 else os.environ.get("CC")
                or shutil.which("cc") or "clang-22")
    rng = random.Random(15)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    os.chmod(workdir, 0o755)
    source = open(example).read()

    # 1. Eight processes at once, four keys: same and different.
    cache = os.path.join(workdir, "shared")
    concurrent(tool, source, workdir, cache, 3, 4, "concurrent")
    print(f"concurrent: {len(entries(cache))} entries")

    # 2. SIGKILL mid-write (Inputs/kill-mid-write.c, preloaded): halfway
    # through host.o, and halfway through meta.json once host.o is whole.
    # Nothing is published; the key compiles again.
    cache = os.path.join(workdir, "killed")
    staging = os.path.join(cache, "staging")
    shim = os.path.join(workdir, "kill-mid-write.so")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", shim,
                    os.path.join(os.path.dirname(__file__), "Inputs",
                                 "kill-mid-write.c"), "-ldl"], check=True)
    for i, fragment in ((200, "/staging/"), (201, "meta.json")):
        published = len(entries(cache))
        proc = start(tool, source, workdir, cache, i,
                     {"LD_PRELOAD": shim, "KILL_MID_WRITE": fragment})
        proc.communicate()
        if proc.returncode != -signal.SIGKILL:
            fail(f"mid-write: the writer of {fragment} was not killed "
                 f"(exit {proc.returncode})")
        verify(cache, "mid-write")
        if len(entries(cache)) != published:
            fail(f"mid-write: a write killed in {fragment} was published")
        out = check(start(tool, source, workdir, cache, i), i, "mid-write")
        if "(compiled)" not in out:
            fail(f"mid-write: variant {i} was served from a killed write")
    left = len(os.listdir(staging)) if os.path.isdir(staging) else 0

    # Eight processes at once, four of them killed at random points.
    started = time.monotonic()
    check(start(tool, source, workdir, cache, 100), 100, "timing")
    cold = time.monotonic() - started
    at_random = 0
    for r in range(2):
        keys = [300 + 8 * r + p for p in range(8)]
        procs = [start(tool, source, workdir, cache, i) for i in keys]
        victims = rng.sample(range(8), 4)
        for p in victims:
            time.sleep(rng.uniform(0, cold / 4))
            if procs[p].poll() is None:
                procs[p].send_signal(signal.SIGKILL)
                at_random += 1
        for p, proc in enumerate(procs):
            if p in victims:
                proc.communicate()
            else:
                check(proc, keys[p], "killed")
        verify(cache, "killed")
        for i in keys:
            check(start(tool, source, workdir, cache, i), i, "after kill")
        verify(cache, "after kill")
    print("killed: writers killed mid-write and at random, every key right "
          "afterwards")
    print(f"killed: {at_random} killed at random; {left} staging directories "
          f"left by the writers killed mid-write", file=sys.stderr)

    # 3. A file-size limit below the object's size: the store is refused
    # before it writes (past the limit, a write would kill the process with
    # SIGXFSZ); the run still succeeds and nothing is published.
    cache = os.path.join(workdir, "fsize")
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
    check(start(tool, source, workdir, cache, 1, preexec=limit), 1, "fsize",
          allow_warning="over the file size limit")
    if entries(cache):
        fail("fsize: an entry was published past the file size limit")
    check(start(tool, source, workdir, cache, 1), 1, "fsize (no limit)")
    verify(cache, "fsize")
    print("fsize: ok")

    # 4. A cap of two and a half entries: least recently used goes first.
    cache = os.path.join(workdir, "capped")
    check(start(tool, source, workdir, cache, 0), 0, "cap")
    size = verify(cache, "cap")
    env = {"TILE_CACHE_SIZE": str(size * 5 // 2)}
    for i in (0, 1):
        time.sleep(0.05)
        check(start(tool, source, workdir, cache, i, env), i, "cap")
    time.sleep(0.05)
    out = check(start(tool, source, workdir, cache, 0, env), 0, "cap")
    if "disk hit" not in out:
        fail("cap: variant 0 was not a hit")
    time.sleep(0.05)
    check(start(tool, source, workdir, cache, 2, env), 2, "cap")
    kept = sorted(json.load(open(os.path.join(e, "meta.json")))["key"]
                  for e in entries(cache))
    if len(kept) != 2:
        fail(f"cap: {len(kept)} entries kept under a cap of 2.5 entries")
    out1 = check(start(tool, source, workdir, cache, 1,
                       {"TILE_CACHE_SIZE": "0"}), 1, "cap")
    if "disk hit" in out1:
        fail("cap: variant 1 (least recently used) was not evicted")
    for i in (0, 2):
        out = check(start(tool, source, workdir, cache, i,
                          {"TILE_CACHE_SIZE": "0"}), i, "cap")
        if "disk hit" not in out:
            fail(f"cap: variant {i} (recently used) was evicted")
    # Eight processes over six keys evicting while others read.
    concurrent(tool, source, workdir, cache, 4, 6, "evicting", env)
    total = verify(cache, "evicting")
    if total > size * 5 // 2:
        fail(f"evicting: {total} bytes left over a cap of {size * 5 // 2}")
    print("cap: least recently used evicted; evicting while reading: ok")

    # 5. A read-only cache of this user's: hits still load, misses run
    # uncached. Root ignores permissions, so as root the case runs as
    # nobody, from a directory of its own outside the build tree (which may
    # be where nobody cannot go): tile-run, the program and the cache are
    # copied or made there.
    user = os.geteuid() == 0 and shutil.which("setpriv")
    # (lit's temporary directory is root's alone: /tmp is everyone's.)
    readonly = tempfile.mkdtemp(prefix="tile-cache-readonly-",
                                dir="/tmp" if user else None)
    try:
        os.chmod(readonly, 0o755)
        tool_copy = os.path.join(readonly, "tile-run")
        shutil.copy(tool, tool_copy)
        os.chmod(tool_copy, 0o755)
        if user:
            os.chown(readonly, 65534, 65534)
        cache = os.path.join(readonly, "cache")
        check(start(tool_copy, source, readonly, cache, 0, user=user), 0,
              "readonly")
        for root, dirs, files in os.walk(cache):
            for name in dirs + files:
                path = os.path.join(root, name)
                os.chmod(path, os.stat(path).st_mode & ~0o222)
        os.chmod(cache, 0o500)
        out = check(start(tool_copy, source, readonly, cache, 0, user=user),
                    0, "readonly")
        if "disk hit" not in out:
            fail("readonly: the entry did not load from a read-only directory")
        check(start(tool_copy, source, readonly, cache, 3, user=user), 3,
              "readonly", allow_warning="the disk cache is not writable")
        verify(cache, "readonly")
        os.chmod(cache, 0o700)
    finally:
        shutil.rmtree(readonly, ignore_errors=True)
    print("readonly: ok")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
