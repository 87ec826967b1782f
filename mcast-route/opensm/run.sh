#!/usr/bin/env bash
# mcast-route inside a real OpenSM: Debian 12's OpenSM 3.3.23 with our MR4LMS patch
# (mr4lms.patch), run on ibsim, beside the same OpenSM's stock multicast routing (MINIHOP-MC).
#
# 1. installs ibsim, libumad2sim, infiniband-diags and OpenSM's build dependencies (apt-get,
#    as root), adds a deb-src line for bookworm and fetches OpenSM's Debian source;
# 2. builds mcast-route-capi (release) and OpenSM patched to link it, cached under
#    target/opensm/ (a second run relinks only);
# 3. runs the C ABI's C test under valgrind's memcheck;
# 4. per fabric and per mode (stock, mr4lms): starts ibsim and OpenSM over libumad2sim, joins
#    the hosts to their groups with SA MCMemberRecord SETs sent by each host (mcjoin), reads
#    every switch's MFT back with `ibroute -M`, flood-checks it (opensm_check), checks that a
#    corrupted copy fails the check, takes the busiest switch-to-switch cable down in ibsim,
#    checks the tables after OpenSM's sweep, brings it up and checks again;
# 5. prints the side-by-side table (also in target/opensm/results-SCALE-ORDER.txt).
#
# Usage: mcast-route/opensm/run.sh [small|large]   (small: CI's fabrics; large: the README's)
# Environment: OPENSM_WORK (default target/opensm) for the cache and the logs;
# OPENSM_MR4LMS_ENTRIES, the MFT entry limit of the MR4LMS runs (small 8, large 16);
# OPENSM_JOIN_ORDER, host (default) or group (see do_joins).
set -euo pipefail

scale=${1:-small}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${OPENSM_WORK:-$root/target/opensm}
sim_so=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
version=3.3.23
debian_version=3.3.23-2
mkdir -p "$work"
log() { echo "[opensm-check $(date +%T)] $*"; }
die() { echo "[opensm-check] FAILED: $*" >&2; exit 1; }

# --- 1. packages -------------------------------------------------------------------------------
packages=(opensm ibsim-utils libumad2sim0 infiniband-diags libibumad-dev gcc make autoconf automake
          libtool flex bison libwrap0-dev pkg-config dpkg-dev valgrind)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    [[ $(id -u) == 0 ]] || die "packages missing (${missing[*]}) and not root to install them"
    log "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi
log "ibsim $(dpkg-query -W -f='${Version}' ibsim-utils), infiniband-diags" \
    "$(dpkg-query -W -f='${Version}' infiniband-diags), libibumad" \
    "$(dpkg-query -W -f='${Version}' libibumad-dev)"

# --- 2. OpenSM's Debian source -----------------------------------------------------------------
src=$work/src/opensm-$version
if [[ ! -f $work/src/provenance ]]; then
    rm -rf "$work/src" && mkdir -p "$work/src" && cd "$work/src"
    if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ ||
        ! apt-cache showsrc opensm 2>/dev/null | grep -q "^Version: $debian_version"; then
        [[ $(id -u) == 0 ]] || die "no deb-src line for bookworm and not root to add one"
        cat >/etc/apt/sources.list.d/fabric-opensm-src.sources <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        apt-get update -qq
    fi
    apt-get source --download-only "opensm=$debian_version" >apt-source.log 2>&1 || true
    dsc=opensm_$debian_version.dsc
    orig=opensm_$version.orig.tar.gz
    [[ -f $dsc && -f $orig ]] || die "apt-get source opensm=$debian_version fetched no .dsc/orig"
    if [[ -f opensm_$debian_version.debian.tar.xz ]]; then
        dpkg-source -x "$dsc" "opensm-$version" >/dev/null
        echo "Debian source package opensm $debian_version (dpkg-source -x, Debian's patches applied)" \
            >provenance
    else
        # The mirror serves the .dsc and the upstream tarball but not the packaging tarball:
        # the upstream 3.3.23 tarball Debian builds from, checked against the .dsc's SHA256.
        want=$(awk -v f="$orig" '/^Checksums-Sha256:/{s=1;next} /^[A-Z]/{s=0} s && $3==f {print $1}' "$dsc")
        [[ -n $want && $(sha256sum "$orig" | cut -d' ' -f1) == "$want" ]] ||
            die "$orig does not match the SHA256 in $dsc"
        tar xzf "$orig"
        echo "Debian's opensm $debian_version upstream tarball ($orig, SHA256 checked against $dsc); the packaging tarball was not served, so Debian's own patches are not applied" \
            >provenance
    fi
