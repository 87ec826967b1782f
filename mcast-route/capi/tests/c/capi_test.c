/*
 * The C tests of mcast-route's C ABI: every function, called as a subnet manager would, and
 * with the bad inputs each must refuse with its precise status code. Built and run by the
 * crate's test `c_abi` (tests/c_abi.rs) with gcc -Wall -Wextra -Werror. Exits 0 when every
 * check holds, 1 with a message otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcast_route.h"

static int failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__,      \
                    __LINE__, #cond, mcr_last_error());                                   \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

#define EXPECT(call, code) CHECK((call) == (code))

/* Switches 0x10 (leaf), 0x11 (leaf), 0x20 (spine); hosts 0x1..0x4, two per leaf. */
static mcr_fabric *small_fabric(void)
{
    mcr_fabric *f = mcr_fabric_new();
    CHECK(f != NULL);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_SWITCH, 0x10, 4), MCR_OK);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_SWITCH, 0x11, 4), MCR_OK);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_SWITCH, 0x20, 4), MCR_OK);
    for (uint64_t h = 1; h <= 4; h++)
        EXPECT(mcr_fabric_add_node(f, MCR_NODE_CA, h, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x10, 1, 0x1, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x10, 2, 0x2, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x11, 1, 0x3, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x11, 2, 0x4, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x10, 3, 0x20, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x11, 3, 0x20, 2), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x10, 4, 0x20, 3), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 0x11, 4, 0x20, 4), MCR_OK);
    return f;
}

static void mgid_of(uint8_t mgid[16], uint32_t n)
{
    memset(mgid, 0, 16);
    mgid[0] = 0xff;
    mgid[1] = 0x15;
    mgid[12] = (uint8_t)(n >> 24);
    mgid[13] = (uint8_t)(n >> 16);
    mgid[14] = (uint8_t)(n >> 8);
    mgid[15] = (uint8_t)n;
}

/* The port mask of `mlid` on `sw`, position 0. */
static uint16_t mask(mcr_router *r, uint64_t sw, uint16_t mlid)
{
    uint16_t masks[32];
    uint16_t c = (uint16_t)(mlid - 0xC000);
    if (mcr_mft_block(r, sw, (uint16_t)(c / 32), 0, masks) != MCR_OK)
        return 0xffff;
    return masks[c % 32];
}

static void test_fabric_errors(void)
{
    mcr_fabric *f = mcr_fabric_new();
    EXPECT(mcr_fabric_add_node(NULL, MCR_NODE_SWITCH, 1, 4), MCR_ERR_NULL);
    CHECK(strstr(mcr_last_error(), "null") != NULL);
    EXPECT(mcr_fabric_add_node(f, 7, 1, 4), MCR_ERR_INVALID_ARGUMENT);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_SWITCH, 1, 0), MCR_ERR_FABRIC);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_SWITCH, 1, 4), MCR_OK);
    CHECK(strcmp(mcr_last_error(), "") == 0);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_CA, 1, 1), MCR_ERR_INVALID_ARGUMENT);
    EXPECT(mcr_fabric_add_node(f, MCR_NODE_CA, 2, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 1, 1, 3, 1), MCR_ERR_UNKNOWN_GUID);
    EXPECT(mcr_fabric_add_link(f, 1, 5, 2, 1), MCR_ERR_FABRIC); /* past the radix */
    EXPECT(mcr_fabric_add_link(f, 1, 1, 2, 1), MCR_OK);
    EXPECT(mcr_fabric_add_link(f, 1, 2, 2, 1), MCR_ERR_FABRIC); /* port in use */
    EXPECT(mcr_fabric_add_link(f, 1, 2, 1, 3), MCR_ERR_FABRIC); /* self-loop */
    mcr_fabric_free(f);
    mcr_fabric_free(NULL);

    mcr_router *r = NULL;
    EXPECT(mcr_router_new(NULL, MCR_ALGORITHM_MR4LMS, 16, &r), MCR_ERR_NULL);
    EXPECT(mcr_router_new(small_fabric(), 9, 16, &r), MCR_ERR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    EXPECT(mcr_router_new(small_fabric(), MCR_ALGORITHM_MR4LMS, 16384, &r),
           MCR_ERR_INVALID_ARGUMENT);
    EXPECT(mcr_router_new(small_fabric(), MCR_ALGORITHM_MR4LMS, 16, NULL), MCR_ERR_NULL);
    /* An empty fabric routes nothing: every port is unknown. */
    EXPECT(mcr_router_new(mcr_fabric_new(), MCR_ALGORITHM_MR4LMS, 16, &r), MCR_OK);
    {
        uint8_t g[16] = {0xff};
        uint16_t mlid;
        EXPECT(mcr_join(r, g, 0x1, &mlid), MCR_ERR_UNKNOWN_GUID);
    }
    mcr_router_free(r);
}

