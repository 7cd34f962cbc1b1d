/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every argument check of the MPI face, in one file (issue 39 item 5): MPI active,
 * communicators, buffers (count and datatype), ranks, tags, roots, operations, the shapes of
 * the collectives' buffers, intercommunicator arguments, request handles. A check names the
 * call and the problem and raises it through the communicator's error handler (mpi_err), then
 * returns the code; the calls check once, at their entry, and the engines below trust them.
 * The bottom of the objects floor with errors and handles: it calls nothing above them.
 */
#include "mpi/mpi_objects.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

int mpi_state = MPI_STATE_NONE;
bool mpi_mt; /* MPI_THREAD_MULTIPLE granted: MPI_MT_GUARD takes rcmsg's lock */

int mpi_check_active(const char *call)
{
    if (mpi_state == MPI_STATE_NONE) {
        return mpi_err(NULL, call, MPI_ERR_OTHER, "called before MPI_Init");
    }
    return mpi_err(NULL, call, MPI_ERR_OTHER, "called after MPI_Finalize");
}

mpi_comm_t *mpi_comm_check(MPI_Comm comm, const char *call, int *err_p)
{
    mpi_comm_t *c = mpi_handle_get(MPI_KIND_COMM_, comm);

    if (c == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_COMM,
                         comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator"
                                               : "invalid communicator %#x",
                         (unsigned)comm);
    }
    return c;
}

mpi_comm_t *mpi_comm_enter(MPI_Comm comm, const char *call, int *err_p)
{
    if (__builtin_expect(mpi_state != MPI_STATE_ACTIVE, 0)) {
        *err_p = mpi_check_active(call);
        return NULL;
    }
    *err_p = MPI_SUCCESS;
    return mpi_comm_check(comm, call, err_p);
}

/* ---- argument checks --------------------------------------------------------------------- */
int mpi_check_buf(mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                  MPI_Datatype dt, mpi_type_t **t_p)
{
    mpi_type_t *t;

    (void)buf; /* NULL is MPI_BOTTOM: legal with absolute addresses in the datatype */
    if (count < 0) {
        return mpi_err(c, call, MPI_ERR_COUNT, "negative count %lld", count);
    }
    t = mpi_type_lookup(dt);
    if (t == NULL) {
        return mpi_err(c, call, MPI_ERR_TYPE,
                       dt == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype"
                                               : "invalid datatype %#x",
                       (unsigned)dt);
    }
    if (!t->committed) {
        return mpi_err(c, call, MPI_ERR_TYPE, "datatype %#x is not committed", (unsigned)dt);
    }
    if (mpi_type_size(t) > 0 && (uint64_t)count > (uint64_t)(SIZE_MAX / 2) / mpi_type_size(t)) {
        return mpi_err(c, call, MPI_ERR_COUNT,
                       "count %lld of %zu-byte elements: more bytes than a buffer can hold "
                       "(SIZE_MAX / 2)",
                       count, mpi_type_size(t));
    }
    if (t_p != NULL) {
        *t_p = t;
    }
    return MPI_SUCCESS;
}

int mpi_check_p2p_buf(mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                      MPI_Datatype dt, mpi_type_t **t_p)
{
    if (dt == MPI_DATATYPE_NULL && count == 0) {
        *t_p = mpi_type_lookup(MPI_BYTE);
        return MPI_SUCCESS;
    }
    return mpi_check_buf(c, call, buf, count, dt, t_p);
}

int mpi_check_peer(mpi_comm_t *c, const char *call, int peer, bool any_ok)
{
    if ((peer >= 0 && peer < mpi_comm_peers(c)) || peer == MPI_PROC_NULL ||
        (any_ok && peer == MPI_ANY_SOURCE)) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_RANK, "invalid rank %d (communicator %s of %d rank(s))", peer,
                   c->name[0] ? c->name : "(unnamed)", mpi_comm_peers(c));
}

