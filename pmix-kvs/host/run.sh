#!/usr/bin/env bash
# pmix-kvs under the real OpenPMIx: installs Debian's libpmix-dev (4.2.x), pkg-config and gcc
# with apt-get where missing (as root, or through sudo), then checks and tests the host crate
# (pmix-kvs/host: its own workspace, so that the main workspace never needs libpmix):
# rustfmt, clippy and rustdoc with warnings denied, the unit tests, the scope matrix, the
# differential test and the killed/frozen host tests.
#
#   pmix-kvs/host/run.sh            what CI runs
#   pmix-kvs/host/run.sh --mpi      also installs Open MPI (libopenmpi-dev, openmpi-bin) and
#                                   runs the MPI program on simulated nodes
#   pmix-kvs/host/run.sh --full     the scope matrix on every shape of 2-8 nodes x 1-8
#                                   clients with every algorithm (12-19 minutes here)
#   pmix-kvs/host/run.sh --bench    the measurements (release build): fence time per
#                                   algorithm and node count, PMIx_Get after the fence
#
# Builds go to the repository's target folder, so that the dependencies the workspace built are
# reused (CARGO_TARGET_DIR overrides it).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MPI=0 FULL=0 BENCH=0
for a in "$@"; do
    case "$a" in
    --mpi) MPI=1 ;;
    --full) FULL=1 ;;
    --bench) BENCH=1 ;;
    *) echo "usage: $0 [--mpi] [--full] [--bench]" >&2; exit 2 ;;
    esac
done

install() {
    local SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@"
}
if ! pkg-config --exists pmix 2>/dev/null || ! command -v gcc >/dev/null; then
    install libpmix-dev pkg-config gcc libc6-dev
fi
if [ "$MPI" = 1 ] && ! command -v mpicc >/dev/null; then
    install libopenmpi-dev openmpi-bin
fi
echo "OpenPMIx $(pkg-config --modversion pmix), $(gcc --version | head -n1)"

cd "$HERE"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
cargo fmt -- --check
cargo clippy --locked --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps
if [ "$BENCH" = 1 ]; then
    cargo build --locked --release
    HOST="$CARGO_TARGET_DIR/release/pmix-kvs-host"
    echo "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
    "$HOST" bench fence --nodes 2,4,8 --per-node 1 --bytes 64 --fences 50 --reps 7
    "$HOST" bench fence --nodes 2,4,8 --per-node 2 --bytes 1024 --fences 50 --reps 7
    "$HOST" bench get --clients 4 --nodes 2 --gets 20000 --reps 7
    # OpenPMIx's own in-process server with 4 clients (pmix-kvs/scripts/openpmix_get.c), in
    # the same run for reference.
    PMIX_SKIP_KVS=1 bash "$ROOT/pmix-kvs/scripts/openpmix_get.sh" 4 20000 | tail -n 3
    echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
    exit 0
fi
if [ "$FULL" = 1 ]; then
    PMIX_KVS_HOST_FULL=1 cargo test --locked --test matrix -- --nocapture
else
    cargo test --locked
fi
if [ "$MPI" = 1 ]; then
    echo "Open MPI $(dpkg-query -W -f '${Version}' libopenmpi-dev 2>/dev/null || echo '?')"
    cargo test --locked --test mpi -- --ignored --nocapture
fi