static void test_membership_and_tables(uint32_t algorithm)
{
    mcr_router *r = NULL;
    uint8_t g1[16], g2[16], bad[16];
    uint16_t mlid1 = 0, mlid2 = 0, mlid = 0;
    size_t n = 0;
    int deleted = -1;

    EXPECT(mcr_router_new(small_fabric(), algorithm, 16, &r), MCR_OK);
    CHECK(r != NULL);
    mgid_of(g1, 1);
    mgid_of(g2, 2);
    mgid_of(bad, 99);

    /* Nothing joined: an empty first delta. */
    EXPECT(mcr_take_mft_delta(r, &n), MCR_OK);
    CHECK(n == 0);

    EXPECT(mcr_join(r, g1, 0x1, &mlid1), MCR_OK);
    CHECK(mlid1 >= 0xC000);
    EXPECT(mcr_join(r, g1, 0x3, &mlid), MCR_OK);
    CHECK(mlid == mlid1); /* the MLID is kept from the first join */
    EXPECT(mcr_join(r, g1, 0x3, &mlid), MCR_ERR_MEMBERSHIP);
    EXPECT(mcr_join(r, g1, 0x99, &mlid), MCR_ERR_UNKNOWN_GUID);
    EXPECT(mcr_join(r, NULL, 0x1, &mlid), MCR_ERR_NULL);
    EXPECT(mcr_join(r, g1, 0x2, NULL), MCR_ERR_NULL);
    EXPECT(mcr_join(NULL, g1, 0x2, &mlid), MCR_ERR_NULL);
    EXPECT(mcr_group_mlid(r, g1, &mlid), MCR_OK);
    CHECK(mlid == mlid1);
    EXPECT(mcr_group_mlid(r, bad, &mlid), MCR_ERR_UNKNOWN_MGID);
    CHECK(strstr(mcr_last_error(), "MGID") != NULL);

    /* The tree: host ports on the leaves, one up-link each, the spine between. */
    uint16_t m10 = mask(r, 0x10, mlid1), m11 = mask(r, 0x11, mlid1), m20 = mask(r, 0x20, mlid1);
    CHECK((m10 & 0x2) && !(m10 & 0x4)); /* port 1 (host 0x1), not port 2 */
    CHECK((m11 & 0x2) && !(m11 & 0x4)); /* port 1 (host 0x3) */
    CHECK(__builtin_popcount(m10 & 0x18) == 1 && __builtin_popcount(m11 & 0x18) == 1);
    CHECK(__builtin_popcount(m20) == 2);

    /* The delta names the blocks of the three switches, once each. */
    EXPECT(mcr_take_mft_delta(r, &n), MCR_OK);
    CHECK(n == 3);
    for (size_t i = 0; i < n; i++) {
        uint64_t sw = 0;
        uint16_t block = 9;
        EXPECT(mcr_delta_entry(r, i, &sw, &block), MCR_OK);
        CHECK((sw == 0x10 || sw == 0x11 || sw == 0x20) && block == 0);
    }
    {
        uint64_t sw;
        uint16_t block;
        EXPECT(mcr_delta_entry(r, n, &sw, &block), MCR_ERR_OUT_OF_RANGE);
        EXPECT(mcr_delta_entry(r, 0, NULL, &block), MCR_ERR_NULL);
    }
    EXPECT(mcr_take_mft_delta(r, &n), MCR_OK);
    CHECK(n == 0);
    EXPECT(mcr_take_mft_delta(r, NULL), MCR_ERR_NULL);

    /* Blocks and positions. */
    uint8_t positions = 0;
    uint16_t masks[32];
    EXPECT(mcr_mft_positions(r, 0x10, &positions), MCR_OK);
    CHECK(positions == 1); /* 4 ports + port 0 */
    EXPECT(mcr_mft_positions(r, 0x1, &positions), MCR_ERR_ROUTE); /* a CA */
    EXPECT(mcr_mft_block(r, 0x10, 0, 1, masks), MCR_ERR_OUT_OF_RANGE);
    EXPECT(mcr_mft_block(r, 0x10, 512, 0, masks), MCR_ERR_OUT_OF_RANGE);
    EXPECT(mcr_mft_block(r, 0x10, 0, 0, NULL), MCR_ERR_NULL);
    EXPECT(mcr_mft_block(r, 0x77, 0, 0, masks), MCR_ERR_UNKNOWN_GUID);

    /* A second group on the same leaves. */
    EXPECT(mcr_join(r, g2, 0x2, &mlid2), MCR_OK);
    EXPECT(mcr_join(r, g2, 0x4, &mlid), MCR_OK);
    CHECK(mlid == mlid2 && mlid2 != mlid1);

    mcr_stats st;
    EXPECT(mcr_router_stats(r, &st), MCR_OK);
    CHECK(st.groups == 2 && st.colors_used == 2 && st.max_entries_per_switch == 2);
    CHECK(st.max_efi >= 1);
    EXPECT(mcr_router_stats(r, NULL), MCR_ERR_NULL);

    /* Links: a leaf's up-link of group 1 goes down; the tree moves to the other. */
    uint16_t up = (m10 & 0x8) ? 3 : 4;
    mcr_event_outcome o;
    memset(&o, 0xff, sizeof(o));
    EXPECT(mcr_take_mft_delta(r, &n), MCR_OK);
    EXPECT(mcr_link_down(r, 0x10, up, &o), MCR_OK);
    CHECK(o.rerouted >= 1 && o.members_left == 0 && o.groups_deleted == 0);
    CHECK(o.mlids_changed == 0);
    m10 = mask(r, 0x10, mlid1);
    CHECK(!(m10 & (1u << up)) && (m10 & (1u << (7 - up))));
    EXPECT(mcr_take_mft_delta(r, &n), MCR_OK);
    CHECK(n >= 2);
    EXPECT(mcr_link_down(r, 0x10, up, NULL), MCR_ERR_TOPOLOGY);
    EXPECT(mcr_link_up(r, 0x10, up, NULL), MCR_OK);
    EXPECT(mcr_link_up(r, 0x10, up, NULL), MCR_ERR_TOPOLOGY);
    EXPECT(mcr_link_down(r, 0x10, 0, NULL), MCR_ERR_NO_LINK);
    EXPECT(mcr_link_down(r, 0x55, 1, NULL), MCR_ERR_UNKNOWN_GUID);

    /* A host's cable down: the host leaves its group. */
    EXPECT(mcr_link_down(r, 0x11, 1, &o), MCR_OK);
    CHECK(o.members_left == 1);
    EXPECT(mcr_leave(r, g1, 0x3, &deleted), MCR_ERR_MEMBERSHIP);
    EXPECT(mcr_join(r, g1, 0x3, &mlid), MCR_ERR_TOPOLOGY);
    EXPECT(mcr_link_up(r, 0x11, 1, NULL), MCR_OK);

    /* Leaves: the last member's deletes the group. */
    EXPECT(mcr_leave(r, g2, 0x2, &deleted), MCR_OK);
    CHECK(deleted == 0);
    EXPECT(mcr_leave(r, g2, 0x4, &deleted), MCR_OK);
    CHECK(deleted == 1);
    EXPECT(mcr_leave(r, g2, 0x4, &deleted), MCR_ERR_UNKNOWN_MGID);
    EXPECT(mcr_group_mlid(r, g2, &mlid), MCR_ERR_UNKNOWN_MGID);
    EXPECT(mcr_leave(r, g1, 0x1, NULL), MCR_ERR_NULL);

    /* The spine down cuts the leaves apart: one of group 1's two members leaves. */
    EXPECT(mcr_join(r, g1, 0x3, &mlid), MCR_OK);
    EXPECT(mcr_switch_down(r, 0x20, &o), MCR_OK);
    CHECK(o.members_left == 1 && o.groups_deleted == 0);
    EXPECT(mcr_switch_down(r, 0x20, NULL), MCR_ERR_TOPOLOGY);
    EXPECT(mcr_link_up(r, 0x10, 3, NULL), MCR_ERR_TOPOLOGY); /* its switch is down */
    EXPECT(mcr_switch_up(r, 0x20, NULL), MCR_OK);
    EXPECT(mcr_switch_up(r, 0x1, NULL), MCR_ERR_ROUTE); /* a CA */

    mcr_router_free(r);
    mcr_router_free(NULL);
}

