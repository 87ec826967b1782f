/*
 * PMIx_Get latency of the real OpenPMIx, for side-by-side figures with pmix-kvs's shared
 * store (`reproduce pmix-shm`). Built and run by openpmix_get.sh.
 *
 * One process is an in-process PMIx server (PMIx_server_init, one namespace of NCLIENTS
 * ranks on this node); it forks and execs itself NCLIENTS times as clients (the server API
 * gives each its environment through PMIx_server_setup_fork). Each client puts a uint64
 * under the key "kvs.u64" (PMIX_GLOBAL), commits, fences with data collection, then times
 * GETS calls of PMIx_Get on the next rank's key (a hit on a fixed-size value in another
 * process's data: OpenPMIx 4.2 serves it from its shared-memory store, gds/ds21, through the
 * client's progress thread), and of the job-level key PMIX_JOB_SIZE. Each client prints one
 * line per key:
 *
 *   openpmix_get rank=R key=K gets=N p50_ns=X p99_ns=Y
 *
 * Usage: openpmix_get [NCLIENTS [GETS]]  (defaults 2 and 20000).
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <pmix_server.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSPACE "kvsbench"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts `v` and prints its 50th and 99th percentiles (nearest rank). */
static void report(int rank, const char *key, uint64_t *v, size_t n) {
    qsort(v, n, sizeof v[0], cmp_u64);
    size_t p50 = (n * 50 + 99) / 100, p99 = (n * 99 + 99) / 100;
    printf("openpmix_get rank=%d key=%s gets=%zu p50_ns=%llu p99_ns=%llu\n", rank, key, n,
           (unsigned long long)v[p50 ? p50 - 1 : 0], (unsigned long long)v[p99 ? p99 - 1 : 0]);
    fflush(stdout);
}

