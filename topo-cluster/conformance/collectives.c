/* Calls the collectives of a list, one per line "COLLECTIVE BYTES" (bcast, scatter, gather,
 * alltoall, barrier, allreduce, and for MPICH's own defaults allgather, allgatherv, reduce,
 * reduce_scatter, reduce_scatter_block, alltoallv, alltoall_inplace and alltoallv_inplace
 * (MPI_IN_PLACE),
 * gatherv, scatterv, scan, exscan; BYTES is the message of a bcast, an allreduce, a reduce,
 * a scan and an exscan, the block of the others (every v-count equal), and ignored for a
 * barrier), MPI_BYTE buffers (reductions OR bytes with MPI_BOR), root 0, the same arguments
 * on every rank; then a barrier and an allreduce of one
 * int (the count of ranks that saw wrong data). Before each
 * call, tc_mark() names it (a breakpoint for the MPICH observer). Checks the data moved and
 * exits non-zero on a mismatch. Usage: collectives CALLS [REPEAT] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void tc_mark(const char *coll, long bytes, int np)
{
    __asm__ volatile("" : : "r"(coll), "r"(bytes), "r"(np) : "memory");
}

#ifdef MPICH_VERSION
/* For the MPICH observer, which calls it from gdb at an algorithm's entry with the handle of the
 * communicator the algorithm runs on: "world" for MPI_COMM_WORLD, "node:SIZE" for another of
 * more than one rank whose ranks are consecutive in MPI_COMM_WORLD (MPICH's node
 * communicator, ranks on one node, consecutive here), else "roots:SIZE" (its node-roots
 * communicator, one rank per node). */
