#!/usr/bin/env python3
"""Finds, in a stripped libmpich, the entry address of each named MPIR_* algorithm function.

MPICH's functions pass their own name (C's __func__) to its error routines, so the name's
string in .rodata is loaded (lea ...(%rip)) from inside the function. The function holding a
load is the unwind entry (.eh_frame FDE) that covers it; the entry kept is the one most loads
fall in that is also the target of a direct call elsewhere in the library (an inlined copy
or a split-off cold part is never a call target). Prints "NAME 0xOFFSET" per found name and
exits 1 naming the names it could not place.

Usage: mpich_locate.py LIBMPICH NAME...
"""
import collections
import re
import subprocess
import sys


def main():
    lib, names = sys.argv[1], sys.argv[2:]
    strings = subprocess.run(["strings", "-a", "-t", "x", lib], check=True,
                             capture_output=True, text=True).stdout
    addr_of = collections.defaultdict(set)
    wanted = set(names)
    for line in strings.splitlines():
        off, _, s = line.strip().partition(" ")
        if s in wanted:
            addr_of[s].add(int(off, 16))
    fdes = []
    frames = subprocess.run(["readelf", "--debug-dump=frames", lib], check=True,
                            capture_output=True, text=True).stdout
    for m in re.finditer(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", frames):
        fdes.append((int(m.group(1), 16), int(m.group(2), 16)))
    fdes.sort()
    starts = [s for s, _ in fdes]
    # one pass over the disassembly: loads of the wanted strings, and direct call targets
    all_addrs = {a: n for n, s in addr_of.items() for a in s}
    loads = collections.defaultdict(list)
    calls = set()
    lea = re.compile(r"^\s*([0-9a-f]+):\s+lea\s+.*# ([0-9a-f]+)")
    call = re.compile(r"^\s*[0-9a-f]+:\s+(?:call|jmp)\s+([0-9a-f]+)\b")
    dis = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", lib],
                           stdout=subprocess.PIPE, text=True)
    for line in dis.stdout:
        m = lea.match(line)
        if m:
            target = int(m.group(2), 16)
            if target in all_addrs:
                loads[all_addrs[target]].append(int(m.group(1), 16))
            continue
        m = call.match(line)
        if m:
            calls.add(int(m.group(1), 16))
    dis.wait()
    import bisect
    missing = []
    for name in names:
        votes = collections.Counter()
        for pc in loads.get(name, []):
            i = bisect.bisect_right(starts, pc) - 1
            if i >= 0 and fdes[i][0] <= pc < fdes[i][1]:
                votes[fdes[i][0]] += 1
        found = [a for a, _ in votes.most_common() if a in calls]
        if found:
            print(f"{name} {found[0]:#x}")
        else:
            missing.append(name)
    if missing:
        print("not found: " + " ".join(missing), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