static int client(size_t gets) {
    pmix_proc_t me, peer, job;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "client %u: get job size: %s\n", me.rank, PMIx_Error_string(rc));
        return 1;
    }
    uint32_t size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    pmix_value_t mine;
    PMIX_VALUE_CONSTRUCT(&mine);
    mine.type = PMIX_UINT64;
    mine.data.uint64 = 1000u + me.rank;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "kvs.u64", &mine)) != PMIX_SUCCESS ||
        (rc = PMIx_Commit()) != PMIX_SUCCESS) {
        fprintf(stderr, "client %u: put/commit: %s\n", me.rank, PMIx_Error_string(rc));
        return 1;
    }
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS) {
        fprintf(stderr, "client %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
        return 1;
    }

    uint64_t *lat = malloc(gets * sizeof *lat);
    if (!lat) return 1;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    for (size_t i = 0; i < gets; i++) {
        uint64_t t0 = now_ns();
        rc = PMIx_Get(&peer, "kvs.u64", NULL, 0, &val);
        uint64_t t1 = now_ns();
        if (rc != PMIX_SUCCESS || val->type != PMIX_UINT64 ||
            val->data.uint64 != 1000u + peer.rank) {
            fprintf(stderr, "client %u: get peer key: %s\n", me.rank, PMIx_Error_string(rc));
            return 1;
        }
        PMIX_VALUE_RELEASE(val);
        lat[i] = t1 - t0;
    }
    report((int)me.rank, "peer_u64", lat, gets);
    for (size_t i = 0; i < gets; i++) {
        uint64_t t0 = now_ns();
        rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
        uint64_t t1 = now_ns();
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "client %u: get job size: %s\n", me.rank, PMIx_Error_string(rc));
            return 1;
        }
        PMIX_VALUE_RELEASE(val);
        lat[i] = t1 - t0;
    }
    report((int)me.rank, "job_size", lat, gets);
    free(lat);
    PMIx_Fence(NULL, 0, NULL, 0);
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* The host's fence: one node, so the data the server library collected is the result. */
static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata) {
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if (cbfunc) cbfunc(PMIX_SUCCESS, data, ndata, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_status_t connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd) {
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd) {
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static volatile int registered;
static void reg_done(pmix_status_t st, void *cbdata) {
    (void)cbdata;
    registered = st == PMIX_SUCCESS ? 1 : -1;
}

static int server(int nclients, size_t gets, const char *self) {
    pmix_server_module_t module = {0};
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.fence_nb = fence_nb;
    char tmp[] = "/tmp/openpmix_get.XXXXXX";
    if (!mkdtemp(tmp)) return 1;
    pmix_info_t sinfo[2];
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_SYSTEM_TMPDIR, tmp, PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, sinfo, 2);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    char host[256];
    gethostname(host, sizeof host);
    char ranks[4096] = "";
    for (int r = 0; r < nclients; r++)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), r ? ",%d" : "%d", r);
    char *node_map = NULL, *proc_map = NULL;
    PMIx_generate_regex(host, &node_map);
    PMIx_generate_ppn(ranks, &proc_map);
    uint32_t n = (uint32_t)nclients, zero = 0;
    pmix_info_t job[8];
    PMIX_INFO_LOAD(&job[0], PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[1], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[2], PMIX_LOCAL_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&job[3], PMIX_LOCAL_PEERS, ranks, PMIX_STRING);
    PMIX_INFO_LOAD(&job[4], PMIX_NODE_MAP, node_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&job[5], PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&job[6], PMIX_JOBID, NSPACE, PMIX_STRING);
    PMIX_INFO_LOAD(&job[7], PMIX_APPNUM, &zero, PMIX_UINT32);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    rc = PMIx_server_register_nspace(ns, nclients, job, 8, reg_done, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fprintf(stderr, "register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (rc == PMIX_OPERATION_SUCCEEDED) registered = 1;
    while (!registered) usleep(1000);
    if (registered < 0) return 1;

    pid_t *pids = calloc((size_t)nclients, sizeof *pids);
    char gets_s[32];
    snprintf(gets_s, sizeof gets_s, "%zu", gets);
    for (int r = 0; r < nclients; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, NSPACE, (pmix_rank_t)r);
        registered = 0;
        rc = PMIx_server_register_client(&p, getuid(), getgid(), NULL, reg_done, NULL);
        if (rc == PMIX_OPERATION_SUCCEEDED) registered = 1;
        else if (rc != PMIX_SUCCESS) return 1;
        while (!registered) usleep(1000);
        /* Start from this process's environment (a malloc'd, NULL-terminated copy, which
         * setup_fork extends with the PMIx variables). */
        size_t ne = 0;
        while (environ[ne]) ne++;
        char **env = calloc(ne + 1, sizeof *env);
        if (!env) return 1;
        for (size_t e = 0; e < ne; e++) env[e] = strdup(environ[e]);
        if ((rc = PMIx_server_setup_fork(&p, &env)) != PMIX_SUCCESS) {
            fprintf(stderr, "setup_fork: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        pids[r] = fork();
        if (pids[r] == 0) {
            char *argv[] = {(char *)self, "--client", gets_s, NULL};
            execve(self, argv, env);
            _exit(127);
        }
        for (char **e = env; *e; e++) free(*e);
        free(env);
    }
    int failed = 0;
    for (int r = 0; r < nclients; r++) {
        int st = 0;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    PMIx_server_finalize();
    free(pids);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--client") == 0)
        return client(argc >= 3 ? strtoul(argv[2], NULL, 10) : 20000);
    int n = argc >= 2 ? atoi(argv[1]) : 2;
    size_t gets = argc >= 3 ? strtoul(argv[2], NULL, 10) : 20000;
    if (n < 1 || n > 512 || gets < 1) {
        fprintf(stderr, "usage: %s [NCLIENTS [GETS]]\n", argv[0]);
        return 2;
    }
    return server(n, gets, "/proc/self/exe");
}