__attribute__((noinline, used)) const char *tc_comm(int handle)
{
    static char desc[32];
    MPI_Comm comm = (MPI_Comm)handle;
    if (comm == MPI_COMM_WORLD) return "world";
    int size = 0, consecutive = 1;
    MPI_Group group, world;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i + 1 < size; i++) {
        int pair[2] = {i, i + 1}, in_world[2];
        PMPI_Group_translate_ranks(group, 2, pair, world, in_world);
        consecutive &= in_world[1] == in_world[0] + 1;
    }
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    snprintf(desc, sizeof desc, "%s:%d", size > 1 && consecutive ? "node" : "roots", size);
    return desc;
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: collectives CALLS [REPEAT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); MPI_Abort(MPI_COMM_WORLD, 2); }
    char coll[32][16];
    long bytes[4096];
    char colls[4096][32];
    int n = 0;
    long max = 1;
    (void)coll;
    while (n < 4096 && fscanf(f, "%31s %ld", colls[n], &bytes[n]) == 2) {
        if (bytes[n] < 1) bytes[n] = 1;
        if (bytes[n] > max) max = bytes[n];
        n++;
    }
    fclose(f);
    size_t cap = (size_t)max * (size_t)np;
    unsigned char *a = malloc(cap), *b = malloc(cap);
    if (!a || !b) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    int *counts = malloc(sizeof(int) * (size_t)np), *displs = malloc(sizeof(int) * (size_t)np);
    if (!counts || !displs) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    unsigned char all_bits = 0;
    for (int r = 0; r < np; r++) all_bits |= (unsigned char)(1 << (r % 8));
    unsigned char below_bits = 0; /* the OR of the ranks below this one */
    for (int r = 0; r < rank; r++) below_bits |= (unsigned char)(1 << (r % 8));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        long m = bytes[i];
        int cnt = (int)m;
        /* a barrier moves no data: its case is keyed by 0 bytes, as the Open MPI shim does */
        tc_mark(colls[i], strcmp(colls[i], "barrier") ? m : 0, np);
        if (!strcmp(colls[i], "bcast")) {
            memset(a, rank == 0 ? 7 : 0, m);
            MPI_Bcast(a, cnt, MPI_BYTE, 0, MPI_COMM_WORLD);
            bad |= a[m - 1] != 7;
        } else if (!strcmp(colls[i], "scatter")) {
            for (int r = 0; r < np; r++) memset(a + (size_t)r * m, r + 1, m);
            MPI_Scatter(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, 0, MPI_COMM_WORLD);
            bad |= b[m - 1] != (unsigned char)(rank + 1);
        } else if (!strcmp(colls[i], "gather")) {
            memset(a, rank + 1, m);
            MPI_Gather(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, 0, MPI_COMM_WORLD);
            if (rank == 0) bad |= b[(size_t)np * m - 1] != (unsigned char)np;
        } else if (!strcmp(colls[i], "alltoall")) {
            for (int r = 0; r < np; r++) memset(a + (size_t)r * m, rank + 1, m);
            MPI_Alltoall(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD);
            bad |= b[(size_t)np * m - 1] != (unsigned char)np;
        } else if (!strcmp(colls[i], "alltoall_inplace")) {
            for (int r = 0; r < np; r++) memset(b + (size_t)r * m, rank + 1, m);
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, MPI_BYTE, MPI_COMM_WORLD);
            for (int r = 0; r < np; r++) bad |= b[(size_t)r * m + m - 1] != (unsigned char)(r + 1);
        } else if (!strcmp(colls[i], "barrier")) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!strcmp(colls[i], "allreduce")) {
            memset(a, 1 << (rank % 8), m);
            MPI_Allreduce(a, b, cnt, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            unsigned char want = 0;
            for (int r = 0; r < np; r++) want |= (unsigned char)(1 << (r % 8));
            bad |= b[m - 1] != want;
        } else if (!strcmp(colls[i], "allgather")) {
            memset(a, rank + 1, m);
            MPI_Allgather(a, cnt, MPI_BYTE, b, cnt, MPI_BYTE, MPI_COMM_WORLD);
            bad |= b[(size_t)np * m - 1] != (unsigned char)np;
        } else if (!strcmp(colls[i], "allgatherv") || !strcmp(colls[i], "gatherv")
                   || !strcmp(colls[i], "scatterv") || !strncmp(colls[i], "alltoallv", 9)) {
            for (int r = 0; r < np; r++) { counts[r] = cnt; displs[r] = r * cnt; }
            if (!strcmp(colls[i], "allgatherv")) {
                memset(a, rank + 1, m);
                MPI_Allgatherv(a, cnt, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
                bad |= b[(size_t)np * m - 1] != (unsigned char)np;
            } else if (!strcmp(colls[i], "gatherv")) {
                memset(a, rank + 1, m);
                MPI_Gatherv(a, cnt, MPI_BYTE, b, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
                if (rank == 0) bad |= b[(size_t)np * m - 1] != (unsigned char)np;
            } else if (!strcmp(colls[i], "scatterv")) {
                for (int r = 0; r < np; r++) memset(a + (size_t)r * m, r + 1, m);
                MPI_Scatterv(a, counts, displs, MPI_BYTE, b, cnt, MPI_BYTE, 0, MPI_COMM_WORLD);
                bad |= b[m - 1] != (unsigned char)(rank + 1);
            } else if (!strcmp(colls[i], "alltoallv")) {
                for (int r = 0; r < np; r++) memset(a + (size_t)r * m, rank + 1, m);
                MPI_Alltoallv(a, counts, displs, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
                bad |= b[(size_t)np * m - 1] != (unsigned char)np;
            } else if (!strcmp(colls[i], "alltoallv_inplace")) {
                for (int r = 0; r < np; r++) memset(b + (size_t)r * m, rank + 1, m);
                MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, counts, displs, MPI_BYTE,
                              MPI_COMM_WORLD);
                bad |= b[(size_t)np * m - 1] != (unsigned char)np;
            } else {
                fprintf(stderr, "unknown collective %s\n", colls[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        } else if (!strcmp(colls[i], "reduce")) {
            memset(a, 1 << (rank % 8), m);
            MPI_Reduce(a, b, cnt, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
            if (rank == 0) bad |= b[m - 1] != all_bits;
        } else if (!strcmp(colls[i], "reduce_scatter") || !strcmp(colls[i], "reduce_scatter_block")) {
            for (int r = 0; r < np; r++) counts[r] = cnt;
            memset(a, 1 << (rank % 8), (size_t)np * m);
            if (!strcmp(colls[i], "reduce_scatter"))
                MPI_Reduce_scatter(a, b, counts, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            else
                MPI_Reduce_scatter_block(a, b, cnt, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            bad |= b[m - 1] != all_bits;
        } else if (!strcmp(colls[i], "scan")) {
            memset(a, 1 << (rank % 8), m);
            MPI_Scan(a, b, cnt, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            bad |= b[m - 1] != (unsigned char)(below_bits | (1 << (rank % 8)));
        } else if (!strcmp(colls[i], "exscan")) {
            memset(a, 1 << (rank % 8), m);
            MPI_Exscan(a, b, cnt, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            if (rank > 0) bad |= b[m - 1] != below_bits;
        } else {
            fprintf(stderr, "unknown collective %s\n", colls[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    tc_mark("barrier", 0, np);
    MPI_Barrier(MPI_COMM_WORLD);
    int one = bad, sum = 0;
    tc_mark("allreduce", 4, np);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%d calls on %d ranks, %d ranks saw wrong data\n", n, np, sum);
    free(a);
    free(b);
    free(counts);
    free(displs);
    MPI_Finalize();
    return sum != 0;
}
