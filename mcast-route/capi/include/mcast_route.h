/*
 * mcast_route.h: the C ABI of mcast-route (crate mcast-route-capi), multicast routing for
 * InfiniBand subnets whose switches have a limited multicast forwarding table: MR4LMS, with
 * OpenSM's MINIHOP-MC and SSSP-MC as baselines.
 *
 * Link with libmcast_route_capi.a and the C runtime libraries Rust's standard library needs:
 *   cc prog.c -Ipath/to/include path/to/libmcast_route_capi.a -lpthread -ldl -lm
 *
 * Every function returning int returns a status code (MCR_OK or MCR_ERR_*); on an error,
 * mcr_last_error() gives its message on the calling thread. No call aborts or unwinds into C:
 * a panic inside is caught, answered MCR_ERR_PANIC, and poisons the router it ran on.
 * Handles are used by one thread at a time. The library does no I/O, reads no clock and
 * starts no thread.
 *
 * Written by hand; the crate's tests check its constants and declarations against the Rust
 * side, and compile a C test against it with warnings as errors.
 *
 * SPDX-License-Identifier: MIT OR Apache-2.0
 */
#ifndef MCAST_ROUTE_H
#define MCAST_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define MCR_OK 0
#define MCR_ERR_NULL 1             /* a pointer argument was null */
#define MCR_ERR_INVALID_ARGUMENT 2 /* unknown algorithm or node kind, bad limit, bad text, GUID twice */
#define MCR_ERR_FABRIC 3           /* the fabric cannot be built or read */
#define MCR_ERR_UNKNOWN_GUID 4     /* no node has the GUID */
#define MCR_ERR_NO_LINK 5          /* no cable at the port */
#define MCR_ERR_OUT_OF_RANGE 6     /* delta index, MFT block or port position past the end */
#define MCR_ERR_ENTRIES 7          /* no MFT entry (MLID) left */
#define MCR_ERR_UNKNOWN_MGID 8     /* no group has the MGID */
#define MCR_ERR_MEMBERSHIP 9       /* member already, not a member */
#define MCR_ERR_TOPOLOGY 10        /* down or up already; cable or switch of a joining port down */
#define MCR_ERR_ROUTE 11           /* any other refusal (members that cannot be connected) */
#define MCR_ERR_POISONED 12        /* an earlier call on this router panicked */
#define MCR_ERR_PANIC 13           /* this call panicked (a defect), caught */

/* Node kinds of mcr_fabric_add_node. */
#define MCR_NODE_SWITCH 1u
#define MCR_NODE_CA 2u

/* Algorithms of mcr_router_new. */
#define MCR_ALGORITHM_MR4LMS 0u     /* colors shared by trees on disjoint switches */
#define MCR_ALGORITHM_MINIHOP_MC 1u /* OpenSM's default builder, one MLID per group */
#define MCR_ALGORITHM_SSSP_MC 2u    /* OpenSM's SSSP builder, one MLID per group */

/* A fabric being built; consumed by mcr_router_new. */
typedef struct McrFabric mcr_fabric;
/* A router. */
typedef struct McrRouter mcr_router;

/* The router's statistics. */
typedef struct mcr_stats {
    uint64_t groups;                 /* live groups */
    uint64_t trees;                  /* live trees (merged groups share one) */
    uint64_t colors_used;            /* colors (MLIDs) in use */
    uint64_t merged_groups;          /* groups on a tree shared with another group */
    uint32_t max_efi;                /* largest edge forwarding index, switch-switch links */
    uint32_t max_entries_per_switch; /* most MFT entries in use on one switch */
} mcr_stats;

/* What a topology event did. */
typedef struct mcr_event_outcome {
    uint32_t rerouted;       /* trees that crossed what went down, routed again */
    uint32_t members_left;   /* members cut off, which left their groups */
    uint32_t groups_deleted; /* groups that lost every member */
    uint32_t mlids_changed;  /* groups whose MLID changed (mcr_group_mlid gives the new one) */
} mcr_event_outcome;

