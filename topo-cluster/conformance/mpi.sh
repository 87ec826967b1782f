#!/usr/bin/env bash
# The MPI half of the conformance test (run.sh runs it, on the machine itself for Debian 12 or
# in a Debian 13 chroot, and checks the logs): builds the C program and the observers against
# the installed Open MPI and MPICH, locates MPICH's algorithm functions, and runs the program
# under every scenario's file (and once without any file) on every communicator size of the
# scenario, writing each rank's log to SCENARIO/logs/npN.PID, the program's output to
# SCENARIO/logs/runN.out and its exit status to SCENARIO/logs/rcN. Expects the packages
# installed (openmpi-bin, libopenmpi-dev, mpich, libmpich-dev, gdb, gcc, libc6-dev, binutils,
# python3) and WORKDIR/scenarios planned by `mpi_conformance plan`.
#
# Usage: mpi.sh WORKDIR. Exits 1 when a program that had to run failed or MPICH's built-in
# table differs from the file's defaults (mpich_builtin.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$1"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*"; }

ompi_version="$(dpkg-query -W -f '${Version}' openmpi-bin)"
mpich_version="$(mpichversion | awk '/MPICH Version:/ {print $3}')"
say "Open MPI $ompi_version, MPICH $mpich_version ($(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release))"

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
    MPIR_Barrier_intra_smp
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
case "$mpich_version" in
    4.0*) functions+=(MPIR_Barrier_intra_dissemination) ;;
    # 4.1 renamed the barrier and added the k-ary trees
    *) functions+=(MPIR_Barrier_intra_k_dissemination MPIR_Bcast_intra_tree MPIR_Bcast_intra_pipelined_tree) ;;
esac
offsets="$work/offsets.$(basename "$libmpich").${#functions[@]}"
if [ ! -s "$offsets" ]; then
    say "locating MPICH's algorithm functions in $libmpich"
    python3 "$here/mpich_locate.py" "$libmpich" "${functions[@]}" >"$work/offsets.tmp"
    mv "$work/offsets.tmp" "$offsets"
fi

failed=0
# MPICH's own branches in the files, key for key the table compiled into this libmpich (the
# collectives topo-cluster does not tune, and the inter-communicator branches of those it does)
python3 "$here/mpich_builtin.py" "$libmpich" "$work/scenarios/mpich-builtin.json" || failed=1

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# more ranks than cores: Open MPI 5 (PRRTE) spells 4.1's --oversubscribe as a mapping modifier
oversubscribe=(--oversubscribe)
case "$ompi_version" in 4.*) ;; *) oversubscribe=(--map-by :OVERSUBSCRIBE) ;; esac
# MPICH >= 4.1: the observer records the communicator each tuned algorithm runs on (gdb calls
# the program's tc_comm(); Debian 12's gdb 13 cannot here, and 4.0's trees need no such record)
if [ -e "$work/scenarios/observe-comms" ]; then export TC_COMMS=1; fi

# run LIBRARY NP LOG CALLS OUT [NAME=VALUE...]: the program on NP ranks under the observer
run() {
    local lib="$1" np="$2" log="$3" calls="$4" out="$5"
    shift 5
    if [ "$lib" = openmpi ]; then
        local mca=()
        for v in "$@"; do mca+=(--mca "${v%%=*}" "${v#*=}"); done
        timeout 300 mpirun.openmpi --allow-run-as-root "${oversubscribe[@]}" --bind-to none -np "$np" \
            "${mca[@]}" -x TC_LOG="$log" -x LD_PRELOAD="$work/ompi_shim.so" \
            "$work/coll_ompi" "$calls" >"$out" 2>&1
    else
        env "$@" TC_LOG="$log" TC_OFFSETS="$offsets" timeout 300 mpiexec.mpich -n "$np" \
            gdb -q -batch -x "$here/mpich_observer.py" --args "$work/coll_mpich" "$calls" \
            >"$out" 2>&1
    fi
}

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
        run "$lib" "$np" "$base/np$np" "$work/scenarios/untuned.$lib.calls" "$work/baseline/$lib.$np.out" || {
            say "$lib without a file failed on $np ranks:"; tail -5 "$work/baseline/$lib.$np.out"; failed=1; }
    done
done

for dir in "$work"/scenarios/*/; do
    name="$(basename "$dir")"
    lib="$(cat "$dir/library")"
    rm -rf "$dir/logs"
    mkdir -p "$dir/logs"
    if [ "$(cat "$dir/outcome")" = abort ]; then
        # the version must refuse the file when MPI starts (run.sh reads why)
        rc=0
        MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$dir/file" timeout 120 \
            mpiexec.mpich -n 2 "$work/coll_mpich" "$dir/calls" >"$dir/logs/run.out" 2>&1 || rc=$?
        echo "$rc" >"$dir/logs/rc"
        continue
    fi
    read -ra nps <"$dir/nps"
    say "$name on ${nps[*]} ranks"
    if [ "$lib" = openmpi ]; then
        settings=(coll_tuned_use_dynamic_rules=1 coll_tuned_dynamic_rules_filename="$dir/file")
    else
        # shellcheck disable=SC2207 # the scenario's extra NAME=VALUE words
        settings=($(cat "$dir/env") MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$dir/file")
    fi
    for np in "${nps[@]}"; do
        rc=0
        run "$lib" "$np" "$dir/logs/np$np" "$dir/calls" "$dir/logs/run$np.out" "${settings[@]}" || rc=$?
        echo "$rc" >"$dir/logs/rc$np"
        if [ "$rc" != 0 ]; then
            say "$name: the program failed on $np ranks:"; tail -5 "$dir/logs/run$np.out"; failed=1
        fi
    done
done
say "MPI runs done"
exit $failed
