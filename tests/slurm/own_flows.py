#!/usr/bin/env python3
"""Run by a Slurm job of slurm_ibsdn.sh as its first line: the job is known to the controller and
the switches hold exactly the entries the controller intends for it.

Usage: own_flows.py IBSDNCTL JOB_ID    prints "job ID: N entries on the switches"; exit 1 if not.
"""
import json
import subprocess
import sys


def ask(ctl, *args):
    out = subprocess.run([ctl, "--json", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    ctl, job = sys.argv[1], int(sys.argv[2])
    if job not in [j["job"] for j in ask(ctl, "jobs")["jobs"]]:
        sys.exit(f"job {job} unknown to the controller")

    def entries(*extra):
        r = ask(ctl, "flows", "--job", str(job), *extra)
        return sorted(e["text"] for s in r["switches"] for e in s["entries"])

    intent, held = entries(), entries("--from-switch")
    if intent != held:
        sys.exit(f"job {job}: the switches hold {len(held)} entries, "
                 f"the controller intends {len(intent)}")
    print(f"job {job}: {len(held)} entries on the switches")


if __name__ == "__main__":
    main()
