/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's one-sided communication calls (mpi_win.h): Put, Get, Accumulate,
 * Get_accumulate, Fetch_and_op, Compare_and_swap over rcmsg.h's: the arguments checked (the
 * target's bytes inside its window, the origin's type signature the target's), then the
 * transfer engine (mpi_win_xfer.c) walks the target datatype, any one. Origin (and result)
 * datatypes go as packed bytes: a noncontiguous one through a packed temporary
 * (mpi_win_settle frees or unpacks it once the operation is complete).
 * Rput, Rget, Raccumulate and Rget_accumulate: the same, flushed, with a complete request.
 * MPI-4.0's large-count forms (Put_c, ..., Rget_accumulate_c) are the same paths: the counts are
 * MPI_Count throughout (the int calls' promoted), the target's bytes a size_t.
 */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_win.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The bytes [*lo_p, *hi_p) of rank's window that tg reaches at disp (tg->bytes and tg->disp
 * set); false when a sum or product overflows (wrapped, it could land inside the window). */
static bool rma_span(const mpi_win_t *w, int rank, MPI_Aint disp, mpi_win_target_t *tg,
                     MPI_Aint *lo_p, MPI_Aint *hi_p)
{
    MPI_Aint at, lo, hi;

    if (__builtin_mul_overflow(mpi_type_size(tg->t), tg->count, &tg->bytes) ||
        tg->bytes > (size_t)INTPTR_MAX ||
        __builtin_mul_overflow(disp, (MPI_Aint)w->disp_units[rank], &at)) {
        return false;
    }
    tg->disp = (size_t)at;
    if (tg->contig) { /* one block: [true_lb, true_lb + bytes) */
        lo = tg->lb;
        if (__builtin_add_overflow(lo, (MPI_Aint)tg->bytes, &hi)) {
            return false;
        }
    } else if (!mpi_type_span(tg->t, tg->count, &lo, &hi)) {
        return false;
    }
    return !__builtin_add_overflow(at, lo, lo_p) && !__builtin_add_overflow(at, hi, hi_p);
}

static int rma_range_err(mpi_win_t *w, const char *call, int rank, MPI_Aint disp, MPI_Count count,
                         bool over, MPI_Aint lo, MPI_Aint hi)
{
    if (over) {
        return mpi_err(w->c, call, MPI_ERR_RMA_RANGE,
                       "%s: the target datatype reaches past the address range (target_disp %lld "
                       "x disp_unit %d, %lld elements)",
                       call, (long long)disp, w->disp_units[rank], (long long)count);
    }
    return mpi_err(w->c, call, MPI_ERR_RMA_RANGE,
                   "%s: the target datatype reaches bytes [%lld, %lld) of rank %d's window of "
                   "%lld bytes (target_disp %lld x disp_unit %d, %lld elements)",
                   call, (long long)lo, (long long)hi, rank, (long long)w->sizes[rank],
                   (long long)disp, w->disp_units[rank], (long long)count);
}

/* A dynamic window's access: the target's bytes [lo, hi) (addresses) inside the regions
 * it attached (mpi_win_dyn.c), else MPI_ERR_RMA_RANGE raised. */
