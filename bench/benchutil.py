"""Helpers shared by the benchmark and evaluation drivers: machine description, load average, and
matching a dev-set evidence quote in a chunk as `mmkg eval` does."""
import json
import os
import platform
import re
import subprocess


def loadavg():
    """The 1, 5 and 15 minute load averages as one string ("?" when unreadable)."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def machine_info():
    """nproc, lscpu's model name, total memory in GiB and the platform (what is readable)."""
    info = {"nproc": os.cpu_count(), "platform": platform.platform()}
    try:
        info["nproc"] = int(subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip())
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                info["cpu"] = line.split(":", 1)[1].strip()
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except Exception:
        pass
    return info


def write_results(res, path):
    """Writes the results JSON (creating its folder)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")


_WS = re.compile(r"[ \t\n\r\f\v]+")


def collapse_ws(s):
    """Runs of ASCII white space as one space, trimmed (text/words.cc, collapse_ws)."""
    return _WS.sub(" ", s).strip()


def evidence_in(text, quote):
    """Whether a chunk's text holds an evidence quote, as `mmkg eval` decides (src/eval/eval.cc,
    evidence_in): the whole quote, or for a quote over 60 bytes its first or last 60 bytes."""
    c, q = collapse_ws(text), collapse_ws(quote)
    if not q:
        return False
    if q in c:
        return True
    b = q.encode()
    if len(b) <= 60:
        return False
    head = b[:60].decode("utf-8", "ignore")
    tail = b[-60:].decode("utf-8", "ignore")
    return head in c or tail in c
