#!/usr/bin/env bash
# Conformance of topo-cluster's MPI tuning files with the real libraries: Debian 12's Open MPI
# (4.1.4) and MPICH (4.0.2), or Debian 13's (Open MPI 5.0.7, MPICH 4.2.1) in a chroot, run a C
# program that calls every collective the files cover (and a barrier and an allreduce) at
# sizes on both sides of every rule boundary, on 4 to 16 ranks, under each file, and the
# algorithm each call ran is observed in the library itself:
#   - Open MPI: ompi_shim.so (LD_PRELOAD) defines the ompi_coll_base_* algorithm functions,
#     which coll/tuned calls through the PLT or GOT (4.1: mca_coll_tuned.so's; 5.0, whose
#     components are built into libmpi: libmpi's own), records the call with its segment size
#     and fan-out, and forwards it to libmpi's;
#   - MPICH: libmpich is stripped and its MPIR_* functions are not exported, so
#     mpich_locate.py finds each algorithm function's entry (the function whose code loads
#     the string of its own name, C's __func__, or of its source file, and that is a call
#     target) and mpich_observer.py runs every rank under gdb with a breakpoint there (for
#     MPICH >= 4.1 also reading the k-ary trees' k and chunk size and the communicator).
# The mpi_conformance example plans the scenarios (the mpi_files example's own files,
# generated tables covering every tree, level and size boundary, a corrupted file and a
# layout the version ignores) and checks the logs: every call must run what the file means,
# the collectives the files do not tune (a barrier, all-reduces of small and large messages)
# must run what the library runs without any file (observed in runs without one), and the
# corrupted file must be seen to fail. mpi.sh is the MPI half (building, locating, running).
#
# Usage (as root): topo-cluster/conformance/run.sh [--debian 12|13] [WORKDIR]
#   --debian 12 (the default): on this machine, a Debian 12; installs the packages with
#     apt-get when missing (TC_NO_INSTALL=1 skips that).
#   --debian 13: in a Debian 13 (trixie) chroot at $TC_CHROOT (default
#     /var/tmp/topo-cluster-trixie), built with debootstrap from $TC_MIRROR (default
#     http://deb.debian.org/debian) when it has no finished install, with /proc, /sys, /dev
#     (/dev/shm, /dev/pts), the work folder and this folder mounted in it while it runs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
debian=12
if [ "${1:-}" = --debian ]; then
    debian="${2:?--debian 12 or 13}"
    shift 2
fi
case "$debian" in 12 | 13) ;; *) echo "run.sh: --debian 12 or 13, not $debian" >&2; exit 2 ;; esac
work="${1:-$(mktemp -d /tmp/topo-conformance.XXXXXX)}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*"; }

packages=(openmpi-bin libopenmpi-dev mpich libmpich-dev gdb gcc libc6-dev binutils python3)
export DEBIAN_FRONTEND=noninteractive
chroot_dir=""

# the chroot's mounts, deepest first
chroot_mounts() {
    awk -v d="$chroot_dir" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/mounts | sort -r
}
unmount_chroot() {
    local m
    for m in $(chroot_mounts); do
        umount "$m" 2>/dev/null || umount -l "$m" || echo "run.sh: could not unmount $m" >&2
    done
}

if [ "$debian" = 12 ]; then
    if [ "${TC_NO_INSTALL:-0}" != 1 ]; then
        missing=()
        for p in "${packages[@]}"; do
            dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
        done
        if [ ${#missing[@]} -gt 0 ]; then
            say "installing ${missing[*]}"
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
        fi
    fi
else
    chroot_dir="${TC_CHROOT:-/var/tmp/topo-cluster-trixie}"
    mirror="${TC_MIRROR:-http://deb.debian.org/debian}"
    trap unmount_chroot EXIT
    unmount_chroot # a previous run's, if it was killed
    if [ -n "$(chroot_mounts)" ]; then
        echo "run.sh: $chroot_dir still has mounts: $(chroot_mounts | tr '\n' ' ')" >&2
        exit 1
    fi
    if [ ! -e "$chroot_dir/.topo-cluster-ready" ]; then
        if ! command -v debootstrap >/dev/null; then
            say "installing debootstrap"
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 debootstrap >/dev/null
        fi
        say "debootstrap trixie into $chroot_dir"
        rm -rf "$chroot_dir"
        debootstrap --variant=minbase trixie "$chroot_dir" "$mirror" >"$work/debootstrap.log" 2>&1 || {
            tail -20 "$work/debootstrap.log"; exit 1; }
    fi
    mount -t proc proc "$chroot_dir/proc"
    for d in sys dev; do
        mount --rbind "/$d" "$chroot_dir/$d"
        mount --make-rslave "$chroot_dir/$d"
    done
    # the work folder and this folder at the same paths inside
    for d in "$work" "$here"; do
        mkdir -p "$chroot_dir$d"
        mount --bind "$d" "$chroot_dir$d"
    done
    if [ ! -e "$chroot_dir/.topo-cluster-ready" ]; then
        say "installing ${packages[*]} in the chroot"
        chroot "$chroot_dir" apt-get update -qq
        chroot "$chroot_dir" apt-get install -y -qq --no-install-recommends "${packages[@]}" >"$work/apt.log" 2>&1 || {
            tail -20 "$work/apt.log"; exit 1; }
        touch "$chroot_dir/.topo-cluster-ready"
    fi
fi

say "writing the files"
cd "$root"
cargo run --quiet --locked -p topo-cluster --example mpi_files -- "$work/example" >/dev/null
rm -rf "$work/scenarios"
cargo run --quiet --locked -p topo-cluster --example mpi_conformance -- \
    plan "$work/scenarios" "$work/example" "debian-$debian"
cargo build --quiet --locked -p topo-cluster --example mpi_conformance

failed=0
if [ "$debian" = 12 ]; then
    bash "$here/mpi.sh" "$work" || failed=1
else
    chroot "$chroot_dir" /bin/bash "$here/mpi.sh" "$work" || failed=1
    unmount_chroot
    trap - EXIT
fi

# the checks, on this machine
for dir in "$work"/scenarios/*/; do
    name="$(basename "$dir")"
    lib="$(cat "$dir/library")"
    if [ "$(cat "$dir/outcome")" = abort ]; then
        # the version must refuse the file when MPI starts
        if [ "$(cat "$dir/logs/rc")" = 0 ]; then
            say "$name: FAILED (the program ran; MPICH should have refused the file)"
            failed=1
        elif grep -q "unrecognized key" "$dir/logs/run.out"; then
            say "$name: refused as expected: $(grep -m1 "unrecognized key" "$dir/logs/run.out")"
        else
            say "$name: FAILED (the program failed for another reason)"; tail -5 "$dir/logs/run.out"
            failed=1
        fi
        continue
    fi
    if ! "$root/target/debug/examples/mpi_conformance" check "$dir" "$work/baseline/$lib" "$dir"/logs/np*.*; then
        say "$name: FAILED"
        failed=1
    fi
done
say "done (work folder $work)"
exit $failed