fi
log "source: $(cat "$work/src/provenance")"

# --- 3. builds -----------------------------------------------------------------------------------
cd "$root"
log "building mcast-route-capi (release) and the opensm_check tool"
# --lib as well: building the example alone gives the rlib, not the static library.
cargo build --release --locked --quiet -p mcast-route-capi --lib --example opensm_check
[[ -f $root/target/release/libmcast_route_capi.a ]] || die "no static library in target/release"
lib=$root/target/release/libmcast_route_capi.a
check=$root/target/release/examples/opensm_check
key=$(cat "$here/mr4lms.patch" "$work/src/provenance" | sha256sum | cut -c1-12)
build=$work/build-$key
if [[ ! -x $build/opensm/opensm ]]; then
    log "building OpenSM $version with mr4lms.patch (cache $build)"
    rm -rf "$build" && cp -r "$src" "$build" && cd "$build"
    patch -p1 --quiet <"$here/mr4lms.patch"
    autoreconf -fi >autoreconf.log 2>&1
    ./configure --disable-shared CPPFLAGS="-I$root/mcast-route/capi/include" \
        LIBS="$lib -lpthread -ldl -lm" >configure.log 2>&1
    make -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log; die "OpenSM build"; }
else
    log "relinking the cached OpenSM build against the new static library"
    rm -f "$build/opensm/opensm"
    make -C "$build/opensm" opensm >"$build/relink.log" 2>&1 || die "OpenSM relink"
fi
opensm=$build/opensm/opensm
gcc -O2 -Wall -Wextra -Werror -o "$work/mcjoin" "$here/mcjoin.c" -libumad

log "C ABI test under valgrind memcheck"
gcc -std=c11 -g -Wall -Wextra -Werror -I"$root/mcast-route/capi/include" \
    "$root/mcast-route/capi/tests/c/capi_test.c" "$lib" -lpthread -ldl -lm -o "$work/capi_test"
valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
    "$work/capi_test" >"$work/capi_test.log" 2>&1 || { cat "$work/capi_test.log"; die "C test"; }
tail -1 "$work/capi_test.log"

# --- 4. runs on ibsim ----------------------------------------------------------------------------
export IBSIM_SOCKNAME=fabric-opensm-$$
sim_pid= osm_pid= hold_pid=
stop_all() {
    local pid
    for pid in $osm_pid $sim_pid $hold_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    osm_pid= sim_pid= hold_pid=
    return 0
}
trap stop_all EXIT

sim() { LD_PRELOAD=$sim_so "$@"; }
console() { echo "$*" >"$run/console"; }
stats_lines() { grep -c "MCAST-STATS" "$run/osm.log" 2>/dev/null || true; }
# Waits until OpenSM's log has had no new multicast pass for a second (at most $1 s).
settle() {
    local n m i
    for ((i = 0; i < ${1:-30}; i++)); do
        n=$(stats_lines); sleep 1; m=$(stats_lines)
        [[ $n == "$m" && $m -gt 0 ]] && return 0
    done
    die "OpenSM did not settle"
}
# Waits for a heavy sweep's multicast pass after line $1 of the stats.
wait_sweep() {
    local i
    for ((i = 0; i < 60; i++)); do
        grep "MCAST-STATS" "$run/osm.log" | tail -n +"$(($1 + 1))" | grep -q "config_all 1" && return 0
        sleep 0.5
    done
    die "no sweep after the event"
}
readback() {
    : >"$1"
    local g
    for g in $switch_guids; do
        sim ibroute -M -G "$g" >>"$1" 2>/dev/null || die "ibroute -M -G $g"
    done
}
# The SA's MCMemberRecord of every group, one query each (ibsim's SA answers carry one MAD:
# a multi-segment RMPP answer such as `saquery -g` of every group comes back truncated).
sa_records() {
    : >"$1"
    local g
    for g in $(awk '{print $1}' "$run/members.txt" | sort -un); do
        sim saquery --mgid "ff15:1::$(printf %x "$g")" MCMR >>"$1" 2>/dev/null ||
            die "saquery MCMR of group $g"
    done
}
# Sums a field of the MCAST-STATS lines after line $1 (up to line $2, default all).
sum_stat() {
    grep "MCAST-STATS" "$run/osm.log" | sed -n "$(($1 + 1)),${2:-\$}p" |
        awk -v f="$3" '{for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1)} END {print s + 0}'
}

