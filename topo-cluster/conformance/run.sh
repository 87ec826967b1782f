#!/usr/bin/env bash
# Conformance of topo-cluster's MPI tuning files with the real libraries: Debian 12's Open MPI
# (4.1.4) and MPICH (4.0.2) run a C program that calls every collective the files cover (and
# a barrier and an allreduce) at sizes on both sides of every rule boundary, on 4 to 16 ranks,
# under each file, and the algorithm each call ran is observed in the library itself:
#   - Open MPI: ompi_shim.so (LD_PRELOAD) defines the ompi_coll_base_* algorithm functions,
#     which coll/tuned (mca_coll_tuned.so) calls through its PLT, records the call with its
#     segment size and fan-out, and forwards it to libmpi's;
#   - MPICH: libmpich is stripped and its MPIR_* functions are not exported, so
#     mpich_locate.py finds each algorithm function's entry (the function whose code loads
#     the string of its own name, C's __func__, and that is a call target) and
#     mpich_observer.py runs every rank under gdb with a breakpoint there.
# The mpi_conformance example plans the scenarios (the mpi_files example's own files,
# generated tables covering every tree, level and size boundary, a corrupted file and a
# layout the version ignores) and checks the logs: every call must run what the file means,
# the collectives the files do not tune (a barrier, all-reduces of small and large messages)
# must run what the library runs without any file (observed in runs without one), and the
# corrupted file must be seen to fail.
#
# Usage (as root, or with the packages installed): topo-cluster/conformance/run.sh [WORKDIR]
# TC_NO_INSTALL=1 skips apt-get.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${1:-$(mktemp -d /tmp/topo-conformance.XXXXXX)}"
mkdir -p "$work"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*"; }

packages=(openmpi-bin libopenmpi-dev mpich libmpich-dev gdb gcc libc6-dev binutils python3)
if [ "${TC_NO_INSTALL:-0}" != 1 ]; then
    missing=()
    for p in "${packages[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
    fi
fi
say "Open MPI $(dpkg-query -W -f '${Version}' libopenmpi3), MPICH $(dpkg-query -W -f '${Version}' libmpich12)"

say "building the program and the Open MPI observer"
mpicc.openmpi -O1 -g -Wall -o "$work/coll_ompi" "$here/collectives.c"
mpicc.openmpi -O1 -Wall -shared -fPIC -o "$work/ompi_shim.so" "$here/ompi_shim.c" -ldl
mpicc.mpich -O1 -g -Wall -o "$work/coll_mpich" "$here/collectives.c"
libmpich="$(ldd "$work/coll_mpich" | awk '/libmpich\.so/ {print $3}')"
libmpich="$(readlink -f "$libmpich")"
# the algorithm functions observed: those of the collectives the files tune, and of the
# untuned ones (MPICH's own defaults)
functions=(
    MPIR_Bcast_intra_binomial MPIR_Bcast_intra_scatter_recursive_doubling_allgather
    MPIR_Bcast_intra_scatter_ring_allgather MPIR_Bcast_intra_smp
    MPIR_Scatter_intra_binomial MPIR_Gather_intra_binomial
    MPIR_Alltoall_intra_pairwise MPIR_Alltoall_intra_brucks MPIR_Alltoall_intra_scattered
    MPIR_Alltoall_intra_pairwise_sendrecv_replace
    MPIR_Barrier_intra_dissemination MPIR_Barrier_intra_smp
    MPIR_Allreduce_intra_recursive_doubling MPIR_Allreduce_intra_reduce_scatter_allgather
    MPIR_Allreduce_intra_smp
    MPIR_Allgather_intra_recursive_doubling MPIR_Allgather_intra_brucks MPIR_Allgather_intra_ring
    MPIR_Allgatherv_intra_recursive_doubling MPIR_Allgatherv_intra_brucks MPIR_Allgatherv_intra_ring
    MPIR_Reduce_intra_binomial MPIR_Reduce_intra_reduce_scatter_gather MPIR_Reduce_intra_smp
    MPIR_Reduce_scatter_intra_recursive_halving MPIR_Reduce_scatter_intra_pairwise
    MPIR_Reduce_scatter_intra_noncommutative MPIR_Reduce_scatter_intra_recursive_doubling
    MPIR_Reduce_scatter_block_intra_recursive_halving MPIR_Reduce_scatter_block_intra_pairwise
    MPIR_Reduce_scatter_block_intra_noncommutative MPIR_Reduce_scatter_block_intra_recursive_doubling
    MPIR_Alltoallv_intra_scattered MPIR_Alltoallv_intra_pairwise_sendrecv_replace
    MPIR_Gatherv_allcomm_linear MPIR_Scatterv_allcomm_linear
    MPIR_Scan_intra_smp MPIR_Scan_intra_recursive_doubling MPIR_Exscan_intra_recursive_doubling
)
offsets="$work/offsets.$(basename "$libmpich").${#functions[@]}"
if [ ! -s "$offsets" ]; then
    say "locating MPICH's algorithm functions in $libmpich"
    python3 "$here/mpich_locate.py" "$libmpich" "${functions[@]}" >"$work/offsets.tmp"
    mv "$work/offsets.tmp" "$offsets"
