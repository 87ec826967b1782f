#!/usr/bin/env bash
# Runs coflowsim (the Varys authors' Java simulator, github.com/coflow/coflowsim) and this
# crate's simulator on one coflow-benchmark trace and prints them side by side: each one's mean
# coflow completion time, and how many coflows agree within 1 %, per scheduler pair:
#
#   coflowsim FAIR  ~ fair      (max-min fair sharing; coflowsim's FAIR shares per port)
#   coflowsim FIFO  ~ coflow-fifo (the coflow papers' FIFO: arrival order, MADD, leftover)
#   coflowsim SEBF  ~ varys     (Varys's SEBF + MADD)
#
# Not run in CI, and not run against coflowsim by the authors of this script (only against a
# stand-in with its command line and output lines): coflowsim publishes no licence (no
# LICENSE file, no source headers), so the checkout is the user's own, and whether they may
# build and run it is theirs to check. The script builds it with Debian's JDK (`javac`,
# installed with apt-get when missing; no Maven repository is needed: coflowsim has no
# dependency), into a scratch folder, without changing the checkout.
#
# Conventions that differ (see dag-sched's `trace` module): coflowsim keeps the flows whose
# mapper is on the reducer's port (0.69 % of FB2010's megabytes; dropped here), makes no flow
# smaller than 1 MiB, and admits coflows in epochs of 10.24 simulated seconds. Its times are
# in simulated milliseconds of a 2^30 bit/s port and 2^20-byte megabytes, the same 8 ms per
# megabyte as here (10^6 bytes at 10^9 bit/s), so its milliseconds are compared as ours. Its
# completion time is printed from the trace arrival (finish − arrival) and from its own
# start (its `jDur`); the agreement is counted on the first.
#
# Usage: dag-sched/scripts/coflowsim.sh COFLOWSIM_CHECKOUT TRACE [ALGO...]
#   ALGO: FAIR, FIFO, SEBF (default all three). COFLOWSIM_TIMEOUT (seconds, default 3600)
#   bounds each coflowsim run.
set -euo pipefail
if [ "$#" -lt 2 ]; then
    sed -n '2,27p' "$0" >&2
    exit 2
fi
checkout=$(cd "$1" && pwd)
trace=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
algos=("$@")
[ "${#algos[@]}" -eq 0 ] && algos=(FAIR FIFO SEBF)
cd "$(dirname "$0")/../.."

if ! command -v javac >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "coflowsim.sh: installing default-jdk-headless" >&2
    $sudo apt-get install -y default-jdk-headless ||
        { $sudo apt-get update && $sudo apt-get install -y default-jdk-headless; }
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "building coflowsim ($(cd "$checkout" && git rev-parse --short HEAD 2>/dev/null || echo 'no git')) with $(javac -version 2>&1)" >&2
find "$checkout/src/main/java" -name '*.java' >"$scratch/sources"
javac -nowarn -d "$scratch/classes" @"$scratch/sources"
nice cargo build --release -p dag-sched --example coflow_cct >&2
ours="${CARGO_TARGET_DIR:-target}/release/examples/coflow_cct"

for algo in "${algos[@]}"; do
    case "$algo" in
        FAIR) mine=fair ;;
        FIFO) mine=coflow-fifo ;;
        SEBF) mine=varys ;;
        *) echo "coflowsim.sh: unknown ALGO $algo (FAIR, FIFO, SEBF)" >&2; exit 2 ;;
    esac
    start=$(date +%s.%N)
    timeout "${COFLOWSIM_TIMEOUT:-3600}" java -cp "$scratch/classes" coflowsim.CoflowSim \
        "$algo" COFLOW-BENCHMARK "$trace" >"$scratch/theirs-$algo.txt"
    mid=$(date +%s.%N)
    "$ours" "$trace" "$mine" >"$scratch/ours-$mine.txt"
    end=$(date +%s.%N)
    # coflowsim prints `JOB-<id> start finish mappers reducers total max jDur deadline sums`
    # per coflow, then the sum of jDur; ours `<id> <arrival s> <CCT s>`.
    awk -v algo="$algo" -v mine="$mine" -v t0="$start" -v t1="$mid" -v t2="$end" '
        FNR == NR { id[$1] = $2; cct[$1] = $3; next }
        $1 ~ /^JOB-/ {
            k = substr($1, 5)
            if (!(k in cct)) next
            theirs = ($3 - id[k] * 1000) / 1000.0
            own = $8 / 1000.0
            n++; st += theirs; so += own; su += cct[k]
            d = theirs - cct[k]; if (d < 0) d = -d
            if (d <= 0.01 * (cct[k] > 0 ? cct[k] : 1e-9) || d < 1e-6) within++
        }
        END {
            printf "%-5s vs %-12s coflows %d: coflowsim mean %.3f s (own start: %.3f s), ours %.3f s, ratio %.4f, within 1 %%: %d/%d; wall %.1f s vs %.1f s\n",
                algo, mine, n, st / n, so / n, su / n, (st / n) / (su / n), within, n, t1 - t0, t2 - t1
        }' "$scratch/ours-$mine.txt" "$scratch/theirs-$algo.txt"
done
