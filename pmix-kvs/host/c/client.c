/*
 * A real OpenPMIx client for pmix-kvs-host (built by build.rs against Debian's libpmix-dev).
 * It runs one scripted sequence and prints one line per operation, which the host's tests
 * compare with what the PMIx Standard allows and with pmix-kvs's own client
 * (src/script.rs runs the same sequence through pmix-kvs and prints the same lines):
 *
 *   op ME PHASE TARGET KEY STATUS VALUE
 *
 * TARGET is a rank or "*" (PMIX_RANK_WILDCARD); STATUS is the PMIx status's name; VALUE is
 * "-" unless it succeeded, else TYPE:TEXT. The placement of ranks on nodes comes in
 * PMIX_KVS_NODES ("0,0,1,1": rank r's node), set by the host.
 *
 * Modes (argv[1]):
 *   script [MISSING]  job keys; put gen "a" in every scope and type, commit, get its own
 *                     "a" keys before any fence, fence without
 *                     data collection, get every target's "a" keys (direct modex for other
 *                     nodes); put "b", commit, fence with data collection, get the "b" keys;
 *                     with MISSING=1 also a missing key with a 1 s timeout on self, a
 *                     same-node peer and an other-node peer; a last fence.
 *   fence             put, commit, one fence with data collection; prints its status.
 *   bench F G BYTES   put BYTES, commit, F timed fences with data collection, G timed gets of
 *                     the next rank's key: "bench ME fence_ns=..." and "bench ME get_ns=...".
 */
#define _GNU_SOURCE
#include <pmix.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static uint32_t nranks;
static uint32_t *node_of;

static const char *SCOPES[] = {"local", "remote", "global"};
static const pmix_scope_t SCOPE_CODE[] = {PMIX_LOCAL, PMIX_REMOTE, PMIX_GLOBAL};
static const char *TYPES[] = {"u64", "u32", "i32", "f64", "bool", "str", "bytes"};
#define NSCOPES 3
#define NTYPES 7

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The value rank `rank` puts under gen/scope/type (src/script.rs has the same formula). */
static void value_of(int gen, int scope, int type, uint32_t rank, pmix_value_t *v, char *buf) {
    uint64_t base = (uint64_t)gen * 1000000u + (uint64_t)scope * 10000u + rank;
    PMIX_VALUE_CONSTRUCT(v);
    switch (type) {
    case 0: v->type = PMIX_UINT64; v->data.uint64 = base; break;
    case 1: v->type = PMIX_UINT32; v->data.uint32 = (uint32_t)base; break;
    case 2: v->type = PMIX_INT32; v->data.int32 = -(int32_t)base; break;
    case 3: v->type = PMIX_DOUBLE; v->data.dval = (double)base + 0.5; break;
    case 4: v->type = PMIX_BOOL; v->data.flag = (base % 2) == 1; break;
    case 5:
        v->type = PMIX_STRING;
        snprintf(buf, 64, "g%ds%dr%u", gen, scope, rank);
        v->data.string = buf;
        break;
    default:
        v->type = PMIX_BYTE_OBJECT;
        buf[0] = (char)gen, buf[1] = (char)scope, buf[2] = (char)(rank & 0xff);
        buf[3] = (char)(rank >> 8), buf[4] = (char)0xab;
        v->data.bo.bytes = buf;
        v->data.bo.size = 5;
        break;
    }
}

static void print_value(const pmix_value_t *v) {
    switch (v->type) {
    case PMIX_UINT64: printf("u64:%" PRIu64, v->data.uint64); break;
    case PMIX_UINT32: printf("u32:%" PRIu32, v->data.uint32); break;
    case PMIX_UINT16: printf("u16:%u", (unsigned)v->data.uint16); break;
    case PMIX_INT32: printf("i32:%" PRId32, v->data.int32); break;
    case PMIX_INT: printf("int:%d", v->data.integer); break;
    case PMIX_PROC_RANK: printf("rank:%u", v->data.rank); break;
    case PMIX_DOUBLE: printf("f64:%.17g", v->data.dval); break;
    case PMIX_BOOL: printf("bool:%d", v->data.flag ? 1 : 0); break;
    case PMIX_STRING: printf("str:%s", v->data.string ? v->data.string : ""); break;
    case PMIX_BYTE_OBJECT:
        printf("bytes:");
        for (size_t i = 0; i < v->data.bo.size; i++)
            printf("%02x", (unsigned char)v->data.bo.bytes[i]);
        if (!v->data.bo.size) printf("-");
        break;
    default: printf("type%d:?", (int)v->type); break;
    }
}

