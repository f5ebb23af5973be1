#!/usr/bin/env python3
"""Run by a Slurm job of slurm_ibsdn.sh as its first line: the job is known to the controller and
the switches hold exactly the entries the controller intends for it.

Usage: own_flows.py IBSDNCTL JOB_ID    prints "job ID: N entries on the switches"; exit 1 if not.

With IBSDN_OWN_FLOWS_IBROUTE set to a command that runs ibroute (e.g. "env LD_PRELOAD=... SIM_HOST=
n0001 ibroute"), the job's LFT entries are also read with ibroute -n SWITCH_LID, independently of
the controller, and each must hold its port.
"""
import json
import os
import re
import shlex
import subprocess
import sys


def ask(ctl, *args):
    out = subprocess.run([ctl, "--json", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def lft_entries_by_ibroute(command, switches):
    """How many of the LFT entries in `switches` (a flows answer) ibroute shows with their port."""
    seen = 0
    for sw in switches:
        want = {}
        for e in sw["entries"]:
            if e.get("backend") != "lft":
                continue
            dlid = e["match"]["dlid"]
            want[dlid if isinstance(dlid, int) else dlid["value"]] = e["actions"]["output"]
        if not want:
            continue
        out = subprocess.run([*shlex.split(command), "-n", str(sw["lid"])], check=True,
                             capture_output=True, text=True).stdout
        table = {int(m.group(1), 16): int(m.group(2))
                 for m in re.finditer(r"^0x([0-9a-f]+) (\d+)", out, re.MULTILINE)}
        for lid, port in want.items():
            if table.get(lid) != port:
                sys.exit(f"{sw['name']}: ibroute shows LID {lid} on port {table.get(lid)}, "
                         f"the job's entry says {port}")
            seen += 1
    return seen


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
    line = f"job {job}: {len(held)} entries on the switches"
    command = os.environ.get("IBSDN_OWN_FLOWS_IBROUTE")
    if command:
        seen = lft_entries_by_ibroute(command, ask(ctl, "flows", "--job", str(job))["switches"])
        line += f" ({seen} in LFTs, read by ibroute)"
    print(line)


if __name__ == "__main__":
    main()
