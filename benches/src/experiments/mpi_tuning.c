/* The MPI side of `reproduce mpi-tuning`.
 *
 *   mpi_tuning pingpong REPS SIZE...   (2 ranks) one line per size: "SIZE RTT_NS OS_NS OR_NS"
 *                                      (round trip with SIZE bytes forward and 0 back, the
 *                                      least of REPS (the least disturbed on a loaded machine); send overhead: the time MPI_Send takes;
 *                                      receive overhead: the time MPI_Recv takes on a message
 *                                      that has arrived, after a wait of 1.2 round trips, as
 *                                      LogP/MPI does), then "G0 NS" (the gap of 0-byte messages:
 *                                      REPS messages back to back, then one reply, / REPS)
 *   mpi_tuning time ITERS COLL:SIZE... one line per case: "COLL SIZE NS" (the slowest rank's
 *                                      mean time per call over ITERS calls after 2 warm-up
 *                                      calls, a barrier before the timed loop); SIZE is the
 *                                      message of a bcast and the block of the others.       */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the smallest of n samples: the one least disturbed by other processes on a loaded machine */
static double least(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return v[0];
}

static void spin(double seconds)
{
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end) {
    }
}

static int pingpong(int rank, int reps, int n, char **sizes)
{
    long max = 1;
    for (int i = 0; i < n; i++) if (atol(sizes[i]) > max) max = atol(sizes[i]);
    char *buf = calloc(max, 1);
    double *rtt = malloc(reps * sizeof *rtt), *os = malloc(reps * sizeof *os),
           *orr = malloc(reps * sizeof *orr);
    for (int i = 0; i < n; i++) {
        int m = atoi(sizes[i]);
        for (int r = -2; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, m, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                double t1 = MPI_Wtime();
                MPI_Recv(buf, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t2 = MPI_Wtime();
                if (r >= 0) { rtt[r] = t2 - t0; os[r] = t1 - t0; }
            } else if (rank == 1) {
                MPI_Recv(buf, m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double rt = 0;
        if (rank == 0) rt = least(rtt, reps);
        MPI_Bcast(&rt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int r = -2; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Send(buf, m, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                spin(1.2 * rt);
                double t0 = MPI_Wtime();
                MPI_Recv(buf, m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                if (r >= 0) orr[r] = t1 - t0;
                MPI_Send(buf, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double o_r = 0;
        if (rank == 1) o_r = least(orr, reps);
        MPI_Bcast(&o_r, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%d %.1f %.1f %.1f\n", m, rt * 1e9, least(os, reps) * 1e9, o_r * 1e9);
    }
    /* gap of 0-byte messages */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (int r = 0; r < reps; r++) MPI_Send(buf, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(buf, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t = MPI_Wtime() - t0;
        printf("G0 %.1f\n", t * 1e9 / reps);
    } else if (rank == 1) {
        for (int r = 0; r < reps; r++)
            MPI_Recv(buf, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    free(buf); free(rtt); free(os); free(orr);
    return 0;
}

static void call(const char *coll, char *a, char *b, int m)
{
    if (!strcmp(coll, "bcast")) MPI_Bcast(a, m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "scatter")) MPI_Scatter(a, m, MPI_BYTE, b, m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "gather")) MPI_Gather(a, m, MPI_BYTE, b, m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "alltoall")) MPI_Alltoall(a, m, MPI_BYTE, b, m, MPI_BYTE, MPI_COMM_WORLD);
    else { fprintf(stderr, "unknown collective %s\n", coll); MPI_Abort(MPI_COMM_WORLD, 2); }
}

static int timing(int np, int iters, int n, char **cases)
{
    long max = 1;
    for (int i = 0; i < n; i++) {
        char *c = strchr(cases[i], ':');
        if (!c) { fprintf(stderr, "bad case %s\n", cases[i]); MPI_Abort(MPI_COMM_WORLD, 2); }
        if (atol(c + 1) > max) max = atol(c + 1);
    }
    char *a = calloc((size_t)max * np, 1), *b = calloc((size_t)max * np, 1);
    if (!a || !b) { fprintf(stderr, "out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    for (int i = 0; i < n; i++) {
        char coll[32];
        char *c = strchr(cases[i], ':');
        size_t len = (size_t)(c - cases[i]) < sizeof coll - 1 ? (size_t)(c - cases[i]) : sizeof coll - 1;
        memcpy(coll, cases[i], len);
        coll[len] = 0;
        int m = atoi(c + 1);
        call(coll, a, b, m);
        call(coll, a, b, m);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < iters; k++) call(coll, a, b, m);
        double t = (MPI_Wtime() - t0) / iters, slowest = 0;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) printf("%s %d %.1f\n", coll, m, slowest * 1e9);
    }
    free(a); free(b);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, rc = 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc >= 4 && !strcmp(argv[1], "pingpong") && np >= 2)
        rc = pingpong(rank, atoi(argv[2]), argc - 3, argv + 3);
    else if (argc >= 4 && !strcmp(argv[1], "time"))
        rc = timing(np, atoi(argv[2]), argc - 3, argv + 3);
    else if (rank == 0)
        fprintf(stderr, "usage: mpi_tuning pingpong REPS SIZE... | time ITERS COLL:SIZE...\n");
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