# do_joins JOINS OUT: every join of JOINS (HOST GROUP lines) sent by its host, each answer in
# OUT as "HOST join GROUP mlid ... status ...". Order (OPENSM_JOIN_ORDER): "host", each host
# sends all its joins, hosts one after the other (a job's processes starting); "group", the
# members of one group join one after the other, group by group.
do_joins() {
    local h g
    if [[ $join_order == group ]]; then
        while read -r h g; do
            echo "join $g" | SIM_HOST=$h sim "$work/mcjoin" 2>/dev/null | sed "s/^/$h /" >>"$2" ||
                { tail -3 "$2"; die "a join of $h failed"; }
        done <"$1"
    else
        for h in $(awk '!seen[$1]++ {print $1}' "$1"); do
            awk -v h="$h" '$1 == h {print "join", $2}' "$1" |
                SIM_HOST=$h sim "$work/mcjoin" 2>/dev/null | sed "s/^/$h /" >>"$2" ||
                { tail -3 "$2"; die "a join of $h failed"; }
        done
    fi
}
join_order=${OPENSM_JOIN_ORDER:-host}
[[ $join_order == host || $join_order == group ]] || die "OPENSM_JOIN_ORDER is host or group"

results=$work/results-$scale-$join_order.txt
row() { printf '%-28s %-7s %6s %6s %8s %7s %7s %8s %8s %9s %9s %7s %8s\n' "$@" | tee -a "$results"; }