/* The message of the last failed call on this thread ("" after a success); valid until the
 * next mcr_* call on the thread; never NULL. */
const char *mcr_last_error(void);
/* "MCR_ERR_NULL" for MCR_ERR_NULL, ...; "MCR_UNKNOWN_STATUS" otherwise; static, never NULL. */
const char *mcr_status_name(int code);

/* A new empty fabric (never NULL); free with mcr_fabric_free or hand to mcr_router_new. */
mcr_fabric *mcr_fabric_new(void);
/* Frees a fabric not handed to mcr_router_new; NULL is ignored. */
void mcr_fabric_free(mcr_fabric *fabric);
/* Adds a node: kind MCR_NODE_SWITCH or MCR_NODE_CA, a unique node GUID, its external ports. */
int mcr_fabric_add_node(mcr_fabric *fabric, uint32_t kind, uint64_t guid, uint16_t ports);
/* Adds a cable between (guid_a, port_a) and (guid_b, port_b), ports from 1, each cable once. */
int mcr_fabric_add_link(mcr_fabric *fabric, uint64_t guid_a, uint16_t port_a, uint64_t guid_b,
                        uint16_t port_b);

/* A router over fabric (consumed, even on failure): algorithm MCR_ALGORITHM_*, mft_limit
 * entries per switch (1..16383, 0 for no limit). *out receives it. */
int mcr_router_new(mcr_fabric *fabric, uint32_t algorithm, uint32_t mft_limit, mcr_router **out);
/* A router over the fabric of an ibnetdiscover text of len bytes (UTF-8, no NUL needed). */
int mcr_router_from_ibnetdiscover(const char *text, size_t len, uint32_t algorithm,
                                  uint32_t mft_limit, mcr_router **out);
/* Frees a router; NULL is ignored. */
void mcr_router_free(mcr_router *router);

/* Joins port_guid (a CA's node GUID, or a switch's for its port 0) to the group of the MGID
 * (16 bytes, network order); *mlid receives the group's MLID, kept to its last leave. */
int mcr_join(mcr_router *router, const uint8_t *mgid, uint64_t port_guid, uint16_t *mlid);
/* Takes port_guid out of the group; *deleted receives 1 when it was the last member. */
int mcr_leave(mcr_router *router, const uint8_t *mgid, uint64_t port_guid, int *deleted);
/* The MLID of the group of the MGID. */
int mcr_group_mlid(mcr_router *router, const uint8_t *mgid, uint16_t *mlid);

/* Topology events: the cable at (guid, port), or the switch guid, down or up; the trees
 * across it are repaired. outcome, when not NULL, receives what the event did. */
int mcr_link_down(mcr_router *router, uint64_t guid, uint16_t port, mcr_event_outcome *outcome);
int mcr_link_up(mcr_router *router, uint64_t guid, uint16_t port, mcr_event_outcome *outcome);
int mcr_switch_down(mcr_router *router, uint64_t guid, mcr_event_outcome *outcome);
int mcr_switch_up(mcr_router *router, uint64_t guid, mcr_event_outcome *outcome);

/* Takes the MFT delta, the (switch, block) pairs changed since the last call (the first: every
 * block holding an entry), kept for mcr_delta_entry; *count receives their number. */
int mcr_take_mft_delta(mcr_router *router, size_t *count);
/* Entry index of the last delta: the switch's GUID and the block number. */
int mcr_delta_entry(mcr_router *router, size_t index, uint64_t *switch_guid, uint16_t *block);
/* The port positions of a switch's MFT: ceil((ports + 1) / 16). */
int mcr_mft_positions(mcr_router *router, uint64_t switch_guid, uint8_t *positions);
/* MFT block `block` at `position` of a switch: masks[i] for MLID 0xC000 + 32 * block + i, bit
 * j for port 16 * position + j, host byte order. masks holds 32 entries. */
int mcr_mft_block(mcr_router *router, uint64_t switch_guid, uint16_t block, uint8_t position,
                  uint16_t *masks);
/* The router's statistics. */
int mcr_router_stats(mcr_router *router, mcr_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* MCAST_ROUTE_H */
