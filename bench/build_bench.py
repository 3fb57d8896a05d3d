#!/usr/bin/env python3
"""Clean-build cost of mmkg, tree by tree, measured one after the other on this machine.

For each tree: CPU-seconds (user + sys of the compiler and linker runs, less noisy than wall time
on a shared machine) and wall time, first of the `mmkg` binary alone (what `make demo` builds),
then of everything else `make build` builds (the unit tests and the layering probes); the ten
heaviest build steps from .ninja_log. Prints a Markdown table; writes
bench/results/build-<UTC date>.json.

    python3 bench/build_bench.py [REV ...]        git revisions (default: the work tree as it is)
    python3 bench/build_bench.py --cmake-args=-DMMKG_UNITY=OFF

A revision is checked out with `git worktree` into a temporary folder; the work tree is measured
in place with a fresh build folder of its own. --jobs defaults to every core.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(cmd, log):
    """Runs cmd; returns (wall s, CPU s of its children). Exits with the log's tail on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    with open(log, "a") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if rc != 0:
        sys.stderr.write(pathlib.Path(log).read_text()[-4000:])
        sys.exit(f"build_bench: {' '.join(cmd)} failed (exit {rc}); log: {log}")
    return round(wall, 1), round(cpu, 1)


def ninja_steps(build):
    """[(seconds, output)] of every step in build/.ninja_log, heaviest first."""
    rows = []
    for line in (build / ".ninja_log").read_text().splitlines()[1:]:
        start, end, _, out, _ = line.split("\t")
        rows.append(((int(end) - int(start)) / 1000.0, out))
    return sorted(rows, reverse=True)


def measure(src, label, build, cmake_args, jobs):
    log = build.parent / f"{build.name}.log"
    print(f"build_bench: {label}: configure", file=sys.stderr)
    cfg = timed(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", *cmake_args], log)
    print(f"build_bench: {label}: mmkg", file=sys.stderr)
    mmkg = timed(["cmake", "--build", str(build), "--target", "mmkg", "-j", str(jobs)], log)
    mmkg_steps = len(ninja_steps(build))
    print(f"build_bench: {label}: the rest of make build", file=sys.stderr)
    rest = timed(["cmake", "--build", str(build), "-j", str(jobs)], log)
    steps = ninja_steps(build)
    for s, out in steps[:10]:
        print(f"  {s:7.1f} s  {out}", file=sys.stderr)
    return {
        "tree": label, "cmake_args": cmake_args,
        "configure": {"wall_s": cfg[0], "cpu_s": cfg[1]},
        "mmkg": {"steps": mmkg_steps, "wall_s": mmkg[0], "cpu_s": mmkg[1]},
        "rest": {"steps": len(steps) - mmkg_steps, "wall_s": rest[0], "cpu_s": rest[1]},
        "heaviest_steps": [{"s": s, "step": out} for s, out in steps[:10]],
    }


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("revs", nargs="*", help="git revisions to measure (default: the work tree)")
    ap.add_argument("--cmake-args", default="", help="extra configure flags, e.g. -DMMKG_UNITY=OFF")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--keep", action="store_true", help="keep the build folders")
    a = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mmkg-build-bench-"))
    runs = []
    try:
        for rev in a.revs or [None]:
            if rev is None:
                dirty = "+" if git("status", "--porcelain", "--untracked-files=no") else ""
                src, label = ROOT, f"work tree ({git('rev-parse', '--short', 'HEAD')}{dirty})"
            else:
                src, label = tmp / f"wt-{rev}", f"{rev} ({git('rev-parse', '--short', rev)})"
                git("worktree", "add", "--detach", str(src), rev)
            build = tmp / f"build-{len(runs)}"
            runs.append(measure(src, label, build, shlex.split(a.cmake_args), a.jobs))
    finally:
        for w in tmp.glob("wt-*"):
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(w)], capture_output=True)
        if a.keep:
            print(f"build_bench: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%MZ")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    cxx = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    out = ROOT / "bench" / "results" / f"build-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"date": stamp, "host": platform.node(), "cpu": cpu, "cores": os.cpu_count(),
                               "jobs": a.jobs, "compiler": cxx, "runs": runs}, indent=1) + "\n")
    print("| tree | mmkg: steps | CPU s | wall s | make build: steps | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|")
    for r in runs:
        m, rest = r["mmkg"], r["rest"]
        print(f"| {r['tree']} | {m['steps']} | {m['cpu_s']:.0f} | {m['wall_s']:.0f} | {m['steps'] + rest['steps']} | "
              f"{m['cpu_s'] + rest['cpu_s']:.0f} | {m['wall_s'] + rest['wall_s']:.0f} |")
    print(f"build_bench: wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