/* MR4LMS shares a color between trees on disjoint switches; a baseline never does. */
static void test_color_reuse(void)
{
    mcr_router *mr = NULL, *mh = NULL;
    uint8_t g1[16], g2[16];
    uint16_t a, b;

    mgid_of(g1, 1);
    mgid_of(g2, 2);
    EXPECT(mcr_router_new(small_fabric(), MCR_ALGORITHM_MR4LMS, 16, &mr), MCR_OK);
    EXPECT(mcr_router_new(small_fabric(), MCR_ALGORITHM_MINIHOP_MC, 16, &mh), MCR_OK);
    /* Two groups, each on one leaf. */
    EXPECT(mcr_join(mr, g1, 0x1, &a), MCR_OK);
    EXPECT(mcr_join(mr, g1, 0x2, &a), MCR_OK);
    EXPECT(mcr_join(mr, g2, 0x3, &b), MCR_OK);
    EXPECT(mcr_join(mr, g2, 0x4, &b), MCR_OK);
    CHECK(a == b);
    EXPECT(mcr_join(mh, g1, 0x1, &a), MCR_OK);
    EXPECT(mcr_join(mh, g2, 0x3, &b), MCR_OK);
    CHECK(a != b);
    mcr_router_free(mr);
    mcr_router_free(mh);

    /* A baseline out of MLIDs. */
    EXPECT(mcr_router_new(small_fabric(), MCR_ALGORITHM_SSSP_MC, 1, &mh), MCR_OK);
    EXPECT(mcr_join(mh, g1, 0x1, &a), MCR_OK);
    EXPECT(mcr_join(mh, g2, 0x3, &b), MCR_ERR_ENTRIES);
    mcr_router_free(mh);
}

