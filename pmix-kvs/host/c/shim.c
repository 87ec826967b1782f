/*
 * The C side of pmix-kvs-host: the one file that touches OpenPMIx's server API, with a flat
 * interface for the Rust host (src/ffi.rs declares it). The host's Rust code does the
 * sockets and runs pmix-kvs's fence and direct-modex exchange; this file starts the PMIx
 * server library, registers the job and its local clients, and turns the server's upcalls
 * (fence_nb, direct_modex) into calls of the two Rust functions given to shim_server_init,
 * and the host's answers back into the server's callbacks.
 *
 * Every upcall may run on the PMIx progress thread; the Rust functions only queue an event.
 * The shim_*_done functions may be called from any thread: OpenPMIx's callbacks shift to its
 * own thread.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <pmix_server.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the host gets: an opaque handle to give back with the result. */
typedef void (*shim_fence_fn)(void *handle, const char *data, size_t ndata, int collect,
                              int whole_job, uint32_t timeout_s);
typedef void (*shim_dmodex_fn)(void *handle, const char *nspace, uint32_t rank,
                               const char *key, uint32_t timeout_s);
typedef void (*shim_dmodex_answer_fn)(uint64_t token, int status, const char *data,
                                      size_t ndata);

static shim_fence_fn host_fence;
static shim_dmodex_fn host_dmodex;
static shim_dmodex_answer_fn host_dmodex_answer;
static char my_nspace[PMIX_MAX_NSLEN + 1];

/* A pending upcall: the server's callback and its argument. */
typedef struct {
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} pending_t;

static pmix_status_t connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd) {
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb, void *cbd) {
    (void)p, (void)obj, (void)cb, (void)cbd;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t aborted(const pmix_proc_t *p, void *obj, int status, const char msg[],
                             pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbd) {
    (void)obj, (void)procs, (void)nprocs, (void)cb, (void)cbd;
    fprintf(stderr, "pmix-kvs-host: %s:%u called abort (%d): %s\n", p->nspace, p->rank, status,
            msg ? msg : "");
    return PMIX_OPERATION_SUCCEEDED;
}

static uint32_t timeout_of(const pmix_info_t info[], size_t ninfo) {
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) && info[i].value.type == PMIX_INT &&
            info[i].value.data.integer > 0)
            return (uint32_t)info[i].value.data.integer;
    return 0;
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata) {
    int collect = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA))
            collect = PMIX_INFO_TRUE(&info[i]);
    /* The whole job: every rank of our namespace (PMIx_Fence with no procs). */
    int whole = nprocs == 1 && PMIX_CHECK_NSPACE(procs[0].nspace, my_nspace) &&
                procs[0].rank == PMIX_RANK_WILDCARD;
    pending_t *p = malloc(sizeof *p);
    if (!p) return PMIX_ERR_NOMEM;
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    host_fence(p, data, ndata, collect, whole, timeout_of(info, ninfo));
    return PMIX_SUCCESS;
}

static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata) {
    pending_t *p = malloc(sizeof *p);
    if (!p) return PMIX_ERR_NOMEM;
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    /* The key the get asked for, when the server says (PMIX_REQUIRED_KEY). */
    const char *key = NULL;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_REQUIRED_KEY) && info[i].value.type == PMIX_STRING)
            key = info[i].value.data.string;
    host_dmodex(p, proc->nspace, proc->rank, key, timeout_of(info, ninfo));
    return PMIX_SUCCESS;
}

static void release(void *cbdata) { free(cbdata); }

/* Completes a fence or a direct-modex upcall: the server library gets a copy of the data,
 * freed when it says it is done with it. */
void shim_upcall_done(void *handle, int status, const char *data, size_t ndata) {
    pending_t *p = handle;
    char *copy = NULL;
    if (ndata) {
        copy = malloc(ndata);
        if (!copy) {
            status = PMIX_ERR_NOMEM;
            ndata = 0;
        } else {
            memcpy(copy, data, ndata);
        }
    }
    if (p->cbfunc) p->cbfunc(status, copy, ndata, p->cbdata, copy ? release : NULL, copy);
    else free(copy);
    free(p);
}

static volatile int op_state;
static void op_done(pmix_status_t st, void *cbdata) {
    (void)cbdata;
    op_state = st == PMIX_SUCCESS ? 1 : -1;
}
static int wait_op(pmix_status_t rc) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) return rc;
    for (int i = 0; i < 30000 && !op_state; i++) usleep(1000);
    return op_state == 1 ? PMIX_SUCCESS : PMIX_ERROR;
}

int shim_server_init(const char *hostname, const char *tmpdir, shim_fence_fn fence,
                     shim_dmodex_fn dmodex, shim_dmodex_answer_fn dmodex_answer) {
    static pmix_server_module_t module = {0};
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.abort = aborted;
    module.fence_nb = fence_nb;
    module.direct_modex = direct_modex;
    host_fence = fence;
    host_dmodex = dmodex;
    host_dmodex_answer = dmodex_answer;
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_HOSTNAME, hostname, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    return PMIx_server_init(&module, info, 3);
}

