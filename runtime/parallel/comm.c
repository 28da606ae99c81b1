/* comm.c — the library's side of MPI (comm.h): serial until hdg_comm_start
 * finds the process launched by mpirun, then the module's table of MPI
 * calls (runtime/petsc/petsc_mpi.c in libhdgc_petsc.so). */
#include "runtime/parallel/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/petsc/petsc.h"
#include "support/util.h"

static hdg_comm_ops *ops;   /* NULL: serial */
static int tried;
static hdg_status first_status;
static hdg_error first_err;

int hdg_comm_launched(void)
{
    const char *off = getenv("HDGC_MPI");
    if (off && !strcmp(off, "0")) return 0;
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

hdg_status hdg_comm_start(hdg_error *err)
{
    if (!tried) {
        tried = 1;
        if (hdg_comm_launched()) {
            hdg_comm_ops *o = hdg_petsc_comm_ops(&first_err);
            if (!o) first_status = first_err.code;
            else if ((first_status = (hdg_status)o->init(&first_err)) == HDG_OK) ops = o;
        }
    }
    if (first_status && err) *err = first_err;
    return first_status;
}

int hdg_comm_rank(void) { return ops ? ops->rank : 0; }
int hdg_comm_size(void) { return ops ? ops->size : 1; }
int hdg_comm_active(void) { return ops != NULL; }
int hdg_comm_local_rank(void) { return ops ? ops->local_rank : 0; }
int hdg_comm_local_size(void) { return ops ? ops->local_size : 1; }

void hdg_comm_sum(double *x, int n) { if (ops) ops->reduce(x, n, 0, 0); }
void hdg_comm_max(double *x, int n) { if (ops) ops->reduce(x, n, 0, 1); }
void hdg_comm_min(double *x, int n) { if (ops) ops->reduce(x, n, 0, 2); }
void hdg_comm_isum(long long *x, int n) { if (ops) ops->reduce(x, n, 1, 0); }
void hdg_comm_imax(long long *x, int n) { if (ops) ops->reduce(x, n, 1, 1); }
void hdg_comm_imin(long long *x, int n) { if (ops) ops->reduce(x, n, 1, 2); }

void hdg_comm_bcast(void *buf, size_t bytes, int root) { if (ops) ops->bcast(buf, bytes, root); }

void hdg_comm_send(const void *buf, size_t bytes, int dest, int tag) { if (ops) ops->send(buf, bytes, dest, tag); }
void hdg_comm_recv(void *buf, size_t bytes, int src, int tag) { if (ops) ops->recv(buf, bytes, src, tag); }

struct hdg_comm_req {
    void *q;
};

hdg_comm_req *hdg_comm_exchange_begin(int n, const int *nbr, void *const *sbuf, const size_t *sbytes,
                                      void *const *rbuf, const size_t *rbytes, int tag)
{
    hdg_comm_req *r = hdg_xcalloc(1, sizeof *r);
    if (ops && n > 0) r->q = ops->ibegin(n, nbr, sbuf, sbytes, rbuf, rbytes, tag);
    return r;
}

void hdg_comm_exchange_end(hdg_comm_req *r)
{
    if (!r) return;
    if (ops && r->q) ops->iend(r->q);
    free(r);
}

void hdg_comm_abort(int code)
{
    if (ops && ops->size > 1 && ops->abort) ops->abort(code);
}

static hdg_comm_rewrite_fn rewrite;
static void *rewrite_ctx;

void hdg_comm_set_rewrite(hdg_comm_rewrite_fn fn, void *ctx)
{
    rewrite = fn, rewrite_ctx = ctx;
}

/* The lowest failing rank sends its status and message to everyone, once
 * said where ("rank R: " for R > 0; a message agreed before keeps its
 * rank). */
hdg_status hdg_comm_agree(hdg_status st, hdg_error *err)
{
    if (!ops) return st;
    long long who = st ? ops->rank : ops->size;
    ops->reduce(&who, 1, 1, 2);
    if (who == ops->size) return HDG_OK;
    hdg_error e;
    memset(&e, 0, sizeof e);
    static char agreed[sizeof e.msg];   /* the last message agreed: not rewritten again */
    if (ops->rank == who) {
        e = *err, e.code = st;
        if (ops->size > 1 && strcmp(e.msg, agreed)) {
            if (rewrite) rewrite(rewrite_ctx, e.msg, sizeof e.msg);
            char m[sizeof e.msg];   /* rank 0's needs no prefix: it also reads the whole mesh */
            snprintf(m, sizeof m, "rank %d: %.2030s", (int)who, e.msg);
            if (who > 0) memcpy(e.msg, m, sizeof m);
        }
    }
    ops->bcast(&e, sizeof e, (int)who);
    memcpy(agreed, e.msg, sizeof agreed);
    if (err) *err = e;
    return e.code;
}
