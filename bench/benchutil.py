"""Helpers shared by the benchmark drivers: machine description and load average."""
import json
import os
import platform
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