/* One get, printed. `timeout` in seconds (0: none). */
static void get(const char *phase, pmix_rank_t target, const char *key, int timeout) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, target);
    pmix_info_t info[1];
    size_t ninfo = 0;
    if (timeout > 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, ninfo ? info : NULL, ninfo, &v);
    if (target == PMIX_RANK_WILDCARD) printf("op %u %s * %s %s ", me.rank, phase, key, PMIx_Error_string(rc));
    else printf("op %u %s %u %s %s ", me.rank, phase, target, key, PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS && v) print_value(v);
    else printf("-");
    printf("\n");
    if (v) PMIX_VALUE_RELEASE(v);
}

static int put_gen(int gen) {
    char buf[64], key[64];
    for (int s = 0; s < NSCOPES; s++)
        for (int t = 0; t < NTYPES; t++) {
            pmix_value_t v;
            value_of(gen, s, t, me.rank, &v, buf);
            snprintf(key, sizeof key, "%c.%s.%s", 'a' + gen, SCOPES[s], TYPES[t]);
            pmix_status_t rc = PMIx_Put(SCOPE_CODE[s], key, &v);
            if (rc != PMIX_SUCCESS) {
                fprintf(stderr, "client %u: put %s: %s\n", me.rank, key, PMIx_Error_string(rc));
                return 1;
            }
        }
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) fprintf(stderr, "client %u: commit: %s\n", me.rank, PMIx_Error_string(rc));
    return rc != PMIX_SUCCESS;
}

static pmix_status_t fence(int collect) {
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    return PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
}

/* The ranks whose every key and type a client reads: itself, the next rank on its node, the
 * rank of the same local index on the next node (src/script.rs: `detail_targets`). */
static size_t detail_targets(uint32_t *out) {
    size_t n = 0;
    out[n++] = me.rank;
    uint32_t nn = 0, li = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        if (node_of[r] + 1 > nn) nn = node_of[r] + 1;
        if (node_of[r] == node_of[me.rank] && r < me.rank) li++;
    }
    for (uint32_t k = 1; k < nranks; k++) {
        uint32_t r = (me.rank + k) % nranks;
        if (node_of[r] == node_of[me.rank]) {
            out[n++] = r;
            break;
        }
    }
    if (nn > 1) {
        uint32_t next = (node_of[me.rank] + 1) % nn, idx = 0, last = UINT32_MAX;
        for (uint32_t r = 0; r < nranks; r++)
            if (node_of[r] == next) {
                last = r;
                if (idx++ == li) break;
            }
        if (last != UINT32_MAX) out[n++] = last;
    }
    return n;
}

static void get_gen(int gen, const char *phase) {
    char key[64];
    uint32_t detail[3];
    size_t nd = detail_targets(detail);
    for (uint32_t r = 0; r < nranks; r++) {
        int full = 0;
        for (size_t d = 0; d < nd; d++) full |= detail[d] == r;
        for (int s = 0; s < NSCOPES; s++)
            for (int t = 0; t < (full ? NTYPES : 1); t++) {
                snprintf(key, sizeof key, "%c.%s.%s", 'a' + gen, SCOPES[s], TYPES[t]);
                get(phase, r, key, 10);
            }
    }
}