static int rma_dyn_range(mpi_win_t *w, const char *call, int rank, MPI_Aint lo, MPI_Aint hi)
{
    rcmsg_status_t s = lo < 0
                           ? RCMSG_ERR_NOT_FOUND
                           : rcmsg_win_attached(w->data, rank, (size_t)lo, (size_t)hi - (size_t)lo);

    if (s == RCMSG_ERR_NOT_FOUND) {
        return mpi_err(w->c, call, MPI_ERR_RMA_RANGE,
                       "%s: the target bytes [%#llx, %#llx) are not inside the regions rank %d "
                       "attached to the dynamic window",
                       call, (unsigned long long)lo, (unsigned long long)hi, rank);
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_win_status(w, call, s);
}

/* The target of an operation: rank, displacement and type checked, every byte it touches
 * inside the target's window (before anything is posted). */
static int rma_target(mpi_win_t *w, const char *call, int rank, MPI_Aint disp, MPI_Count count,
                      MPI_Datatype dt, mpi_win_target_t *tg)
{
    MPI_Aint lo = 0, hi = 0;
    bool in;

    tg->rank = rank;
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->c->size) {
        return mpi_err(w->c, call, MPI_ERR_RANK, "%s: target rank %d is not in the window (%d)",
                       call, rank, w->c->size);
    }
    if (disp < 0 || count < 0) {
        return mpi_err(w->c, call, disp < 0 ? MPI_ERR_DISP : MPI_ERR_COUNT,
                       "%s: negative target %s", call, disp < 0 ? "displacement" : "count");
    }
    tg->dt = dt;
    if ((tg->t = mpi_type_get(dt)) == NULL) {
        return mpi_err(w->c, call, MPI_ERR_TYPE, "%s: invalid target datatype", call);
    }
    tg->count = (size_t)count;
    tg->contig = mpi_type_is_contig(tg->t);
    tg->lb = mpi_type_true_lb(tg->t);
    in = rma_span(w, rank, disp, tg, &lo, &hi);
    if (in && tg->bytes > 0 && w->flavor == MPI_WIN_FLAVOR_DYNAMIC) { /* disp: an address */
        return rma_dyn_range(w, call, rank, lo, hi);
    }
    if (!in || (tg->bytes > 0 && (lo < 0 || hi > (MPI_Aint)w->sizes[rank]))) {
        return rma_range_err(w, call, rank, disp, count, !in, lo, hi);
    }
    return MPI_SUCCESS;
}

/* After the arguments' checks (MPICH's order): an access epoch open on rank (checked). */
static int rma_epoch(mpi_win_t *w, const char *call, int rank)
{
    if (mpi_win_access(w, rank)) {
        return MPI_SUCCESS;
    }
    return mpi_err(w->c, call, MPI_ERR_RMA_SYNC,
                   "%s: no access epoch on rank %d (MPI_Win_fence, MPI_Win_start, MPI_Win_lock "
                   "or MPI_Win_lock_all opens one)",
                   call, rank);
}

/* A put's or get's origin and target of as many bytes, one side only MPI_BYTE: raw bytes,
 * taken as MPICH and Open MPI take them (they compare no signatures; mpi4py puts a bytes
 * object, MPI_UNSIGNED_CHAR, to a target of MPI_BYTE). Not for accumulates: their operation
 * needs the elements' type on both sides. */
static bool rma_raw_bytes(const mpi_type_t *t, size_t count, const mpi_win_target_t *tg)
{
    return mpi_type_size(t) * count == tg->bytes &&
           (mpi_type_basic_of(t) == MPI_BYTE || mpi_type_basic_of(tg->t) == MPI_BYTE);
}

/* The origin (or result) buffer as packed bytes: the buffer itself when contiguous, else a
 * temporary (packed from it unless for_get) kept in w->tmps until settled. Its type signature
 * must be the target's (a put's or get's may be raw bytes: rma_raw_bytes). */
static int rma_origin(mpi_win_t *w, const char *call, const void *addr, MPI_Count count,
                      MPI_Datatype dt, const mpi_win_target_t *tg, bool for_get, bool raw, void **p)
{
    bool same = dt == tg->dt; /* (the common case: looked up once) */
    mpi_type_t *t = same ? tg->t : mpi_type_get(dt);
    size_t bytes = tg->bytes;
    mpi_win_tmp_t *tmp;

    if (t == NULL || count < 0 ||
        ((t != tg->t || (size_t)count != tg->count) &&
         !mpi_type_sig_equal(t, (size_t)count, tg->t, tg->count) &&
         !(raw && rma_raw_bytes(t, (size_t)count, tg)))) {
        return mpi_err(w->c, call,
                       t == NULL   ? MPI_ERR_TYPE
                       : count < 0 ? MPI_ERR_COUNT
                                   : MPI_ERR_TYPE,
                       "%s: %s", call,
                       t == NULL   ? "invalid origin datatype"
                       : count < 0 ? "negative origin count"
                                   : "the origin and target type signatures differ (other "
                                     "predefined types, or another number of them)");
    }
    if (same ? tg->contig : mpi_type_is_contig(t)) {
        *p = (char *)(uintptr_t)addr + (same ? tg->lb : mpi_type_true_lb(t));
        return MPI_SUCCESS;
    }
    tmp = calloc(1, sizeof(*tmp));
    if (tmp == NULL || (tmp->tmp = malloc(bytes > 0 ? bytes : 1)) == NULL) {
        free(tmp);
        return mpi_err(w->c, call, MPI_ERR_NO_MEM, "%s: out of memory", call);
    }
    if (!for_get) {
        mpi_type_pack(t, addr, (size_t)count, tmp->tmp);
    } else {
        mpi_type_retain(t);
        tmp->t = t;
        tmp->count = (size_t)count;
        tmp->dest = (void *)(uintptr_t)addr;
    }
    tmp->target = tg->rank;
    tmp->next = w->tmps;
    w->tmps = tmp;
    *p = tmp->tmp;
    return MPI_SUCCESS;
}

