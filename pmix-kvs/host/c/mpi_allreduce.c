/*
 * A real MPI program for pmix-kvs-host: MPI_Init, MPI_Allreduce of the ranks, MPI_Finalize.
 * Built with Debian's Open MPI (mpicc) and started by the host as a PMIx client: Open MPI
 * finds the host's PMIx server through the environment PMIx_server_setup_fork gives it,
 * and its wire-up (the modex of its transports' addresses) goes through the host's fence
 * and direct modex. Prints "mpi RANK SIZE SUM HOST" and "done RANK 0 SUCCESS".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank = -1, size = 0, sum = -1, len = 0;
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    int rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpi %d %d %d %s %s\n", rank, size, sum, host, rc == MPI_SUCCESS ? "ok" : "failed");
    fflush(stdout);
    rc = MPI_Finalize();
    printf("done %d %d %s\n", rank, rc != MPI_SUCCESS || sum != size * (size - 1) / 2,
           rc == MPI_SUCCESS ? "SUCCESS" : "ERROR");
    return 0;
}