int mpi_check_tag(mpi_comm_t *c, const char *call, int tag, bool any_ok)
{
    if (tag >= 0 || (any_ok && tag == MPI_ANY_TAG)) {
        return MPI_SUCCESS; /* MPI_TAG_UB is INT_MAX */
    }
    return mpi_err(c, call, MPI_ERR_TAG, "invalid tag %d (0 to MPI_TAG_UB %d%s)", tag, INT_MAX,
                   any_ok ? ", or MPI_ANY_TAG" : "");
}

int mpi_type_check(mpi_comm_t *c, const char *call, MPI_Datatype dt, bool need_commit,
                   mpi_type_t **t_p)
{
    mpi_type_t *t = NULL;

    if (dt == MPI_DATATYPE_NULL) {
        return mpi_err(c, call, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    }
    t = mpi_type_lookup(dt);
    if (t == NULL) {
        return mpi_err(c, call, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)dt);
    }
    if (need_commit && !t->committed) {
        return mpi_err(c, call, MPI_ERR_TYPE, "datatype 0x%x is not committed", (unsigned)dt);
    }
    *t_p = t;
    return MPI_SUCCESS;
}

int mpi_inter_check_root(mpi_comm_t *c, const char *call, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size)) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_ROOT,
                   "invalid root %d over an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a "
                   "rank of the remote group of %d)",
                   root, c->remote_size);
}

mpi_comm_t *mpi_inter_of(MPI_Comm comm)
{
    mpi_comm_t *c = mpi_state == MPI_STATE_ACTIVE ? mpi_comm_get(comm) : NULL;

    return c != NULL && c->inter ? c : NULL;
}

int mpi_inter_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count,
                        MPI_Datatype dt, mpi_type_t **t_p)
{
    if (buf == MPI_IN_PLACE) {
        return mpi_err(c, call, MPI_ERR_BUFFER,
                       "MPI_IN_PLACE is not allowed over an intercommunicator");
    }
    return mpi_check_buf(c, call, buf, count, dt, t_p);
}

/* ---- shared by the calls ------------------------------------------------------------------ */
mpi_comm_t *mpi_nbc_args(const char *call, MPI_Comm comm, MPI_Request *request, int *err_p)
{
    mpi_comm_t *c = mpi_comm_check(comm, call, err_p);

    if (c == NULL) {
        return NULL;
    }
    if (request == NULL) {
        *err_p = mpi_err(c, call, MPI_ERR_ARG, "NULL request");
        return NULL;
    }
    *err_p = MPI_SUCCESS;
    return c;
}

int mpi_nbc_check_root(mpi_comm_t *c, const char *call, int root)
{
    if (root >= 0 && root < c->size) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_ROOT, "invalid root %d (communicator of %d rank(s))", root,
                   c->size);
}

/* a buffer that must not be MPI_IN_PLACE here, then its count and type */
int mpi_nbc_check_buf(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt,
                      mpi_type_t **t_p, const char *what)
{
    if (buf == MPI_IN_PLACE) {
        return mpi_err(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as %s here", what);
    }
    return mpi_check_buf(c, call, buf, count, dt, t_p);
}

/* NULL (no request) or not active (persistent, not started): completes at once, empty */
void *mpi_check_request(MPI_Request h, const char *call, int *err_p)
{
    void *r;

    *err_p = MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL) {
        return NULL;
    }
    r = mpi_handle_get(MPI_KIND_REQUEST_, h);
    if (r == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_REQUEST,
                         "invalid request %#x (completed "
                         "already, or never made)",
                         (unsigned)h);
    }
    return r;
}

/* Looks every handle up: an invalid one is raised (returns its code), NULL entries are fine */
int mpi_check_requests(int count, const MPI_Request reqs[], const char *call)
{
    int err = MPI_SUCCESS;

    if (count < 0 || (count > 0 && reqs == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s", count < 0 ? "negative count" : "NULL array");
    }
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        (void)mpi_check_request(reqs[i], call, &err);
    }
    return err;
}

/* ---- the blocking collectives' arguments (coll_args_t) ------------------------------------ */
static int coll_check_root(mpi_comm_t *c, const char *call, int root)
{
    if (root >= 0 && root < c->size) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_ROOT, "invalid root %d (communicator of %d rank(s))", root,
                   c->size);
}

