#!/usr/bin/env python3
"""Finds, in a stripped libmpich, the entry address of each named MPIR_* algorithm function.

MPICH's functions pass their own name (C's __func__) to its error routines, so the name's
string in .rodata is loaded (lea ...(%rip)) from inside the function. The function holding a
load is the unwind entry (.eh_frame FDE) that covers it; only the FDEs that start at a
function's entry count (their first row has the caller's frame, CFA = rsp+8: GCC's split-off
cold parts, `NAME.cold`, have FDEs of their own that start inside the function's frame), and
the entry kept is the one most loads fall in that is also the target of a direct call or jump
elsewhere in the library (an inlined copy is never a call target). A function that never
passes its name (MPICH 4.2's MPIR_Barrier_intra_smp and the pairwise sendrecv_replace
all-to-alls report errors without it) is found the same way by the path of its source file
(C's __FILE__, `src/mpi/coll/alltoall/alltoall_intra_pairwise_sendrecv_replace.c` for
MPIR_Alltoall_intra_pairwise_sendrecv_replace), which only the file's functions load.
Prints "NAME 0xOFFSET" per found name (and on stderr which string placed it) and exits 1
naming the names it could not place.

Usage: mpich_locate.py LIBMPICH NAME...
"""
import bisect
import collections
import re
import subprocess
import sys


def source_file(name):
    """The path's tail of the source file MPICH keeps `name` in: MPIR_Coll_rest is
    mpi/coll/coll/coll_rest.c."""
    m = re.match(r"MPIR_([A-Za-z]+(?:_[a-z]+)*?)_(intra|inter|allcomm)_(\w+)$", name)
    if not m:
        return None
    coll = m.group(1).lower()
    return f"/mpi/coll/{coll}/{coll}_{m.group(2)}_{m.group(3)}.c"


def entries(lib):
    """The FDEs of the library as sorted (start, end, starts_at_an_entry)."""
    out = []
    text = subprocess.run(["readelf", "--debug-dump=frames-interp", lib], check=True,
                          capture_output=True, text=True).stdout
    fde = re.compile(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)")
    current = None
    for line in text.splitlines():
        m = fde.search(line)
        if m:
            if current:
                out.append(tuple(current))
            # no row: the CIE's initial state, the caller's frame
            current = [int(m.group(1), 16), int(m.group(2), 16), True]
            first_row = True
            continue
        if current is None or not first_row:
            continue
        parts = line.split()
        if len(parts) >= 2 and re.fullmatch(r"[0-9a-f]{8,}", parts[0]):
            current[2] = int(parts[0], 16) != current[0] or parts[1] == "rsp+8"
            first_row = False
    if current:
        out.append(tuple(current))
    out.sort()
    return out


def main():
    lib, names = sys.argv[1], sys.argv[2:]
    strings = subprocess.run(["strings", "-a", "-t", "x", lib], check=True,
                             capture_output=True, text=True).stdout
    # string address -> (name, how): the name itself, or its source file's path
    wanted = set(names)
    files = {source_file(n): n for n in names if source_file(n)}
    string_of = {}
    for line in strings.splitlines():
        off, _, s = line.strip().partition(" ")
        if s in wanted:
            string_of[int(off, 16)] = (s, "name")
        elif s.endswith(".c"):
            for tail, n in files.items():
                if s.endswith(tail):
                    string_of[int(off, 16)] = (n, "file")
    fdes = entries(lib)
    starts = [s for s, _, _ in fdes]
    # one pass over the disassembly: loads of the wanted strings, and direct call targets
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
            if target in string_of:
                loads[string_of[target]].append(int(m.group(1), 16))
            continue
        m = call.match(line)
        if m:
            calls.add(int(m.group(1), 16))
    dis.wait()
    missing = []
    for name in names:
        found = []
        for how in ("name", "file"):
            votes = collections.Counter()
            for pc in loads.get((name, how), []):
                i = bisect.bisect_right(starts, pc) - 1
                if i >= 0 and fdes[i][0] <= pc < fdes[i][1] and fdes[i][2]:
                    votes[fdes[i][0]] += 1
            found = [a for a, _ in votes.most_common() if a in calls]
            if found:
                print(f"{name} {found[0]:#x}")
                if how == "file":
                    print(f"{name}: placed by the string of its source file", file=sys.stderr)
                break
        if not found:
            missing.append(name)
    if missing:
        print("not found: " + " ".join(missing), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
