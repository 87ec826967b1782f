#!/usr/bin/env python3
"""Checks a topo-cluster MPICH file against the selection table compiled into libmpich.

MPICH builds its default selection table into the library as a JSON string; a file named by
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE replaces it. The writer gives every collective
topo-cluster does not tune MPICH's own branch, and the collectives it tunes (bcast, scatter,
gather, alltoall) MPICH's own inter-communicator branch: this checks both equal the
library's, key for key and in order. Exits 1 naming every branch that differs.

Usage: mpich_builtin.py LIBMPICH FILE
"""
import json
import subprocess
import sys

TUNED = {"bcast", "scatter", "gather", "alltoall"}


def pairs(o):
    """The object as nested (key, value) lists: order counts."""
    return [(k, pairs(v)) for k, v in o.items()] if isinstance(o, dict) else o


def main():
    lib, path = sys.argv[1], sys.argv[2]
    text = subprocess.run(["strings", "-a", "-n", "64", lib], check=True,
                          capture_output=True, text=True).stdout
    # the MPIR_* table (the device's own tables name MPIDI_* compositions)
    tables = [line for line in text.splitlines()
              if line.startswith('{"collective=') and '"algorithm=MPIR_' in line]
    if len(tables) != 1:
        print(f"{lib}: expected one built-in MPIR_* table, found {len(tables)}")
        sys.exit(1)
    builtin = json.loads(tables[0])
    with open(path) as f:
        ours = json.load(f)
    differ = []
    if set(builtin) != set(ours):
        differ.append("collectives: %s" % sorted(set(builtin) ^ set(ours)))
    whole = inter = 0
    for key, branch in builtin.items():
        if key not in ours:
            continue
        if key.split("=", 1)[1] in TUNED:
            inter += 1
            if pairs(ours[key].get("comm_type=inter")) != pairs(branch.get("comm_type=inter")):
                differ.append(key + " (inter-communicator branch)")
        else:
            whole += 1
            if pairs(ours[key]) != pairs(branch):
                differ.append(key)
    print(f"{path}: {whole - sum(1 for d in differ if '(' not in d)} of {whole} untuned "
          f"branches and {inter - sum(1 for d in differ if 'inter' in d)} of {inter} "
          f"inter-communicator branches equal {lib}'s built-in table")
    if differ:
        print("  differ: " + ", ".join(differ))
        sys.exit(1)


if __name__ == "__main__":
    main()
