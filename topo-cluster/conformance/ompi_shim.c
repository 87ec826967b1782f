/* LD_PRELOAD observer for Open MPI: records, per MPI collective the program calls, which
 * ompi_coll_base_* algorithm function coll/tuned called (4.1's mca_coll_tuned.so reaches
 * libmpi's functions through its PLT, and 5.0's libmpi, which holds coll/tuned, its own
 * exported ones through its PLT or GOT, so this library's definitions come first), with the
 * segment size and fan-out it passed (the signatures are the same in 4.1 and 5.0). One line
 * per event in $TC_LOG.<pid>:
 *   MARK COLLECTIVE BYTES NP     (BYTES: the message of a bcast, the block of the others)
 *   ALG FUNCTION SEGSIZE FANOUT  (the outermost algorithm call only)                      */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static FILE *out;
static int depth;

static void emit(const char *fmt, const char *s, long a, long b)
{
    if (!out) {
        const char *base = getenv("TC_LOG");
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", base ? base : "tc", (int)getpid());
        out = fopen(path, "w");
        if (!out) return;
    }
    fprintf(out, fmt, s, a, b);
    fflush(out);
}

static void mark(const char *coll, MPI_Datatype t, int count, MPI_Comm comm)
{
    int size = 0, np = 0;
    MPI_Type_size(t, &size);
    MPI_Comm_size(comm, &np);
    char line[64];
    snprintf(line, sizeof line, "%s %ld %d", coll, (long)size * count, np);
    emit("MARK %s\n", line, 0, 0);
}


int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{ mark("bcast", t, count, comm); return PMPI_Bcast(buf, count, t, root, comm); }
int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{ mark("scatter", st, sc, comm); return PMPI_Scatter(s, sc, st, r, rc, rt, root, comm); }
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{ mark("gather", st, sc, comm); return PMPI_Gather(s, sc, st, r, rc, rt, root, comm); }
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm)
{ mark("alltoall", st, sc, comm); return PMPI_Alltoall(s, sc, st, r, rc, rt, comm); }
int MPI_Barrier(MPI_Comm comm)
{ mark("barrier", MPI_BYTE, 0, comm); return PMPI_Barrier(comm); }
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{ mark("allreduce", t, c, comm); return PMPI_Allreduce(s, r, c, t, op, comm); }