int coll_check_counts(mpi_comm_t *c, const char *call, const int *counts, const int *displs,
                      const char *what)
{
    int n = mpi_comm_peers(c);

    if (counts == NULL || displs == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL %s counts or displacements", what);
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) {
            return mpi_err(c, call, MPI_ERR_COUNT, "negative %s count %d for %srank %d", what,
                           counts[i], c->inter ? "remote " : "", i);
        }
    }
    return MPI_SUCCESS;
}

/* buf may be MPI_IN_PLACE only when in_place_ok (then nothing else is checked) */
static int coll_check_side(mpi_comm_t *c, const char *call, const coll_side_t *s, const char *what,
                           bool in_place_ok, mpi_type_t **t_p)
{
    int err;

    if (s->v && (err = coll_check_counts(c, call, s->counts, s->displs, what)) != MPI_SUCCESS) {
        return err;
    }
    if (s->buf == MPI_IN_PLACE) {
        *t_p = NULL;
        return in_place_ok ? MPI_SUCCESS
                           : mpi_err(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    }
    return mpi_check_buf(c, call, s->buf, s->v ? 0 : s->count, s->dt, t_p);
}

/* ---- aliased buffers ---------------------------------------------------------------------- */
int mpi_check_alias(mpi_comm_t *c, const char *call, const void *sendbuf, const void *recvbuf)
{
    if (sendbuf != recvbuf || sendbuf == MPI_IN_PLACE || sendbuf == MPI_BOTTOM) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_BUFFER,
                   "the send and receive buffers are the same (%p): they must not overlap "
                   "(MPI_IN_PLACE reuses one buffer)",
                   sendbuf);
}

/* Both buffers used here (not MPI_IN_PLACE), both moving data: the one-block buffer must not
 * start where this rank's own block of the n-block one does (a->blocks; else its start). */
static int coll_check_alias(mpi_comm_t *c, const char *call, const coll_args_t *a)
{
    bool scatter = a->shape == COLL_FROM_ROOT;
    const coll_side_t *n = scatter ? &a->send : &a->recv, *one = scatter ? &a->recv : &a->send;
    mpi_type_t *nt = scatter ? a->st : a->rt;
    int own = a->shape == COLL_ALL ? c->rank : a->root;
    uintptr_t at = (uintptr_t)n->buf;

    if (a->st == NULL || a->rt == NULL || one->count == 0 ||
        (n->v ? n->counts[own] : n->count) == 0) {
        return MPI_SUCCESS;
    }
    if (a->blocks) {
        at += (uintptr_t)((n->v ? n->displs[own] : (MPI_Aint)own * n->count) * nt->extent);
    }
    return scatter ? mpi_check_alias(c, call, (const void *)at, one->buf)
                   : mpi_check_alias(c, call, one->buf, (const void *)at);
}

/* where a shape uses a buffer, or lets it be MPI_IN_PLACE: nowhere, at the root, everywhere */
enum { COLL_AT_NONE, COLL_AT_ROOT, COLL_AT_ALL };
static const struct {
    unsigned char send, send_in_place, recv, recv_in_place;
} coll_shapes[] = {
    [COLL_ALL] = {COLL_AT_ALL, COLL_AT_ALL, COLL_AT_ALL, COLL_AT_NONE},
    [COLL_TO_ROOT] = {COLL_AT_ALL, COLL_AT_ROOT, COLL_AT_ROOT, COLL_AT_NONE},
    [COLL_FROM_ROOT] = {COLL_AT_ROOT, COLL_AT_NONE, COLL_AT_ALL, COLL_AT_ROOT},
    [COLL_BCAST] = {COLL_AT_NONE, COLL_AT_NONE, COLL_AT_ALL, COLL_AT_NONE},
};

static bool coll_at(int at, bool is_root)
{
    return at == COLL_AT_ALL || (at == COLL_AT_ROOT && is_root);
}