/* Registers the job on this node: `proc_nodes[r]` is rank r's node, `hosts` the nodes'
 * names joined by commas. Job-level keys: universe and job size, number of nodes, node and
 * process maps, this node's local peers and size, the job id and app number; per rank:
 * rank, local rank, node rank, node id and host name. */
int shim_register_nspace(const char *nspace, uint32_t size, const uint32_t *proc_nodes,
                         uint32_t num_nodes, uint32_t node, const char *hosts) {
    PMIX_LOAD_NSPACE(my_nspace, nspace);
    char **names = calloc(num_nodes, sizeof *names);
    char *hcopy = strdup(hosts);
    if (!names || !hcopy) return PMIX_ERR_NOMEM;
    char *save = NULL, *tok = strtok_r(hcopy, ",", &save);
    for (uint32_t i = 0; i < num_nodes; i++) {
        if (!tok) return PMIX_ERR_BAD_PARAM;
        names[i] = tok;
        tok = strtok_r(NULL, ",", &save);
    }
    /* The per-node rank lists ("0,1;2,3") and this node's local peers. */
    size_t cap = 16 * (size_t)size + num_nodes + 16;
    char *ppn = calloc(cap, 1), *peers = calloc(cap, 1);
    uint32_t *local_rank = calloc(size ? size : 1, sizeof *local_rank);
    if (!ppn || !peers || !local_rank) return PMIX_ERR_NOMEM;
    uint32_t nlocal = 0;
    for (uint32_t n = 0; n < num_nodes; n++) {
        if (n) strcat(ppn, ";");
        uint32_t k = 0;
        for (uint32_t r = 0; r < size; r++) {
            if (proc_nodes[r] != n) continue;
            local_rank[r] = k;
            snprintf(ppn + strlen(ppn), cap - strlen(ppn), k ? ",%u" : "%u", r);
            if (n == node) {
                snprintf(peers + strlen(peers), cap - strlen(peers), nlocal ? ",%u" : "%u", r);
                nlocal++;
            }
            k++;
        }
    }
    char *node_map = NULL, *proc_map = NULL;
    int rc = PMIx_generate_regex(hosts, &node_map);
    if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(ppn, &proc_map);
    if (rc != PMIX_SUCCESS) return rc;

    size_t ninfo = 10 + size, n = 0;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t zero = 0;
    PMIX_INFO_LOAD(&info[n++], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_MAX_PROCS, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_NUM_NODES, &num_nodes, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[n++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_NODE_MAP, node_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[n++], PMIX_PROC_MAP, proc_map, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[n++], PMIX_JOBID, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_APPNUM, &zero, PMIX_UINT32);
    for (uint32_t r = 0; r < size; r++) {
        pmix_data_array_t *arr;
        PMIX_DATA_ARRAY_CREATE(arr, 5, PMIX_INFO);
        pmix_info_t *pi = arr->array;
        uint16_t lr = (uint16_t)local_rank[r];
        uint32_t nid = proc_nodes[r];
        PMIX_INFO_LOAD(&pi[0], PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pi[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[3], PMIX_NODEID, &nid, PMIX_UINT32);
        PMIX_INFO_LOAD(&pi[4], PMIX_HOSTNAME, names[nid], PMIX_STRING);
        PMIX_INFO_LOAD(&info[n], PMIX_PROC_DATA, arr, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(arr);
        n++;
    }
    op_state = 0;
    rc = wait_op(PMIx_server_register_nspace(my_nspace, (int)nlocal, info, n, op_done, NULL));
    PMIX_INFO_FREE(info, ninfo);
    free(node_map), free(proc_map), free(ppn), free(peers), free(local_rank), free(names);
    free(hcopy);
    return rc;
}

/* Registers one local client and returns its environment (this process's, plus what the
 * server adds): a malloc'd NULL-terminated array the caller frees with shim_free_env. */
char **shim_setup_client(uint32_t rank, int *status) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, my_nspace, rank);
    op_state = 0;
    int rc = wait_op(PMIx_server_register_client(&p, getuid(), getgid(), NULL, op_done, NULL));
    if (rc != PMIX_SUCCESS) {
        *status = rc;
        return NULL;
    }
    extern char **environ;
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **env = calloc(ne + 1, sizeof *env);
    if (!env) {
        *status = PMIX_ERR_NOMEM;
        return NULL;
    }
    for (size_t e = 0; e < ne; e++) env[e] = strdup(environ[e]);
    *status = PMIx_server_setup_fork(&p, &env);
    return env;
}

void shim_free_env(char **env) {
    if (!env) return;
    for (char **e = env; *e; e++) free(*e);
    free(env);
}

static void dmodex_answered(pmix_status_t status, char *data, size_t sz, void *cbdata) {
    host_dmodex_answer((uint64_t)(uintptr_t)cbdata, status, data, sz);
}

/* Asks this node's server for the data of one of its clients (for another node's direct
 * modex); the answer comes to the dmodex_answer function with `token`. */
int shim_dmodex_request(const char *nspace, uint32_t rank, uint64_t token) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    return PMIx_server_dmodex_request(&p, dmodex_answered, (void *)(uintptr_t)token);
}

int shim_server_finalize(void) { return PMIx_server_finalize(); }

const char *shim_error_string(int status) { return PMIx_Error_string(status); }