/* An rcmsg status of an operation: an access it refused is outside the window. */
static int rma_status(mpi_win_t *w, const char *call, rcmsg_status_t s)
{
    if (s == RCMSG_ERR_INVALID_PARAM) {
        return mpi_err(w->c, call, mpi_err_code(MPI_ERR_RMA_RANGE, s),
                       "%s: the target memory is outside the target's window", call);
    }
    return mpi_win_status(w, call, s);
}

static int rma_rw(const char *call, void *addr, MPI_Count count, MPI_Datatype dt, int rank,
                  MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, bool get)
{
    mpi_win_target_t tg;
    mpi_win_t *w;
    void *p;
    int err;

    if ((w = mpi_win_enter(win, call, &err)) == NULL ||
        (err = rma_target(w, call, rank, disp, tcount, tdt, &tg)) != MPI_SUCCESS ||
        tg.rank == MPI_PROC_NULL) {
        return err;
    }
    if ((err = rma_epoch(w, call, rank)) != MPI_SUCCESS ||
        (err = rma_origin(w, call, addr, count, dt, &tg, get, true, &p)) != MPI_SUCCESS) {
        return err;
    }
    if (tg.contig) { /* (the common case without a call more) */
        return rma_status(w, call,
                          get ? rcmsg_get(p, tg.bytes, rank, tg.disp + (size_t)tg.lb, w->data)
                              : rcmsg_put(p, tg.bytes, rank, tg.disp + (size_t)tg.lb, w->data));
    }
    return rma_status(w, call, mpi_win_xfer_rw(w, &tg, p, get));
}

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_rw("MPI_Put", (void *)(uintptr_t)origin_addr, origin_count, origin_datatype,
                  target_rank, target_disp, target_count, target_datatype, win, false);
}