# run_case NAME TOPO EVENTS GROUP-PATTERN... : both modes on one fabric (and Debian's own
# opensm binary, whose tables must equal the patched build's stock ones: at the small scale
# on fabrics of at most 20 switches, to keep CI's time); EVENTS is "link"
# to take the busiest cable down and up, "none" for a fabric without a redundant path.
run_case() {
    local name=$1 topo=$2 events=$3
    shift 3
    local mode
    "$check" groups "$topo" "$@" >"$work/$name.joins"
    local joins groups hosts
    joins=$(wc -l <"$work/$name.joins")
    groups=$(awk '{print $2}' "$work/$name.joins" | sort -u | wc -l)
    hosts=$(awk '{print $1}' "$work/$name.joins" | sort -u | wc -l)
    switch_guids=$(awk -F'[=(]' '/^switchguid=/{print $2}' "$topo")
    local nsw
    nsw=$(echo "$switch_guids" | wc -w)
    log "$name: $nsw switches, $groups groups, $joins joins from $hosts hosts"
    local modes=(stock debian mr4lms)
    # CI's time budget: Debian's own binary only where the switches are few.
    [[ $scale == small && $nsw -gt 20 ]] && modes=(stock mr4lms)
    for mode in "${modes[@]}"; do
        run=$work/run-$name-$mode
        rm -rf "$run" && mkdir -p "$run"
        mkfifo "$run/console"
        sleep 100000 >"$run/console" &
        hold_pid=$!
        ibsim -s -N $((nsw + hosts + 16)) -S $((nsw + 16)) -P $((nsw * 64 + hosts * 2 + 64)) \
            "$topo" <"$run/console" >"$run/ibsim.log" 2>&1 &
        sim_pid=$!
        for ((i = 0; i < 50; i++)); do grep -qs "simulator ready" "$run/ibsim.log" && break; sleep 0.2; done
        grep -q "simulator ready" "$run/ibsim.log" || { cat "$run/ibsim.log"; die "ibsim on $topo"; }
        printf 'Default=0x7fff : ALL=full ;\n' >"$run/partitions.conf"
        {
            echo "partition_config_file $run/partitions.conf"
            echo "force_log_flush TRUE"
            echo "sweep_interval 1"
            if [[ $mode == mr4lms ]]; then
                echo "mcast_mr4lms TRUE"
                echo "mcast_mr4lms_entries $limit"
            fi
        } >"$run/opensm.conf"
        local binary=$opensm
        [[ $mode == debian ]] && binary=/usr/sbin/opensm
        LD_PRELOAD=$sim_so "$binary" -F "$run/opensm.conf" -f "$run/osm.log" >"$run/opensm.out" 2>&1 &
        osm_pid=$!
        for ((i = 0; i < 100; i++)); do grep -qs "SUBNET UP" "$run/osm.log" && break; sleep 0.2; done
        grep -q "SUBNET UP" "$run/osm.log" || die "OpenSM did not bring the subnet up ($mode)"
        if [[ $mode == debian ]]; then
            # Debian's binary has no counters: the same joins, then its tables must be the
            # patched build's stock tables, byte for byte.
            sleep 2
            do_joins "$work/$name.joins" "$run/mcjoin.out"
            sleep 3
            readback "$run/tables.txt"
            cmp -s "$run/tables.txt" "$work/run-$name-stock/tables.txt" ||
                die "Debian's opensm programs other tables than the patched build's stock mode"
            log "debian: /usr/sbin/opensm $(dpkg-query -W -f='${Version}' opensm 2>/dev/null) programs the same tables as the patched build's stock mode"
            stop_all
            continue
        fi
        settle
        local before
        before=$(stats_lines)
        local t0 t1
        t0=$(date +%s%N)
        do_joins "$work/$name.joins" "$run/mcjoin.out"
        t1=$(date +%s%N)
        settle
        local after
        after=$(stats_lines)
        awk '$2 == "join" && $7 == "0x0000" {print $3, $5, $1}' "$run/mcjoin.out" >"$run/members.txt"
        [[ $(wc -l <"$run/members.txt") == "$joins" ]] || die "$mode: not every join answered"
        local opts=(--limit 1024)
        [[ $mode == mr4lms ]] && opts=(--limit "$limit")
        [[ $mode == stock ]] && opts+=(--no-extra)
        readback "$run/tables.txt"
        "$check" check "$topo" "$run/tables.txt" "$run/members.txt" "${opts[@]}" |
            tee "$run/check.txt" || die "$mode: the tables read back fail the flood check"
        # A corrupted copy (one port taken out of the first entry of a tree's switch) must fail.
        awk 'done != 1 && /^0x/ {
                 rest = substr($0, 7)
                 if (gsub(/x/, "x", rest) >= 2) { sub(/x/, " ", rest); $0 = substr($0, 1, 6) rest; done = 1 }
             } {print}' \
            "$run/tables.txt" >"$run/tables-corrupted.txt"
        if "$check" check "$topo" "$run/tables-corrupted.txt" "$run/members.txt" \
            "${opts[@]}" >"$run/check-corrupted.txt" 2>&1; then
            die "$mode: a corrupted table passed the flood check"
        fi
        log "$mode: corrupted copy refused: $(grep -m1 fault: "$run/check-corrupted.txt")"
        local link_sw link_port down_at up_at end_at
        down_at=$(stats_lines) up_at=$(stats_lines) end_at=$(stats_lines)
        if [[ $events == link ]]; then
            # A busy switch-to-switch cable down in ibsim, then up; tables checked after each sweep.
            read -r link_sw link_port < <("$check" busy-link "$topo" "$run/tables.txt")
            down_at=$(stats_lines)
            console "Unlink \"$link_sw\"[$link_port]"
            wait_sweep "$down_at"; settle
            readback "$run/tables-down.txt"
            sa_records "$run/sa-down.txt"
            "$check" check "$topo" "$run/tables-down.txt" "$run/members.txt" "${opts[@]}" \
                --sa "$run/sa-down.txt" \
                >"$run/check-down.txt" || { cat "$run/check-down.txt"; die "$mode: after the link down"; }
            up_at=$(stats_lines)
            console "ReLink \"$link_sw\"[$link_port]"
            wait_sweep "$up_at"; settle
            end_at=$(stats_lines)
            readback "$run/tables-up.txt"
            sa_records "$run/sa-up.txt"
            "$check" check "$topo" "$run/tables-up.txt" "$run/members.txt" "${opts[@]}" \
                --sa "$run/sa-up.txt" \
                >"$run/check-up.txt" || { cat "$run/check-up.txt"; die "$mode: after the link up"; }
            log "$mode: link $link_sw[$link_port] down and up: tables pass the flood check after each sweep"
        fi
        # The figures.
        local entries efi merged nonmemb mlids blocks_join usec_join blocks_down blocks_up
        entries=$(sed -n 's/.*entries per switch max \([0-9]*\).*/\1/p' "$run/check.txt")
        efi=$(sed -n 's/.*max EFI \([0-9]*\).*/\1/p' "$run/check.txt")
        nonmemb=$(sed -n 's/.*groups reaching non-members \([0-9]*\).*/\1/p' "$run/check.txt")
        merged=0
        [[ $mode == mr4lms ]] &&
            merged=$(grep "MR4LMS-STATS" "$run/osm.log" | sed -n "$after"p | sed -n 's/.*merged \([0-9]*\).*/\1/p')
        mlids=$(sed -n 's/.* \([0-9]*\) MLIDs in the tables.*/\1/p' "$run/check.txt")
        blocks_join=$(sum_stat "$before" "$after" mft_blocks_sent)
        usec_join=$(($(sum_stat "$before" "$after" mgr_usec) + $(sum_stat "$before" "$after" sa_usec)))
        if [[ $mode == mr4lms ]]; then
            # The router replayed offline on the same joins in the same order must give what
            # the live OpenSM programmed: the same colors, entries, max EFI and merges.
            local replayed
            replayed=$("$check" replay "$topo" "$work/$name.joins" "$limit" "$join_order")
            [[ $replayed == *" $mlids colors, entries per switch max $entries, max EFI $efi, merged $merged" ]] ||
                die "the live OpenSM ($mlids MLIDs, $entries entries, max EFI $efi, merged $merged) differs from the router replayed offline: $replayed"
            log "mr4lms: the router replayed on the same joins gives the same figures ($replayed)"
        fi
        blocks_down=- blocks_up=-
        if [[ $events == link ]]; then
            blocks_down=$(sum_stat "$down_at" "$up_at" mft_blocks_sent)
            blocks_up=$(sum_stat "$up_at" "$end_at" mft_blocks_sent)
        fi
        row "$name" "$mode" "$groups" "$mlids" "$entries" "$efi" "$merged" "$nonmemb" \
            "$(awk -v u="$usec_join" -v j="$joins" 'BEGIN {printf "%.1f", u / j}')" \
            "$(awk -v b="$blocks_join" -v j="$joins" 'BEGIN {printf "%.2f", b / j}')" \
            "$blocks_down" "$blocks_up" \
            "$(awk -v a="$t0" -v b="$t1" -v j="$joins" 'BEGIN {printf "%.2f", (b - a) / 1e6 / j}')"
        stop_all
    done
    # The paper's offline experiment on the same groups: each created whole.
    local off
    off=$("$check" offline "$topo" "$work/$name.joins" "$limit")
    row "$name" offline "$groups" \
        "$(sed -n 's/.* \([0-9]*\) colors.*/\1/p' <<<"$off")" \
        "$(sed -n 's/.*entries per switch max \([0-9]*\).*/\1/p' <<<"$off")" \
        "$(sed -n 's/.*max EFI \([0-9]*\).*/\1/p' <<<"$off")" \
        "$(sed -n 's/.*merged \([0-9]*\).*/\1/p' <<<"$off")" - - - - - -
}

