#!/usr/bin/env bash
# PMIx_Get latency of the real OpenPMIx (Debian's libpmix-dev, 4.2.x), for side-by-side
# figures with pmix-kvs's shared store (`reproduce pmix-shm`). Not part of CI.
#
#   pmix-kvs/scripts/openpmix_get.sh [NCLIENTS [GETS]]     (defaults: 2 clients, 20000 gets)
#
# On a fresh Debian/Ubuntu machine it installs libpmix-dev, pkg-config and gcc with apt-get
# (as root, or through sudo), builds openpmix_get.c (an in-process PMIx server that forks and
# execs NCLIENTS clients; each times PMIx_Get of the next rank's uint64 and of PMIX_JOB_SIZE),
# checks in a short verbose run which store the clients' gets go through (ds21 is 4.2's
# default), and prints each client's p50/p99 and a CSV row in the pmix-shm header:
#   store,readers,value_bytes,get_ns_p50,get_ns_p99,writer_p99_wait_ns,kills,wedged,torn
# where the row's p50 and p99 are the worst client's (every client gets at the same time;
# the writer and kill columns do not apply and stay empty). Where the checkout has the
# `pmix-shm` experiment, it then runs it, so that both sides come from the same run and load.
set -euo pipefail

NCLIENTS=${1:-2}
GETS=${2:-20000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! pkg-config --exists pmix 2>/dev/null || ! command -v gcc >/dev/null; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q libpmix-dev pkg-config gcc
fi
VERSION=$(pkg-config --modversion pmix)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
gcc -O2 -Wall -Wextra -o "$WORK/openpmix_get" "$HERE/openpmix_get.c" $(pkg-config --cflags --libs pmix)

# Which store the clients fetch from (a short verbose run).
STORE=$(PMIX_MCA_gds_base_verbose=10 "$WORK/openpmix_get" 2 100 2>&1 \
    | grep -o 'GDS FETCH KV WITH [a-z0-9]*' | awk '{print $5}' | sort | uniq -c | sort -rn \
    | awk 'NR == 1 {print $2}')
STORE=${STORE:-unknown}

OUT="$WORK/out.txt"
"$WORK/openpmix_get" "$NCLIENTS" "$GETS" | tee "$OUT"
echo "openpmix $VERSION, gds $STORE, $NCLIENTS clients, $GETS gets each, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "store,readers,value_bytes,get_ns_p50,get_ns_p99,writer_p99_wait_ns,kills,wedged,torn"
for kb in peer_u64:8 job_size:4; do
    key=${kb%%:*}
    grep "key=$key " "$OUT" | awk -v store="openpmix-$VERSION-$STORE-$key" -v n="$NCLIENTS" -v bytes="${kb##*:}" '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          if (v["p50_ns"] + 0 > p50) p50 = v["p50_ns"] + 0
          if (v["p99_ns"] + 0 > p99) p99 = v["p99_ns"] + 0 }
        END { printf "%s,%d,%d,%d,%d,,,,\n", store, n, bytes, p50, p99 }'
done

# pmix-kvs's side in the same run, where this checkout has the experiment (from the
# repository root: `reproduce pmix-shm`); PMIX_SKIP_KVS=1 skips it.
ROOT=$(cd "$HERE/../.." && pwd)
if [ "${PMIX_SKIP_KVS:-0}" != 1 ] && command -v cargo >/dev/null \
    && grep -rqs '"pmix-shm"' "$ROOT/benches/src/experiments/"; then
    (cd "$ROOT" && cargo run -q --release -p benches --bin reproduce -- pmix-shm --scale small --format csv)
fi