int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_rw("MPI_Put_c", (void *)(uintptr_t)origin_addr, origin_count, origin_datatype,
                  target_rank, target_disp, target_count, target_datatype, win, false);
}
MPI_PMPI_ALIAS(Put_c, (const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_rw("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win, true);
}

int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_rw("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win, true);
}
MPI_PMPI_ALIAS(Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       MPI_Datatype target_datatype, MPI_Win win));

/* How an accumulate of op on the target's type goes: by rcmsg's accumulates (*rop on *rdt),
 * or (*basic_p not MPI_DATATYPE_NULL) under the target's mutex, on a type rcmsg has no element
 * for. MPI-3.1 11.3.4: op predefined, MPI_REPLACE or MPI_NO_OP; the target's type made of one
 * predefined type, on which op is defined. */
static int rma_acc_op(mpi_win_t *w, const char *call, MPI_Op op, const mpi_win_target_t *tg,
                      rcmsg_op_t *rop, rcmsg_datatype_t *rdt, MPI_Datatype *basic_p)
{
    MPI_Datatype basic = mpi_type_basic_of(tg->t);
    char why[160];
    bool ok = false;

    *basic_p = MPI_DATATYPE_NULL;
    if (basic == MPI_DATATYPE_NULL) {
        return mpi_err(w->c, call, MPI_ERR_TYPE,
                       "%s: the target datatype must be made of one predefined type", call);
    }
    if (op != MPI_REPLACE && op != MPI_NO_OP &&
        (!mpi_op_predefined(op) || mpi_op_defined(op, basic, why, sizeof(why)) != MPI_SUCCESS)) {
        return mpi_err(w->c, call, MPI_ERR_OP, "%s: %s", call,
                       mpi_op_predefined(op) ? why
                                             : "the operation must be predefined, MPI_REPLACE "
                                               "or MPI_NO_OP");
    }
    *rdt = mpi_type_rcmsg(mpi_type_get(basic), &ok);
    if (ok && (op == MPI_REPLACE || op == MPI_NO_OP)) {
        *rop = op == MPI_REPLACE ? RCMSG_OP_REPLACE : RCMSG_OP_NO_OP;
    } else if (!ok || !mpi_op_rcmsg(op, basic, rop, rdt)) {
        *basic_p = basic; /* pair types, long double, complex */
    }
    return MPI_SUCCESS;
}

/* Accumulate, or (fetch) Get_accumulate. */
static int rma_acc(const char *call, const void *oaddr, MPI_Count ocount, MPI_Datatype odt,
                   bool fetch, void *raddr, MPI_Count rcount, MPI_Datatype rdt_mpi, int rank,
                   MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    mpi_win_target_t tg;
    mpi_win_t *w;
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    MPI_Datatype basic;
    void *p = NULL, *r = NULL;
    int err;

    if ((w = mpi_win_enter(win, call, &err)) == NULL ||
        (err = rma_target(w, call, rank, disp, tcount, tdt, &tg)) != MPI_SUCCESS ||
        tg.rank == MPI_PROC_NULL || tg.bytes == 0 ||
        (err = rma_acc_op(w, call, op, &tg, &rop, &rdt, &basic)) != MPI_SUCCESS ||
        (err = rma_epoch(w, call, rank)) != MPI_SUCCESS) {
        return err;
    }
    if (op != MPI_NO_OP &&
        (err = rma_origin(w, call, oaddr, ocount, odt, &tg, false, false, &p)) != MPI_SUCCESS) {
        return err;
    }
    if (fetch && raddr == NULL) {
        return mpi_err(w->c, call, MPI_ERR_BUFFER, "%s: result_addr is NULL", call);
    }
    if (fetch &&
        (err = rma_origin(w, call, raddr, rcount, rdt_mpi, &tg, true, false, &r)) != MPI_SUCCESS) {
        return err;
    }
    return rma_status(w, call,
                      basic != MPI_DATATYPE_NULL ? mpi_win_xfer_acc_locked(w, &tg, p, r, op, basic)
                                                 : mpi_win_xfer_acc(w, &tg, p, r, rdt, rop));
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, false, NULL, 0,
                   MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op,
                   win);
}

int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_acc("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, false, NULL, 0,
                   MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype, op,
                   win);
}
MPI_PMPI_ALIAS(Accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Get_accumulate";

    return rma_acc(call, origin_addr, origin_count, origin_datatype, true, result_addr,
                   result_count, result_datatype, target_rank, target_disp, target_count,
                   target_datatype, op, win);
}

int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Get_accumulate_c";

    return rma_acc(call, origin_addr, origin_count, origin_datatype, true, result_addr,
                   result_count, result_datatype, target_rank, target_disp, target_count,
                   target_datatype, op, win);
}
MPI_PMPI_ALIAS(Get_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    MPI_MT_GUARD();
    return rma_acc("MPI_Fetch_and_op", origin_addr, 1, datatype, true, result_addr, 1, datatype,
                   target_rank, target_disp, 1, datatype, op, win);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Compare_and_swap";
    mpi_win_target_t tg;
    mpi_win_t *w;
    mpi_type_t *t;
    rcmsg_datatype_t rdt;
    bool ok = false;
    int err;

    if ((w = mpi_win_enter(win, call, &err)) == NULL ||
        (err = rma_target(w, call, target_rank, target_disp, 1, datatype, &tg)) != MPI_SUCCESS ||
        tg.rank == MPI_PROC_NULL) {
        return err;
    }
    t = mpi_type_get(datatype);
    rdt = mpi_type_rcmsg(t, &ok);
    if (!ok || rcmsg_datatype_size(rdt) != tg.bytes || rdt == RCMSG_FLOAT || rdt == RCMSG_DOUBLE) {
        return mpi_err(w->c, call, MPI_ERR_TYPE,
                       "%s: the datatype must be one predefined integer type", call);
    }
    if (origin_addr == NULL || compare_addr == NULL || result_addr == NULL) {
        return mpi_err(w->c, call, MPI_ERR_BUFFER, "%s: a buffer is NULL", call);
    }
    if ((err = rma_epoch(w, call, target_rank)) != MPI_SUCCESS) {
        return err;
    }
    return rma_status(w, call,
                      rcmsg_acc_compare_swap(compare_addr, origin_addr, result_addr, rdt,
                                             target_rank, tg.disp + (size_t)tg.lb, w->data));
}

