/* Calls the collectives of a list, one per line "COLLECTIVE BYTES" (bcast, scatter, gather,
 * alltoall, barrier, allreduce; BYTES is the message of a bcast and an allreduce, the block
 * of the others, and ignored for a barrier), MPI_BYTE buffers (an allreduce ORs bytes with
 * MPI_BOR), root 0, the same arguments on every rank; then a barrier and an allreduce of one
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
    char colls[4096][16];
    int n = 0;
    long max = 1;
    (void)coll;
    while (n < 4096 && fscanf(f, "%15s %ld", colls[n], &bytes[n]) == 2) {
        if (bytes[n] < 1) bytes[n] = 1;
        if (bytes[n] > max) max = bytes[n];
        n++;
    }
    fclose(f);
    size_t cap = (size_t)max * (size_t)np;
    unsigned char *a = malloc(cap), *b = malloc(cap);
    if (!a || !b) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
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
        } else if (!strcmp(colls[i], "barrier")) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!strcmp(colls[i], "allreduce")) {
            memset(a, 1 << (rank % 8), m);
            MPI_Allreduce(a, b, cnt, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
            unsigned char want = 0;
            for (int r = 0; r < np; r++) want |= (unsigned char)(1 << (r % 8));
            bad |= b[m - 1] != want;
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
    MPI_Finalize();
    return sum != 0;
}
