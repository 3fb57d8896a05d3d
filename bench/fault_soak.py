#!/usr/bin/env python3
"""The long fault run of issue 15 (the bounded one is tests/e2e/test_faults.py): SIGKILL at random
moments of ingest (with embeddings and the graph), re-embedding and delete, for many seeds; after
every kill `mmkg check` must pass, and a re-run must give the store of an uninterrupted run.

    python3 bench/fault_soak.py [--seeds 25] [--bin build/mmkg] [--work /tmp/soak]

Prints one line per trial and a summary: kills landed, trials, stores equal to the reference.
"""
import argparse
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
os.environ.setdefault("MMKG_BIN", str(ROOT / "build" / "mmkg"))

import conftest  # noqa: E402  (MMKG_BIN is read at import)
import test_faults  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--work", default="/tmp/mmkg-soak")
    args = ap.parse_args()
    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    inputs = test_faults.make_inputs(work / "in")
    env = test_faults.NATIVE
    run = conftest.run

    ref_ingest = work / "ref-ingest"
    full_ingest = test_faults.timed(["ingest", inputs], ref_ingest, env)
    expect_ingest = test_faults.full_dump(ref_ingest)
    names = ["attention_papers.txt", "paper0.pdf", "attention_wiki.txt"]
    ref_delete = work / "ref-delete"
    shutil.copytree(ref_ingest, ref_delete)
    full_delete = test_faults.timed(["delete", *names], ref_delete, env)
    expect_delete = test_faults.full_dump(ref_delete)
    ref_plain = work / "ref-plain"
    assert run("ingest", inputs, store=ref_plain).rc == 0
    # Re-embedding: stored without vectors first, then embedded (the graph was built without
    # name embeddings then, so it is compared with the same two steps run without a kill).
    ref_reembed = work / "ref-reembed"
    shutil.copytree(ref_plain, ref_reembed)
    assert run("ingest", inputs, store=ref_reembed, env=env).rc == 0
    expect_reembed = test_faults.full_dump(ref_reembed)

    stats = {k: {"trials": 0, "kills": 0, "check_failures": 0, "equal": 0} for k in ("ingest", "re-embed", "delete")}
    t0 = time.monotonic()
    for seed in range(args.seeds):
        rnd = random.Random(seed)
        for kind in stats:
            store = work / f"{kind}-{seed}"
            st = stats[kind]
            st["trials"] += 1
            try:
                if kind == "ingest":
                    st["kills"] += test_faults.killed_runs(["ingest", inputs], store, rnd, full_ingest, env, times=3)
                    ok = run("ingest", inputs, store=store, env=env).rc == 0
                    equal = ok and test_faults.full_dump(store) == expect_ingest
                elif kind == "re-embed":
                    shutil.copytree(ref_plain, store)
                    st["kills"] += test_faults.killed_runs(["ingest", inputs], store, rnd, full_ingest, env, times=2)
                    ok = run("ingest", inputs, store=store, env=env).rc == 0
                    equal = ok and test_faults.full_dump(store) == expect_reembed
                else:
                    shutil.copytree(ref_ingest, store)
                    st["kills"] += test_faults.killed_runs(["delete", *names], store, rnd, max(full_delete, 0.5),
                                                           env, times=1)
                    for n in names:
                        run("delete", n, store=store, env=env)
                    equal = test_faults.full_dump(store) == expect_delete
            except AssertionError as e:  # a check failed after a kill
                st["check_failures"] += 1
                print(f"seed {seed} {kind}: {str(e).splitlines()[0][:200]}", flush=True)
                equal = False
            st["equal"] += bool(equal)
            print(f"seed {seed} {kind}: {'same store' if equal else 'DIFFERENT'}", flush=True)
            shutil.rmtree(store, ignore_errors=True)
    summary = {"seeds": args.seeds, "seconds": round(time.monotonic() - t0, 1), "bin": conftest.BIN, **stats}
    print(json.dumps(summary, indent=1))
    return 0 if all(s["equal"] == s["trials"] and not s["check_failures"] for s in stats.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
