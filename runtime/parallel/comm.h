/* comm.h — MPI for a run started by mpirun (issue 16).
 *
 * hdgc links no MPI itself: MPI comes with PETSc in the module
 * libhdgc_petsc.so (runtime/petsc/petsc_load.c opens it). hdg_comm_start() opens
 * the module and initialises MPI when the process was started by mpirun
 * (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK set), unless
 * HDGC_MPI=0; otherwise, and before it, every function here is the serial
 * one (rank 0 of 1, the reductions are copies, nothing is loaded).
 *
 * All collectives must be reached by every rank in the same order. A stage
 * that can fail on some ranks only ends with hdg_comm_agree, so that every
 * rank returns the same error (the message of the lowest failing rank) and
 * nothing waits forever for a rank that has given up.
 *
 * MPI is finalised at exit (after PETSc). */
#ifndef HDG_COMM_H
#define HDG_COMM_H

#include <stddef.h>

#include "hdg.h"

/* 1 when the process was started by mpirun (the environment says so) and
 * HDGC_MPI is not 0; decides nothing else. */
int hdg_comm_launched(void);

/* Initialises MPI (once; later calls return its first status). Serial when
 * not launched by mpirun: returns HDG_OK and stays rank 0 of 1. */
hdg_status hdg_comm_start(hdg_error *err);

int hdg_comm_rank(void);
int hdg_comm_size(void);       /* 1 unless started and launched with -np > 1 */
int hdg_comm_active(void);     /* MPI initialised by hdg_comm_start (also with -np 1) */
/* The rank on this node (for one GPU per rank), 0 when serial; the ranks on
 * this node, 1 when serial. */
int hdg_comm_local_rank(void);
int hdg_comm_local_size(void);

/* In-place reductions over every rank. */
void hdg_comm_sum(double *x, int n);
void hdg_comm_max(double *x, int n);
void hdg_comm_min(double *x, int n);
void hdg_comm_isum(long long *x, int n);
void hdg_comm_imax(long long *x, int n);
void hdg_comm_imin(long long *x, int n);

/* bytes from root to everyone. */
void hdg_comm_bcast(void *buf, size_t bytes, int root);

/* Point to point, blocking (tags < 1000 are hdgc's). */
void hdg_comm_send(const void *buf, size_t bytes, int dest, int tag);
void hdg_comm_recv(void *buf, size_t bytes, int src, int tag);

/* Neighbour exchange: to each of n ranks nbr[i], sbytes[i] bytes from
 * sbuf[i]; from each, rbytes[i] bytes into rbuf[i]. begin posts the
 * non-blocking sends and receives (the buffers must stay untouched until
 * end), end waits for all of them. */
typedef struct hdg_comm_req hdg_comm_req;
hdg_comm_req *hdg_comm_exchange_begin(int n, const int *nbr, void *const *sbuf, const size_t *sbytes,
                                      void *const *rbuf, const size_t *rbytes, int tag);
void hdg_comm_exchange_end(hdg_comm_req *q);

/* Ends every rank of the job at once (MPI_Abort) with exit status code, when MPI
 * was started by hdg_comm_start and the job has more than one rank; otherwise
 * returns. For a rank that fails outside any collective (a Python exception):
 * the other ranks would wait for it forever, and it for them in MPI_Finalize. */
void hdg_comm_abort(int code);

/* Collective: every rank passes its status; all return the first failing
 * rank's status and message (err filled on every rank), or HDG_OK. */
hdg_status hdg_comm_agree(hdg_status st, hdg_error *err);

/* A rewrite of the failing rank's message before hdg_comm_agree sends it
 * (run_mpi.c: piece element numbers to the whole mesh's); NULL: none. */
typedef void (*hdg_comm_rewrite_fn)(void *ctx, char *msg, size_t size);
void hdg_comm_set_rewrite(hdg_comm_rewrite_fn fn, void *ctx);


/* The module's side: a table of these, from hdg_comm_module_ops(). */
typedef struct hdg_comm_ops {
    int (*init)(hdg_error *err);   /* 0 or an hdg_status */
    int rank, size, local_rank, local_size;
    void (*reduce)(void *x, int n, int isint, int op);   /* op 0 sum, 1 max, 2 min; isint: long long */
    void (*bcast)(void *buf, size_t bytes, int root);
    void (*send)(const void *buf, size_t bytes, int dest, int tag);
    void (*recv)(void *buf, size_t bytes, int src, int tag);
    void *(*ibegin)(int n, const int *nbr, void *const *sbuf, const size_t *sbytes, void *const *rbuf,
                    const size_t *rbytes, int tag);
    void (*iend)(void *q);
    void (*abort)(int code);
} hdg_comm_ops;
typedef hdg_comm_ops *(*hdg_comm_module_ops_fn)(void);
hdg_comm_ops *hdg_comm_module_ops(void);

#endif