#define ALG(name, seg, fan) \
    do { if (depth == 0) emit("ALG %s %ld %ld\n", #name, (long)(seg), (long)(fan)); } while (0)

/* Open MPI 4.1's ompi/mca/coll/base/coll_base_functions.h signatures, opaque pointers. */
typedef void *P;

int ompi_coll_base_bcast_intra_basic_linear(void *b, int c, P t, int root, P comm, P mod);
int ompi_coll_base_bcast_intra_basic_linear(void *b, int c, P t, int root, P comm, P mod)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_basic_linear");
    ALG(ompi_coll_base_bcast_intra_basic_linear, 0, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_chain(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int32_t chains);
int ompi_coll_base_bcast_intra_chain(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int32_t chains)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int32_t chains);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int32_t chains))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_chain");
    ALG(ompi_coll_base_bcast_intra_chain, seg, chains);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg, chains);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_pipeline(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_pipeline(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_pipeline");
    ALG(ompi_coll_base_bcast_intra_pipeline, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_bintree(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_bintree(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_bintree");
    ALG(ompi_coll_base_bcast_intra_bintree, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_split_bintree(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_split_bintree(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_split_bintree");
    ALG(ompi_coll_base_bcast_intra_split_bintree, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_binomial(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_binomial(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_binomial");
    ALG(ompi_coll_base_bcast_intra_binomial, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_knomial(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int radix);
int ompi_coll_base_bcast_intra_knomial(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int radix)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int radix);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg, int radix))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_knomial");
    ALG(ompi_coll_base_bcast_intra_knomial, seg, radix);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg, radix);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_scatter_allgather(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_scatter_allgather(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_scatter_allgather");
    ALG(ompi_coll_base_bcast_intra_scatter_allgather, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_bcast_intra_scatter_allgather_ring(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
int ompi_coll_base_bcast_intra_scatter_allgather_ring(void *b, int c, P t, int root, P comm, P mod, uint32_t seg)
{
    static int (*real)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(void *b, int c, P t, int root, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_bcast_intra_scatter_allgather_ring");
    ALG(ompi_coll_base_bcast_intra_scatter_allgather_ring, seg, 0);
    depth++;
    int ret = real(b, c, t, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_scatter_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
int ompi_coll_base_scatter_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_scatter_intra_basic_linear");
    ALG(ompi_coll_base_scatter_intra_basic_linear, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_scatter_intra_binomial(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
int ompi_coll_base_scatter_intra_binomial(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_scatter_intra_binomial");
    ALG(ompi_coll_base_scatter_intra_binomial, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_scatter_intra_linear_nb(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int max_reqs);
int ompi_coll_base_scatter_intra_linear_nb(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int max_reqs)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int max_reqs);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int max_reqs))dlsym(RTLD_NEXT, "ompi_coll_base_scatter_intra_linear_nb");
    ALG(ompi_coll_base_scatter_intra_linear_nb, 0, max_reqs);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod, max_reqs);
    depth--;
    return ret;
}

int ompi_coll_base_gather_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
int ompi_coll_base_gather_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_gather_intra_basic_linear");
    ALG(ompi_coll_base_gather_intra_basic_linear, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_gather_intra_binomial(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
int ompi_coll_base_gather_intra_binomial(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_gather_intra_binomial");
    ALG(ompi_coll_base_gather_intra_binomial, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_gather_intra_linear_sync(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int seg);
int ompi_coll_base_gather_intra_linear_sync(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int seg)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int seg);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, int root, P comm, P mod, int seg))dlsym(RTLD_NEXT, "ompi_coll_base_gather_intra_linear_sync");
    ALG(ompi_coll_base_gather_intra_linear_sync, seg, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, root, comm, mod, seg);
    depth--;
    return ret;
}

int ompi_coll_base_alltoall_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
int ompi_coll_base_alltoall_intra_basic_linear(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_alltoall_intra_basic_linear");
    ALG(ompi_coll_base_alltoall_intra_basic_linear, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_alltoall_intra_pairwise(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
int ompi_coll_base_alltoall_intra_pairwise(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_alltoall_intra_pairwise");
    ALG(ompi_coll_base_alltoall_intra_pairwise, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_alltoall_intra_bruck(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
int ompi_coll_base_alltoall_intra_bruck(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_alltoall_intra_bruck");
    ALG(ompi_coll_base_alltoall_intra_bruck, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, comm, mod);
    depth--;
    return ret;
}

int ompi_coll_base_alltoall_intra_linear_sync(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod, int max);
int ompi_coll_base_alltoall_intra_linear_sync(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod, int max)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod, int max);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod, int max))dlsym(RTLD_NEXT, "ompi_coll_base_alltoall_intra_linear_sync");
    ALG(ompi_coll_base_alltoall_intra_linear_sync, 0, max);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, comm, mod, max);
    depth--;
    return ret;
}

int ompi_coll_base_alltoall_intra_two_procs(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
int ompi_coll_base_alltoall_intra_two_procs(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod)
{
    static int (*real)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod);
    if (!real) real = (int (*)(const void *s, int sc, P st, void *r, int rc, P rt, P comm, P mod))dlsym(RTLD_NEXT, "ompi_coll_base_alltoall_intra_two_procs");
    ALG(ompi_coll_base_alltoall_intra_two_procs, 0, 0);
    depth++;
    int ret = real(s, sc, st, r, rc, rt, comm, mod);
    depth--;
    return ret;
}

/* The collectives topo-cluster does not tune: barrier and allreduce (BARRIER_ARGS,
 * ALLREDUCE_ARGS of coll_base_functions.h), recorded so that the run can be compared with
 * one without any rules file. */
#define BARRIER(fn)                                                              \
    int fn(P comm, P mod);                                                       \
    int fn(P comm, P mod)                                                        \
    {                                                                            \
        static int (*real)(P comm, P mod);                                       \
        if (!real) real = (int (*)(P comm, P mod))dlsym(RTLD_NEXT, #fn);         \
        ALG(fn, 0, 0);                                                           \
        depth++;                                                                 \
        int ret = real(comm, mod);                                               \
        depth--;                                                                 \
        return ret;                                                              \
    }
BARRIER(ompi_coll_base_barrier_intra_doublering)
BARRIER(ompi_coll_base_barrier_intra_recursivedoubling)
BARRIER(ompi_coll_base_barrier_intra_bruck)
BARRIER(ompi_coll_base_barrier_intra_two_procs)
BARRIER(ompi_coll_base_barrier_intra_tree)
BARRIER(ompi_coll_base_barrier_intra_basic_linear)

#define ALLREDUCE(fn)                                                                       \
    int fn(const void *s, void *r, int c, P t, P op, P comm, P mod);                        \
    int fn(const void *s, void *r, int c, P t, P op, P comm, P mod)                         \
    {                                                                                       \
        static int (*real)(const void *s, void *r, int c, P t, P op, P comm, P mod);        \
        if (!real)                                                                          \
            real = (int (*)(const void *s, void *r, int c, P t, P op, P comm, P mod))dlsym( \
                RTLD_NEXT, #fn);                                                            \
        ALG(fn, 0, 0);                                                                      \
        depth++;                                                                            \
        int ret = real(s, r, c, t, op, comm, mod);                                          \
        depth--;                                                                            \
        return ret;                                                                         \
    }
ALLREDUCE(ompi_coll_base_allreduce_intra_nonoverlapping)
ALLREDUCE(ompi_coll_base_allreduce_intra_recursivedoubling)
ALLREDUCE(ompi_coll_base_allreduce_intra_ring)
ALLREDUCE(ompi_coll_base_allreduce_intra_basic_linear)
ALLREDUCE(ompi_coll_base_allreduce_intra_redscat_allgather)

int ompi_coll_base_allreduce_intra_ring_segmented(const void *s, void *r, int c, P t, P op, P comm, P mod, uint32_t seg);
int ompi_coll_base_allreduce_intra_ring_segmented(const void *s, void *r, int c, P t, P op, P comm, P mod, uint32_t seg)
{
    static int (*real)(const void *s, void *r, int c, P t, P op, P comm, P mod, uint32_t seg);
    if (!real) real = (int (*)(const void *s, void *r, int c, P t, P op, P comm, P mod, uint32_t seg))dlsym(RTLD_NEXT, "ompi_coll_base_allreduce_intra_ring_segmented");
    ALG(ompi_coll_base_allreduce_intra_ring_segmented, seg, 0);
    depth++;
    int ret = real(s, r, c, t, op, comm, mod, seg);
    depth--;
    return ret;
}
