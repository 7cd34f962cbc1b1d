/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's one-sided transfers, the engine under Put, Get and the accumulates
 * (mpi_win.h): a target datatype is walked block by block (mpi_type_blocks) and each block is
 * one of rcmsg.h's operations (rcmsg_put, rcmsg_get, rcmsg_accumulate, ...), so that any
 * datatype works over every transport. The origin side is always packed bytes here: block k
 * of the target takes the packed bytes at its packed offset.
 *
 * Accumulates on a predefined type rcmsg has no element for (MINLOC/MAXLOC's pair types, long
 * double, complex) are done here by the origin: it takes the target's accumulate mutex (a word
 * of the window's lock window, by compare-and-swap), reads the target's bytes, applies the
 * operation element by element, writes them back and gives the mutex back. Every accumulate on
 * such a type goes this way (MPI_REPLACE and MPI_NO_OP included), so they are atomic with each
 * other element by element, and ordered after the origin's earlier operations to the target
 * (flushed first). A wait for the mutex ends in an error once its holder is lost.
 */
#include "mpi/mpi_win.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    mpi_win_t *w;
    const mpi_win_target_t *tg;
    char *p;   /* packed origin (or the packed destination of a get) */
    char *res; /* packed result of a get_accumulate */
    int kind;  /* XFER_* */
    rcmsg_datatype_t rdt;
    rcmsg_op_t rop;
    size_t esize;
    rcmsg_status_t s;
} xfer_t;

enum { XFER_PUT, XFER_GET, XFER_ACC, XFER_GACC };

/* One block: len bytes at off from the target's element 0, packed at poff. */
static int xfer_block(void *arg, MPI_Aint off, size_t len, size_t poff)
{
    xfer_t *x = arg;
    size_t disp = x->tg->disp + (size_t)off; /* inside the window: checked by the caller */
    int rank = x->tg->rank;
    rcmsg_win_t win = x->w->data;
    char *in = x->p != NULL ? x->p + poff : NULL;

    switch (x->kind) {
    case XFER_PUT:
        x->s = rcmsg_put(in, len, rank, disp, win);
        break;
    case XFER_GET:
        x->s = rcmsg_get(in, len, rank, disp, win);
        break;
    case XFER_ACC:
        x->s = rcmsg_accumulate(in, len / x->esize, x->rdt, x->rop, rank, disp, win);
        break;
    default:
        x->s = rcmsg_get_accumulate(in, x->res + poff, len / x->esize, x->rdt, x->rop, rank, disp,
                                    win);
        break;
    }
    return x->s != RCMSG_OK;
}

static rcmsg_status_t xfer_walk(xfer_t *x)
{
    x->s = RCMSG_OK;
    (void)mpi_type_blocks(x->tg->t, x->tg->count, xfer_block, x);
    return x->s;
}

rcmsg_status_t mpi_win_xfer_rw(mpi_win_t *w, const mpi_win_target_t *tg, void *p, bool get)
{
    xfer_t x = {.w = w, .tg = tg, .p = p, .kind = get ? XFER_GET : XFER_PUT};

    return xfer_walk(&x);
}

rcmsg_status_t mpi_win_xfer_acc(mpi_win_t *w, const mpi_win_target_t *tg, const void *in, void *res,
                                rcmsg_datatype_t rdt, rcmsg_op_t rop)
{
    xfer_t x = {.w = w,
                .tg = tg,
                .p = (char *)(uintptr_t)in,
                .res = res,
                .kind = res != NULL ? XFER_GACC : XFER_ACC,
                .rdt = rdt,
                .rop = rop,
                .esize = rcmsg_datatype_size(rdt)};

    if (rop == RCMSG_OP_NO_OP) {
        if (res == NULL) {
            return RCMSG_OK; /* nothing changes, nothing is read */
        }
        x.p = NULL; /* rcmsg reads no origin then */
    }
    return xfer_walk(&x);
}

/* ---- accumulates under the target's mutex ---------------------------------------------- */

/* One compare-and-swap of rank's mutex word, completed: *old gets the value found. */
static rcmsg_status_t mutex_cas(mpi_win_t *w, int rank, int64_t cmp, int64_t swap, int64_t *old)
{
    rcmsg_status_t s =
        rcmsg_acc_compare_swap(&cmp, &swap, old, RCMSG_INT64, rank, MPI_WIN_MUTEX_WORD, w->locks);

    return s == RCMSG_OK ? rcmsg_win_flush(rank, w->locks) : s;
}

/* Takes rank's mutex (its word holds the holder's rank + 1); while another holds it, waits
 * (mpi_win_spin: bounded by the holder's liveness). */
static rcmsg_status_t mutex_take(mpi_win_t *w, int rank)
{
    int64_t old = 0;
    mpi_win_spin_t sp;
    rcmsg_status_t s;

    mpi_win_spin_init(&sp, rank);
    while ((s = mutex_cas(w, rank, 0, w->c->rank + 1, &old)) == RCMSG_OK && old != 0 &&
           (s = mpi_win_spin(w, &sp, (int)old - 1, "the accumulate mutex")) == RCMSG_OK) {
    }
    mpi_win_spin_end(&sp);
    return s;
}

/* io = in op io, element by element of basic (packed: its size in bytes each). */
static void locked_apply(MPI_Op op, MPI_Datatype basic, const char *in, char *io, size_t bytes)
{
    mpi_type_t *bt = mpi_type_get(basic);
    size_t size = mpi_type_size(bt);
    union {
        long double ld; /* aligned for every predefined type; 64 bytes > any extent */
        char c[64];
    } a, b;

    if (op == MPI_REPLACE) {
        memcpy(io, in, bytes);
        return;
    }
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    for (size_t i = 0; op != MPI_NO_OP && i + size <= bytes; i += size) {
        mpi_type_unpack(bt, in + i, 1, &a);
        mpi_type_unpack(bt, io + i, 1, &b);
        (void)mpi_op_apply(op, &a, &b, 1, basic); /* op defined on basic: checked */
        mpi_type_pack(bt, &b, 1, io + i);
    }
}

rcmsg_status_t mpi_win_xfer_acc_locked(mpi_win_t *w, const mpi_win_target_t *tg, const void *in,
                                       void *res, MPI_Op op, MPI_Datatype basic)
{
    char *data = malloc(tg->bytes > 0 ? tg->bytes : 1);
    xfer_t x = {.w = w, .tg = tg, .p = data, .kind = XFER_GET};
    int64_t old;
    rcmsg_status_t s, g;

    if (data == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = rcmsg_win_flush(tg->rank, w->data); /* the origin's earlier operations come first */
    if (s == RCMSG_OK) {
        s = mutex_take(w, tg->rank);
    }
    if (s != RCMSG_OK) {
        free(data);
        return s;
    }
    w->acc_held++;
    if ((s = xfer_walk(&x)) == RCMSG_OK) {
        s = rcmsg_win_flush(tg->rank, w->data);
    }
    if (s == RCMSG_OK && res != NULL) {
        memcpy(res, data, tg->bytes);
    }
    if (s == RCMSG_OK && op != MPI_NO_OP) {
        locked_apply(op, basic, in, data, tg->bytes);
        x.kind = XFER_PUT;
        if ((s = xfer_walk(&x)) == RCMSG_OK) {
            s = rcmsg_win_flush(tg->rank, w->data);
        }
    }
    g = mutex_cas(w, tg->rank, w->c->rank + 1, 0, &old);
    w->acc_held--;
    free(data);
    return s != RCMSG_OK ? s : g;
}