int coll_check(mpi_comm_t *c, const char *call, coll_args_t *a)
{
    bool rooted = a->shape != COLL_ALL,
         is_root = rooted && (mpi_coll_sides_of(c, a->root) & COLL_SIDE_ROOT);
    int send = coll_shapes[a->shape].send, send_ip = coll_shapes[a->shape].send_in_place;
    int recv = coll_shapes[a->shape].recv, recv_ip = coll_shapes[a->shape].recv_in_place;
    int err = MPI_SUCCESS;

    a->st = a->rt = NULL;
    if ((rooted && (err = coll_check_root(c, call, a->root)) != MPI_SUCCESS) ||
        (a->reduce && (err = mpi_op_check(c, call, a->op, a->recv.dt)) != MPI_SUCCESS)) {
        return err;
    }
    if (coll_at(send, is_root) &&
        (err = coll_check_side(c, call, &a->send, "send", coll_at(send_ip, is_root), &a->st)) !=
            MPI_SUCCESS) {
        return err;
    }
    if (coll_at(recv, is_root)) {
        err = coll_check_side(c, call, &a->recv, "receive", coll_at(recv_ip, is_root), &a->rt);
    }
    return err == MPI_SUCCESS ? coll_check_alias(c, call, a) : err;
}

/* this rank's own blocks of an Alltoallv/w are one (a nonzero count) */
static bool vw_own_aliased(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                           const MPI_Datatype *st, const void *recvbuf, const int *rc,
                           const int *rd, const MPI_Datatype *rt, bool w)
{
    int own = c->rank;

    return sendbuf == recvbuf && sc[own] > 0 && sc[own] == rc[own] && sd[own] == rd[own] &&
           (w ? st[own] == rt[own] : st[0] == rt[0]);
}

int coll_check_vw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                  const int *sd, const void *st, const void *recvbuf, const int *rc, const int *rd,
                  const void *rt, bool w)
{
    int err = MPI_SUCCESS;

    if (sendbuf != MPI_IN_PLACE &&
        ((err = coll_check_counts(c, call, sc, sd, "send")) != MPI_SUCCESS || st == NULL)) {
        return err != MPI_SUCCESS ? err : mpi_err(c, call, MPI_ERR_ARG, "NULL send types");
    }
    if ((err = coll_check_counts(c, call, rc, rd, "receive")) != MPI_SUCCESS || rt == NULL) {
        return err != MPI_SUCCESS ? err : mpi_err(c, call, MPI_ERR_ARG, "NULL receive types");
    }
    if (sendbuf == MPI_IN_PLACE ||
        !vw_own_aliased(c, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, w)) {
        return MPI_SUCCESS;
    }
    return mpi_check_alias(c, call, sendbuf, recvbuf);
}

/* op is live and defined on dt (committed) */
int mpi_op_check(mpi_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt)
{
    mpi_type_t *t = mpi_type_lookup(dt);
    char why[200];
    int err;

    if (!mpi_op_valid(op)) {
        return mpi_err(c, call, MPI_ERR_OP,
                       op == MPI_OP_NULL ? "MPI_OP_NULL is not an operation"
                                         : "invalid operation %#x",
                       (unsigned)op);
    }
    if (t == NULL || !t->committed) {
        return mpi_err(c, call, MPI_ERR_TYPE,
                       t == NULL ? "invalid datatype %#x" : "datatype %#x is not committed",
                       (unsigned)dt);
    }
    err = mpi_op_defined(op, dt, why, sizeof(why));
    return err == MPI_SUCCESS ? MPI_SUCCESS : mpi_err(c, call, err, "%s", why);
}

/* a live user keyval of a call, or NULL with the error raised on c */
int mpi_check_keyval(mpi_comm_t *c, const char *call, int k)
{
    int err = MPI_SUCCESS;

    if (!mpi_keyval_live(k)) {
        err = mpi_err(c, call, MPI_ERR_KEYVAL,
                      k >= MPI_TAG_UB && k <= MPI_LASTUSEDCODE
                          ? "keyval %d is predefined (it cannot be set or deleted)"
                          : "invalid keyval %d",
                      k);
    }
    return err;
}