/* ---- request-based operations (MPI-3.1 11.3.5) ----------------------------------------------
 * Only inside a passive-target epoch on the target (Win_lock or Win_lock_all; otherwise
 * MPI_ERR_RMA_SYNC). The operation is flushed to its target before the call returns, so its
 * request is complete at once (a nonblocking call may complete early): Wait and Test only
 * release it; the origin buffer may be reused and a get's result read after either. */
static mpi_win_t *rma_req_enter(MPI_Win win, const char *call, int rank, MPI_Request *request,
                                int *err_p)
{
    mpi_win_t *w;

    if (request != NULL) {
        *request = MPI_REQUEST_NULL; /* what a failed call leaves */
    }
    w = mpi_win_enter(win, call, err_p);
    if (w != NULL && request == NULL) {
        *err_p = mpi_err(w->c, call, MPI_ERR_ARG, "request is NULL");
        return NULL;
    }
    if (w != NULL && rank >= 0 && rank < w->c->size && w->lock_state[rank] == 0) {
        *err_p = mpi_err(w->c, call, MPI_ERR_RMA_SYNC,
                         "no passive-target epoch on rank %d (Win_lock or Win_lock_all)", rank);
        return NULL;
    }
    return w;
}

/* the operation's outcome err; when issued: flushed to rank, and a complete request */
static int rma_req_done(mpi_win_t *w, const char *call, int rank, int err, MPI_Request *request)
{
    mpi_req_t *r;
    MPI_Status st;

    if (err == MPI_SUCCESS && rank != MPI_PROC_NULL) {
        rcmsg_status_t s = rcmsg_win_flush(rank, w->data);

        mpi_win_settle(w, rank);
        err = rma_status(w, call, s);
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    if ((r = mpi_req_new(w->c, &mpi_req_done_ops, &err)) == NULL) {
        return mpi_err(w->c, call, err, "out of requests");
    }
    mpi_status_empty(&st);
    mpi_req_set_done(r, &st);
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rput";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_rw(call, (void *)(uintptr_t)origin_addr, origin_count, origin_datatype,
                     target_rank, target_disp, target_count, target_datatype, win, false);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}

int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rput_c";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_rw(call, (void *)(uintptr_t)origin_addr, origin_count, origin_datatype,
                     target_rank, target_disp, target_count, target_datatype, win, false);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}
MPI_PMPI_ALIAS(Rput_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rget";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_rw(call, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, win, true);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}

int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rget_c";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_rw(call, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                     target_count, target_datatype, win, true);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}
MPI_PMPI_ALIAS(Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Raccumulate";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_acc(call, origin_addr, origin_count, origin_datatype, false, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, win);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}

int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Raccumulate_c";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_acc(call, origin_addr, origin_count, origin_datatype, false, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, win);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}
MPI_PMPI_ALIAS(Raccumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rget_accumulate";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_acc(call, origin_addr, origin_count, origin_datatype, true, result_addr,
                      result_count, result_datatype, target_rank, target_disp, target_count,
                      target_datatype, op, win);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}

int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Rget_accumulate_c";
    int err;
    mpi_win_t *w = rma_req_enter(win, call, target_rank, request, &err);

    if (w != NULL) {
        err = rma_acc(call, origin_addr, origin_count, origin_datatype, true, result_addr,
                      result_count, result_datatype, target_rank, target_disp, target_count,
                      target_datatype, op, win);
    }
    return w == NULL ? err : rma_req_done(w, call, target_rank, err, request);
}
MPI_PMPI_ALIAS(Rget_accumulate_c,
               (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