fi

say "writing the files"
cd "$root"
cargo run --quiet --locked -p topo-cluster --example mpi_files -- "$work/example" >/dev/null
rm -rf "$work/scenarios"
cargo run --quiet --locked -p topo-cluster --example mpi_conformance -- plan "$work/scenarios" "$work/example"
cargo build --quiet --locked -p topo-cluster --example mpi_conformance

# MPICH's own branches in the files, key for key the table compiled into this libmpich (the
# collectives topo-cluster does not tune, and the inter-communicator branches of those it does)
python3 "$here/mpich_builtin.py" "$libmpich" "$work/example/mpich_coll_selection_4.0.json" || failed_builtin=1

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failed=${failed_builtin:-0}
# the runs without any file: what each library runs for the collectives topo-cluster does not
# tune, on every communicator size of its scenarios (the scenarios must run the same)
for lib in openmpi mpich; do
    nps="$(for d in "$work"/scenarios/*/; do
        if [ "$(cat "$d/library")" = "$lib" ] && [ "$(cat "$d/outcome")" != abort ]; then
            cat "$d/nps"
        fi
    done | tr ' ' '\n' | sort -nu | tr '\n' ' ')"
    base="$work/baseline/$lib"
    rm -rf "$base"
    mkdir -p "$base"
    say "$lib without a file on $nps ranks"
    for np in $nps; do
        if [ "$lib" = openmpi ]; then
            timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
                -x TC_LOG="$base/np$np" -x LD_PRELOAD="$work/ompi_shim.so" \
                "$work/coll_ompi" "$work/scenarios/untuned.$lib.calls" >"$work/baseline/$lib.$np.out" 2>&1 || {
                say "$lib without a file failed on $np ranks:"; tail -5 "$work/baseline/$lib.$np.out"; failed=1; }
        else
            TC_LOG="$base/np$np" TC_OFFSETS="$offsets" timeout 300 mpiexec.mpich -n "$np" \
                gdb -q -batch -x "$here/mpich_observer.py" --args "$work/coll_mpich" "$work/scenarios/untuned.$lib.calls" \
                >"$work/baseline/$lib.$np.out" 2>&1 || {
                say "$lib without a file failed on $np ranks:"; tail -5 "$work/baseline/$lib.$np.out"; failed=1; }
        fi
    done
done
for dir in "$work"/scenarios/*/; do
    name="$(basename "$dir")"
    lib="$(cat "$dir/library")"
    rm -rf "$dir/logs"
    mkdir -p "$dir/logs"
    if [ "$(cat "$dir/outcome")" = abort ]; then
        # the version must refuse the file when MPI starts
        if MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$dir/file" timeout 120 \
            mpiexec.mpich -n 2 "$work/coll_mpich" "$dir/calls" >"$dir/logs/run.out" 2>&1; then
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
    for np in $(cat "$dir/nps"); do
        if [ "$lib" = openmpi ]; then
            timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
                --mca coll_tuned_use_dynamic_rules 1 \
                --mca coll_tuned_dynamic_rules_filename "$dir/file" \
                -x TC_LOG="$dir/logs/np$np" -x LD_PRELOAD="$work/ompi_shim.so" \
                "$work/coll_ompi" "$dir/calls" >"$dir/logs/run$np.out" 2>&1 || {
                say "$name: the program failed on $np ranks:"; tail -5 "$dir/logs/run$np.out"; failed=1; }
        else
            # shellcheck disable=SC2046 # the scenario's extra NAME=VALUE words
            env $(cat "$dir/env") \
            MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$dir/file" TC_LOG="$dir/logs/np$np" \
                TC_OFFSETS="$offsets" timeout 300 mpiexec.mpich -n "$np" \
                gdb -q -batch -x "$here/mpich_observer.py" --args "$work/coll_mpich" "$dir/calls" \
                >"$dir/logs/run$np.out" 2>&1 || {
                say "$name: the program failed on $np ranks:"; tail -5 "$dir/logs/run$np.out"; failed=1; }
        fi
    done
    if ! "$root/target/debug/examples/mpi_conformance" check "$dir" "$work/baseline/$lib" "$dir"/logs/np*.*; then
        say "$name: FAILED"
        failed=1
    fi
done
say "done (work folder $work)"
exit $failed