static int script(int missing) {
    get("job", PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 0);
    get("job", PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, 0);
    get("job", PMIX_RANK_WILDCARD, PMIX_NUM_NODES, 0);
    get("job", PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, 0);
    uint32_t detail[3];
    size_t nd = detail_targets(detail);
    for (size_t d = 0; d < nd; d++) {
        get("job", detail[d], PMIX_LOCAL_RANK, 0);
        get("job", detail[d], PMIX_NODE_RANK, 0);
        get("job", detail[d], PMIX_NODEID, 0);
        get("job", detail[d], PMIX_HOSTNAME, 0);
    }
    if (put_gen(0)) return 1;
    /* Before any fence: its own "a" keys, every scope and type. (Another process's keys
     * before a fence race with its commit: their outcome depends on timing.) */
    for (int s = 0; s < NSCOPES; s++)
        for (int t = 0; t < NTYPES; t++) {
            char key[64];
            snprintf(key, sizeof key, "a.%s.%s", SCOPES[s], TYPES[t]);
            get("before", me.rank, key, 5);
        }
    pmix_status_t rc = fence(0);
    printf("fence %u nocollect %s\n", me.rank, PMIx_Error_string(rc));
    get_gen(0, "nocollect");
    if (put_gen(1)) return 1;
    rc = fence(1);
    printf("fence %u collect %s\n", me.rank, PMIx_Error_string(rc));
    get_gen(1, "collect");
    if (missing)
        for (size_t d = 0; d < nd; d++) get("missing", detail[d], "no.such.key", 1);
    rc = fence(0);
    printf("fence %u last %s\n", me.rank, PMIx_Error_string(rc));
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* min, p50, p90, p99 and max of `v` (sorted in place), nearest rank. */
static void summary(const char *what, uint64_t *v, size_t n) {
    qsort(v, n, sizeof v[0], cmp_u64);
#define PCT(p) v[((n * (p) + 99) / 100) ? ((n * (p) + 99) / 100) - 1 : 0]
    printf("bench %u %s n=%zu min=%" PRIu64 " p50=%" PRIu64 " p90=%" PRIu64 " p99=%" PRIu64
           " max=%" PRIu64 "\n",
           me.rank, what, n, v[0], PCT(50), PCT(90), PCT(99), v[n - 1]);
#undef PCT
}

static int bench(size_t fences, size_t gets, size_t bytes) {
    char *blob = malloc(bytes ? bytes : 1);
    uint64_t *lat = malloc((fences > gets ? fences : gets) * sizeof *lat + 8);
    if (!blob || !lat) return 1;
    memset(blob, (int)me.rank, bytes);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = blob;
    v.data.bo.size = bytes;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "bench.blob", &v);
    pmix_value_t u;
    PMIX_VALUE_CONSTRUCT(&u);
    u.type = PMIX_UINT64;
    u.data.uint64 = 1000u + me.rank;
    if (rc == PMIX_SUCCESS) rc = PMIx_Put(PMIX_GLOBAL, "bench.u64", &u);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return 1;
    for (size_t i = 0; i < fences; i++) {
        uint64_t t0 = now_ns();
        rc = fence(1);
        lat[i] = now_ns() - t0;
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "client %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
            return 1;
        }
    }
    if (fences) summary("fence_ns", lat, fences);
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % nranks);
    for (size_t i = 0; i < gets; i++) {
        pmix_value_t *got = NULL;
        uint64_t t0 = now_ns();
        rc = PMIx_Get(&peer, "bench.u64", NULL, 0, &got);
        lat[i] = now_ns() - t0;
        if (rc != PMIX_SUCCESS || got->type != PMIX_UINT64 || got->data.uint64 != 1000u + peer.rank) {
            fprintf(stderr, "client %u: get: %s\n", me.rank, PMIx_Error_string(rc));
            return 1;
        }
        PMIX_VALUE_RELEASE(got);
    }
    if (gets) summary("get_ns", lat, gets);
    free(blob);
    free(lat);
    return fence(0) != PMIX_SUCCESS;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    const char *mode = argc >= 2 ? argv[1] : "script";
    const char *nodes = getenv("PMIX_KVS_NODES");
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        printf("done ? init %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !nodes) return 1;
    nranks = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    node_of = calloc(nranks, sizeof *node_of);
    const char *c = nodes;
    for (uint32_t r = 0; r < nranks; r++) {
        node_of[r] = (uint32_t)strtoul(c, (char **)&c, 10);
        if (*c == ',') c++;
    }
    int bad;
    if (strcmp(mode, "fence") == 0) {
        if (put_gen(1)) return 1;
        rc = fence(1);
        printf("fence %u collect %s\n", me.rank, PMIx_Error_string(rc));
        bad = 0;
    } else if (strcmp(mode, "bench") == 0 && argc >= 5) {
        bad = bench(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10),
                    strtoul(argv[4], NULL, 10));
    } else {
        bad = script(argc >= 3 && atoi(argv[2]) == 1);
    }
    rc = PMIx_Finalize(NULL, 0);
    printf("done %u %d %s\n", me.rank, bad, PMIx_Error_string(rc));
    fflush(stdout);
    return bad;
}