/* ---- the large-count (_c) collectives' counts, as the int ones their calls take ---------- */
int mpi_count_int(MPI_Comm comm, const char *call, MPI_Count n, bool used, int *out)
{
    if (mpi_state != MPI_STATE_ACTIVE) {
        return mpi_check_active(call);
    }
    if (!used) {
        *out = 0;
        return MPI_SUCCESS;
    }
    if (n < 0 || n > INT_MAX) {
        return mpi_err(mpi_comm_get(comm), call, MPI_ERR_COUNT,
                       n < 0 ? "negative count %lld"
                             : "count %lld: more than this call can carry (INT_MAX, %d)",
                       n, INT_MAX);
    }
    *out = (int)n;
    return MPI_SUCCESS;
}

int mpi_counts_int(MPI_Comm comm, const char *call, bool local, const MPI_Count *counts,
                   const MPI_Aint *displs, mpi_counts_int_t *out)
{
    mpi_comm_t *c;
    int n;

    out->counts = out->displs = out->keep = NULL;
    if (mpi_state != MPI_STATE_ACTIVE) {
        return mpi_check_active(call);
    }
    c = mpi_comm_get(comm);
    n = c == NULL ? 0 : local ? c->size : mpi_comm_peers(c);
    return mpi_counts_int_n(c, call, n, counts, displs, out);
}

int mpi_counts_int_n(mpi_comm_t *c, const char *call, int n, const MPI_Count *counts,
                     const MPI_Aint *displs, mpi_counts_int_t *out)
{
    int *p;

    out->counts = out->displs = out->keep = NULL;
    if (n == 0 || (counts == NULL && displs == NULL)) {
        return MPI_SUCCESS; /* (an invalid communicator, NULL arrays: the int call says so) */
    }
    p = malloc(2 * (size_t)n * sizeof(int));
    if (p == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %d counts", n);
    }
    for (int i = 0; i < n; i++) {
        if (counts != NULL && (counts[i] < 0 || counts[i] > INT_MAX)) {
            free(p);
            return mpi_err(c, call, MPI_ERR_COUNT,
                           counts[i] < 0
                               ? "negative count %lld for rank %d"
                               : "count %lld for rank %d: more than this call can carry (INT_MAX, "
                                 "%d)",
                           counts[i], i, INT_MAX);
        }
        if (displs != NULL && (displs[i] > INT_MAX || displs[i] < INT_MIN)) {
            free(p);
            return mpi_err(c, call, MPI_ERR_ARG,
                           "displacement %lld for rank %d: more than this call can carry "
                           "(INT_MIN to INT_MAX)",
                           (long long)displs[i], i);
        }
        p[i] = counts == NULL ? 0 : (int)counts[i];
        p[n + i] = displs == NULL ? 0 : (int)displs[i];
    }
    out->keep = p;
    out->counts = counts == NULL ? NULL : p;
    out->displs = displs == NULL ? NULL : p + n;
    return MPI_SUCCESS;
}

unsigned mpi_coll_sides_of(const mpi_comm_t *c, int root)
{
    if (!c->inter) {
        return root == c->rank ? COLL_SIDE_ROOT | COLL_SIDE_LEAF : COLL_SIDE_LEAF;
    }
    return root == MPI_ROOT ? COLL_SIDE_ROOT : root >= 0 ? COLL_SIDE_LEAF : 0;
}

int mpi_coll_sides(MPI_Comm comm, const char *call, int root, unsigned *sides)
{
    mpi_comm_t *c;
    int err;

    if (mpi_state != MPI_STATE_ACTIVE) {
        return mpi_check_active(call);
    }
    *sides = COLL_SIDE_LEAF;
    if ((c = mpi_comm_get(comm)) == NULL) {
        return MPI_SUCCESS; /* (the int call names the invalid communicator) */
    }
    err = c->inter ? mpi_inter_check_root(c, call, root) : coll_check_root(c, call, root);
    if (err == MPI_SUCCESS) {
        *sides = mpi_coll_sides_of(c, root);
    }
    return err;
}