static void test_ibnetdiscover(void)
{
    static const char topo[] =
        "Switch\t2 \"S-0000000000000010\"\n"
        "[1]\t\"H-0000000000000001\"[1]\n"
        "[2]\t\"H-0000000000000002\"[1]\n"
        "\n"
        "Ca\t1 \"H-0000000000000001\"\n"
        "[1]\t\"S-0000000000000010\"[1]\n"
        "\n"
        "Ca\t1 \"H-0000000000000002\"\n"
        "[1]\t\"S-0000000000000010\"[2]\n";
    mcr_router *r = NULL;
    uint8_t g[16];
    uint16_t mlid;

    mgid_of(g, 7);
    EXPECT(mcr_router_from_ibnetdiscover(topo, sizeof(topo) - 1, MCR_ALGORITHM_MR4LMS, 0, &r),
           MCR_OK);
    EXPECT(mcr_join(r, g, 0x1, &mlid), MCR_OK);
    EXPECT(mcr_join(r, g, 0x2, &mlid), MCR_OK);
    CHECK(mask(r, 0x10, mlid) == 0x6);
    mcr_router_free(r);

    r = NULL;
    EXPECT(mcr_router_from_ibnetdiscover(NULL, 3, MCR_ALGORITHM_MR4LMS, 0, &r), MCR_ERR_NULL);
    EXPECT(mcr_router_from_ibnetdiscover("\xff\xfe", 2, MCR_ALGORITHM_MR4LMS, 0, &r),
           MCR_ERR_INVALID_ARGUMENT);
    EXPECT(mcr_router_from_ibnetdiscover("Switch\t2 \"S-1\"\n[9]\t\"S-2\"[1]\n", 26,
                                         MCR_ALGORITHM_MR4LMS, 0, &r),
           MCR_ERR_FABRIC);
    CHECK(r == NULL);
    CHECK(strlen(mcr_last_error()) > 0);
}

static void test_status_names(void)
{
    CHECK(strcmp(mcr_status_name(MCR_OK), "MCR_OK") == 0);
    CHECK(strcmp(mcr_status_name(MCR_ERR_NULL), "MCR_ERR_NULL") == 0);
    CHECK(strcmp(mcr_status_name(MCR_ERR_PANIC), "MCR_ERR_PANIC") == 0);
    CHECK(strcmp(mcr_status_name(MCR_ERR_POISONED), "MCR_ERR_POISONED") == 0);
    CHECK(strcmp(mcr_status_name(-1), "MCR_UNKNOWN_STATUS") == 0);
    CHECK(mcr_last_error() != NULL);
}

int main(void)
{
    test_fabric_errors();
    test_membership_and_tables(MCR_ALGORITHM_MR4LMS);
    test_membership_and_tables(MCR_ALGORITHM_MINIHOP_MC);
    test_membership_and_tables(MCR_ALGORITHM_SSSP_MC);
    test_color_reuse();
    test_ibnetdiscover();
    test_status_names();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("mcast-route C ABI: all checks passed\n");
    return 0;
}