: >"$results"
limit=${OPENSM_MR4LMS_ENTRIES:-8}
row "fabric (pattern)" mode groups MLIDs entr/sw maxEFI merged nonmemb "us/join" "blk/join" "blk:down" "blk:up" "ms/join"
case $scale in
small)
    "$check" fabric fat-tree 4 >"$work/fat_tree4.topo"
    "$check" fabric fat-tree 8 >"$work/fat_tree8.topo"
    run_case "man-page capture" "$root/fabric-model/tests/corpus/ibnetdiscover/manpage.topo" \
        none random 1 2 1
    run_case "fat_tree(4) grid 4x4" "$work/fat_tree4.topo" link grid 4,4
    run_case "fat_tree(8) grid 8x4x4" "$work/fat_tree8.topo" link grid 8,4,4
    ;;
large)
    limit=${OPENSM_MR4LMS_ENTRIES:-16}
    "$check" fabric fat-tree 16 >"$work/fat_tree16.topo"
    "$check" fabric torus 6,6,6 2 >"$work/torus666.topo"
    run_case "fat_tree(16) grid 16x8x8" "$work/fat_tree16.topo" link grid 16,8,8
    run_case "torus(6,6,6)x2 grid 12x6x6" "$work/torus666.topo" link grid 12,6,6
    ;;
*) die "unknown scale $scale (small or large)" ;;
esac
log "MFT entry limit of the mr4lms runs: $limit; joins in $join_order order; results in $results"
