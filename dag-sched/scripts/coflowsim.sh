#!/usr/bin/env bash
# Runs coflowsim (the Varys authors' Java simulator, github.com/coflow/coflowsim) and this
# crate's simulator on one coflow-benchmark trace and prints them side by side: each one's mean
# coflow completion time, and how many coflows agree within 1 %, per scheduler pair:
#
#   coflowsim FAIR  ~ fair             (max-min fair sharing; coflowsim's FAIR shares per
#                                       port, at most 5 flows per reducer at a time)
#   coflowsim FIFO  ~ coflow-fifo      (the coflow papers' FIFO: arrival order, MADD, leftover)
#   coflowsim SEBF  ~ varys-coflowsim  (Varys as coflowsim runs it: static SEBF order, rates
#                                       recomputed at coflow events, leftover by deadline)
#                     and ~ varys      (ours: SEBF on the bits left, recomputed per event)
#
# Each pair is printed twice: "aligned", ours run with coflowsim's conventions of input and
# time (`coflow_cct ... same-port epochs`: the flows whose mapper is on the reducer's port
# kept, each coflow arriving at the start of the 10.24 s epoch that admits it, completion
# times counted from there as coflowsim's own `jDur`), and "raw", ours with its own
# conventions (same-port flows dropped, arrival at the trace time). Both compare each
# simulator's own completion time: coflowsim's `jDur`, counted from its admission (up to
# 10.24 s before the trace arrival: its finish minus the trace arrival can be negative).
#
# Not run in CI: coflowsim publishes no licence (no LICENSE file, no source headers), so the
# checkout is the user's own, and whether they may build and run it is theirs to check. The
# script builds it with Debian's JDK (`javac`, installed with apt-get when missing; no Maven
# repository is needed: coflowsim has no dependency), into a scratch folder, without changing
# the checkout.
#
# Conventions that remain different when aligned: coflowsim moves flows in 8 ms steps (a
# flow or coflow ends at the end of the step it finishes in, and rates are recomputed
# there), megabytes are 2^20 bytes rounded up to a whole number per flow (in FB2010 every
# reducer's megabytes are a multiple of its mapper count, so nothing is rounded), and its
# Varys draws each coflow's deadline multiplier for the leftover order from Java's Random
# (ours: 1). Its times are in simulated milliseconds of a 2^30 bit/s port and 2^20-byte
# megabytes, the same 8 ms per megabyte as here (10^6 bytes at 10^9 bit/s), so its
# milliseconds are compared as ours.
#
# Usage: dag-sched/scripts/coflowsim.sh COFLOWSIM_CHECKOUT TRACE [ALGO...]
#   ALGO: FAIR, FIFO, SEBF (default FIFO SEBF: coflowsim's FAIR took over 20 minutes on the
#   whole FB2010 trace). COFLOWSIM_TIMEOUT (seconds, default 3600) bounds each coflowsim run;
#   COFLOWSIM_KEEP=DIR keeps both simulators' per-coflow outputs there. Each comparison also
#   names the three coflows on which the two differ most.
set -euo pipefail
if [ "$#" -lt 2 ]; then
    sed -n '2,40p' "$0" >&2
    exit 2
fi
checkout=$(cd "$1" && pwd)
trace=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
algos=("$@")
[ "${#algos[@]}" -eq 0 ] && algos=(FIFO SEBF)
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

# compare ALGO MINE LABEL OURS_FILE THEIRS_FILE MODE: coflowsim's jDur (from its admission)
# against ours, run with its conventions (MODE "aligned") or as it is ("raw").
compare() {
    awk -v algo="$1" -v mine="$2" -v label="$3" -v mode="$6" '
        FNR == NR { cct[$1] = $3; next }
        $1 ~ /^JOB-/ {
            k = substr($1, 5)
            if (!(k in cct)) next
            theirs = $8 / 1000.0
            n++; st += theirs; su += cct[k]
            d = theirs - cct[k]; if (d < 0) d = -d
            if (d <= 0.01 * cct[k] || d < 1e-6) within++
            # the three coflows that differ most
            for (i = 1; i <= 3; i++) {
                if (!(i in top) || d > top[i]) {
                    for (j = 3; j > i; j--) if ((j - 1) in top) { top[j] = top[j - 1]; what[j] = what[j - 1] }
                    top[i] = d; what[i] = sprintf("coflow %s: coflowsim %.3f s, ours %.3f s", k, theirs, cct[k])
                    break
                }
            }
        }
        END {
            if (n == 0) { printf "%-5s vs %-16s %-8s no coflow in common\n", algo, mine, label; exit 1 }
            printf "%-5s vs %-16s %-8s coflows %d: coflowsim mean %.3f s, ours %.3f s, ratio %.4f, within 1 %%: %d/%d\n",
                algo, mine, label, n, st / n, su / n, (st / n) / (su / n), within, n
            for (i = 1; i <= 3; i++) if (i in top && top[i] > 0) printf "    differs most: %s\n", what[i]
        }' "$4" "$5"
}

for algo in "${algos[@]}"; do
    case "$algo" in
        FAIR) mines=(fair) ;;
        FIFO) mines=(coflow-fifo) ;;
        SEBF) mines=(varys-coflowsim varys) ;;
        *) echo "coflowsim.sh: unknown ALGO $algo (FAIR, FIFO, SEBF)" >&2; exit 2 ;;
    esac
    start=$(date +%s.%N)
    timeout "${COFLOWSIM_TIMEOUT:-3600}" java -cp "$scratch/classes" coflowsim.CoflowSim \
        "$algo" COFLOW-BENCHMARK "$trace" >"$scratch/theirs-$algo.txt" 2>/dev/null
    [ -n "${COFLOWSIM_KEEP:-}" ] && mkdir -p "$COFLOWSIM_KEEP" && cp "$scratch/theirs-$algo.txt" "$COFLOWSIM_KEEP/"
    echo "coflowsim $algo: wall $(echo "$(date +%s.%N) - $start" | bc) s"
    for mine in "${mines[@]}"; do
        for mode in aligned raw; do
            opts=()
            [ "$mode" = aligned ] && opts=(same-port epochs)
            start=$(date +%s.%N)
            "$ours" "$trace" "$mine" "${opts[@]}" >"$scratch/ours-$mine-$mode.txt"
            wall=$(echo "$(date +%s.%N) - $start" | bc)
            [ -n "${COFLOWSIM_KEEP:-}" ] && cp "$scratch/ours-$mine-$mode.txt" "$COFLOWSIM_KEEP/"
            compare "$algo" "$mine" "$mode" "$scratch/ours-$mine-$mode.txt" \
                "$scratch/theirs-$algo.txt" "$mode"
            echo "    ours ($mine, $mode): wall $wall s"
        done
    done
done
