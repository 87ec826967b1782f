#!/usr/bin/env bash
# Builds `reproduce` with dag-sched's `highs` feature (good_lp's HiGHS backend) and runs
# `reproduce dag-lp`, which then prints a HiGHS row beside the pure-Rust microlp row for every
# job count, both timed in the same run. Extra arguments go to `reproduce` (for example
# `--scale paper`, `--format csv`, or `--instance FILE.json`).
#
# HiGHS is C++: building highs-sys needs cmake, a C++ compiler and libclang (for bindgen).
# On Debian/Ubuntu the script installs what is missing with apt-get (as root, or through sudo).
# The cold build takes several minutes on 2 cores. CI does not use this script: CI stays on
# the pure-Rust solver.
#
# Usage: dag-sched/scripts/highs.sh [reproduce options...]
# Target folder: $CARGO_TARGET_DIR, default target/highs (kept apart from the default build).
set -euo pipefail
cd "$(dirname "$0")/../.."

have_libclang() {
    ldconfig -p 2>/dev/null | grep -q 'libclang\(-[0-9.]*\)\?\.so' ||
        ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1
}

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
have_libclang || missing+=(libclang-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "highs.sh: please install: ${missing[*]}" >&2
        exit 1
    fi
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "highs.sh: installing ${missing[*]}" >&2
    $sudo apt-get install -y "${missing[@]}" ||
        { $sudo apt-get update && $sudo apt-get install -y "${missing[@]}"; }
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/highs}"
nice cargo build --release -p benches --bin reproduce --features dag-sched/highs
"$CARGO_TARGET_DIR/release/reproduce" dag-lp "$@"
