/* petsc_mpi.c — the module's MPI (runtime/parallel/comm.h: the table of calls the
 * library makes under mpirun). Built into libhdgc_petsc.so with petsc.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/parallel/comm.h"
#include "runtime/petsc/petsc.h"

static int we_init;   /* MPI_Init was ours: MPI_Finalize at exit */

static void mpi_stop(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (we_init && !fin) MPI_Finalize();
}

static void reduce(void *x, int n, int isint, int op)
{
    MPI_Op o = op == 0 ? MPI_SUM : op == 1 ? MPI_MAX : MPI_MIN;
    MPI_Allreduce(MPI_IN_PLACE, x, n, isint ? MPI_LONG_LONG : MPI_DOUBLE, o, MPI_COMM_WORLD);
}

static void bcast(void *buf, size_t bytes, int root)
{
    for (size_t off = 0; off < bytes;) {   /* counts are ints */
        size_t n = bytes - off > (1u << 30) ? (1u << 30) : bytes - off;
        MPI_Bcast((char *)buf + off, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
        off += n;
    }
}

static void send(const void *buf, size_t bytes, int dest, int tag)
{
    for (size_t off = 0; off < bytes || !bytes; off += 1u << 30) {
        size_t n = bytes - off > (1u << 30) ? (1u << 30) : bytes - off;
        MPI_Send((const char *)buf + off, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
        if (!bytes) break;
    }
}

static void recv(void *buf, size_t bytes, int src, int tag)
{
    for (size_t off = 0; off < bytes || !bytes; off += 1u << 30) {
        size_t n = bytes - off > (1u << 30) ? (1u << 30) : bytes - off;
        MPI_Recv((char *)buf + off, (int)n, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!bytes) break;
    }
}

typedef struct pending {
    int n;
    MPI_Request *rq;
} pending;

static void *ibegin(int n, const int *nbr, void *const *sbuf, const size_t *sbytes, void *const *rbuf,
                    const size_t *rbytes, int tag)
{
    pending *p = malloc(sizeof *p);
    p->n = 2 * n;
    p->rq = malloc(sizeof(MPI_Request) * (size_t)(2 * n));
    for (int i = 0; i < n; i++)
        MPI_Irecv(rbuf[i], (int)rbytes[i], MPI_BYTE, nbr[i], tag, MPI_COMM_WORLD, &p->rq[i]);
    for (int i = 0; i < n; i++)
        MPI_Isend(sbuf[i], (int)sbytes[i], MPI_BYTE, nbr[i], tag, MPI_COMM_WORLD, &p->rq[n + i]);
    return p;
}

static void iend(void *q)
{
    pending *p = q;
    MPI_Waitall(p->n, p->rq, MPI_STATUSES_IGNORE);
    free(p->rq);
    free(p);
}

static void abort_job(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static hdg_comm_ops ops;

/* MPI (funneled: only the main thread calls it), then PETSc on every rank
 * at once (its initialisation is collective). */
static int init(hdg_error *err)
{
    int done = 0, provided;
    MPI_Initialized(&done);
    if (!done) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            if (err) snprintf(err->msg, sizeof err->msg, "mpirun: MPI_Init failed");
            return HDG_EINTERNAL;
        }
        we_init = 1;
        atexit(mpi_stop);   /* after PETSc's PetscFinalize (registered later, run earlier) */
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &ops.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ops.size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ops.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &ops.local_rank);
    MPI_Comm_size(node, &ops.local_size);
    MPI_Comm_free(&node);
    return (int)hdg_petsc_module_start(err);
}

hdg_comm_ops *hdg_comm_module_ops(void)
{
    ops.init = init;
    ops.reduce = reduce;
    ops.bcast = bcast;
    ops.send = send;
    ops.recv = recv;
    ops.ibegin = ibegin;
    ops.iend = iend;
    ops.abort = abort_job;
    return &ops;
}
