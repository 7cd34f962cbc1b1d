/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_BOTTOM with datatypes of absolute addresses in every call that takes a buffer (issue 38
 * item 6), data checked, the block a rank sends to itself included: point-to-point (blocking,
 * nonblocking, synchronous, ready, buffered, persistent, Sendrecv, Sendrecv_replace, Mrecv),
 * Pack/Unpack, Reduce_local, the blocking collectives with their v/w variants, the
 * nonblocking ones, and the collectives over an intercommunicator (2 ranks or more). Every
 * call runs with two kinds of element: noncontiguous (two ints of a struct with a gap between them)
 * and contiguous (one int: the layer's zero-copy path, at MPI_BOTTOM + the type's absolute lower
 * bound). Prints "ok: <phase>" (rank 0) and "rank R of N: F failure(s)".
 */
#include "mpi_test.h"

#include <stdint.h>
#include <stdlib.h>

#define NB 8 /* elements of a buffer: at least the number of ranks */

typedef struct {
    int i, gap, j;
} trio_t;

/* A buffer of NB elements: kind 0, trios (the element is i and j); kind 1, ints. */
typedef struct {
    int kind;
    trio_t t[NB];
    int v[NB];
} buf_t;

static int next, prev;

static int val(int from, int k)
{
    return from * 1000 + k + 1;
}

static MPI_Aint addr(const void *p)
{
    MPI_Aint a;

    MPI_Get_address(p, &a);
    return a;
}

/* The committed type of element k of b at its absolute address, with the extent of one element
 * (so element m of a count of them is b's element k + m). */
static MPI_Datatype abs_type(buf_t *b, int k)
{
    MPI_Datatype s, r;

    if (b->kind == 0) {
        MPI_Aint d[2] = {addr(&b->t[k].i), addr(&b->t[k].j)};

        OK(MPI_Type_create_struct(2, (const int[]){1, 1}, d,
                                  (const MPI_Datatype[]){MPI_INT, MPI_INT}, &s));
        OK(MPI_Type_create_resized(s, addr(&b->t[k]), sizeof(trio_t), &r));
        OK(MPI_Type_free(&s));
    } else {
        MPI_Aint d = addr(&b->v[k]);

        OK(MPI_Type_create_struct(1, (const int[]){1}, &d, (const MPI_Datatype[]){MPI_INT}, &r));
    }
    OK(MPI_Type_commit(&r));
    return r;
}

static void set(buf_t *b, int k, int x)
{
    b->t[k] = (trio_t){x, -7, 2 * x}; /* linear: sums keep it */
    b->v[k] = x;
}

static void clear(buf_t *b, int kind)
{
    b->kind = kind;
    for (int k = 0; k < NB; k++) {
        b->t[k] = (trio_t){-1, -7, -1};
        b->v[k] = -1;
    }
}

static void fill(buf_t *b, int kind, int from)
{
    b->kind = kind;
    for (int k = 0; k < NB; k++) {
        set(b, k, val(from, k));
    }
}

/* element k of b holds x (and a trio's gap is untouched) */
static void expect(const buf_t *b, int k, int x, const char *what)
{
    if (b->kind == 0) {
        CHECK(b->t[k].i == x && b->t[k].j == 2 * x && b->t[k].gap == -7,
              "%s (noncontiguous): element %d is {%d, %d, %d}, want %d", what, k, b->t[k].i,
              b->t[k].gap, b->t[k].j, x);
    } else {
        CHECK(b->v[k] == x, "%s (contiguous): element %d is %d, want %d", what, k, b->v[k], x);
    }
}

/* ---- point-to-point ---------------------------------------------------------------------- */

static void p2p_kind(int kind)
{
    static buf_t s, r;
    MPI_Datatype st, rt;
    MPI_Request req[2];
    MPI_Status stat;
    MPI_Message msg;
    char bsbuf[4096];
    void *det;
    int n, pos = 0, psize;

    fill(&s, kind, me);
    clear(&r, kind);
    st = abs_type(&s, 0);
    rt = abs_type(&r, 0);

    OK(MPI_Irecv(MPI_BOTTOM, NB, rt, prev, 1, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Send(MPI_BOTTOM, NB, st, next, 1, MPI_COMM_WORLD));
    OK(MPI_Wait(&req[0], &stat));
    OK(MPI_Get_count(&stat, rt, &n));
    CHECK(n == NB, "Get_count %d", n);
    for (int k = 0; k < NB; k++) {
        expect(&r, k, val(prev, k), "Send/Irecv");
    }

    clear(&r, kind);
    OK(MPI_Isend(MPI_BOTTOM, NB, st, next, 2, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Recv(MPI_BOTTOM, NB, rt, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    expect(&r, NB - 1, val(prev, NB - 1), "Isend/Recv");

    clear(&r, kind);
    OK(MPI_Irecv(MPI_BOTTOM, NB, rt, prev, 3, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Issend(MPI_BOTTOM, NB, st, next, 3, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    expect(&r, 3, val(prev, 3), "Issend");

    clear(&r, kind);
    OK(MPI_Irecv(MPI_BOTTOM, NB, rt, prev, 4, MPI_COMM_WORLD, &req[0]));
    test_barrier(MPI_COMM_WORLD); /* every receive posted before the ready sends */
    OK(MPI_Rsend(MPI_BOTTOM, NB, st, next, 4, MPI_COMM_WORLD));
    OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    expect(&r, 5, val(prev, 5), "Rsend");

    clear(&r, kind);
    OK(MPI_Buffer_attach(bsbuf, sizeof(bsbuf)));
    OK(MPI_Bsend(MPI_BOTTOM, NB, st, next, 5, MPI_COMM_WORLD));
    OK(MPI_Recv(MPI_BOTTOM, NB, rt, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Buffer_detach(&det, &n));
    expect(&r, 1, val(prev, 1), "Bsend");

    OK(MPI_Recv_init(MPI_BOTTOM, NB, rt, prev, 6, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Send_init(MPI_BOTTOM, NB, st, next, 6, MPI_COMM_WORLD, &req[1]));
    for (int round = 0; round < 2; round++) {
        clear(&r, kind);
        fill(&s, kind, me + 10 * round);
        OK(MPI_Startall(2, req));
        OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        expect(&r, 2, val(prev + 10 * round, 2), "Send_init/Recv_init");
    }
    OK(MPI_Request_free(&req[0]));
    OK(MPI_Request_free(&req[1]));
    fill(&s, kind, me);

    clear(&r, kind);
    OK(MPI_Sendrecv(MPI_BOTTOM, NB, st, next, 7, MPI_BOTTOM, NB, rt, prev, 7, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    expect(&r, 6, val(prev, 6), "Sendrecv");

    OK(MPI_Sendrecv_replace(MPI_BOTTOM, NB, st, next, 8, prev, 8, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    expect(&s, 4, val(prev, 4), "Sendrecv_replace");
    fill(&s, kind, me);

    clear(&r, kind);
    OK(MPI_Isend(MPI_BOTTOM, NB, st, next, 9, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Mprobe(prev, 9, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE));
    OK(MPI_Mrecv(MPI_BOTTOM, NB, rt, &msg, MPI_STATUS_IGNORE));
    OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
    expect(&r, 7, val(prev, 7), "Mrecv");

    /* to itself */
    clear(&r, kind);
    OK(MPI_Sendrecv(MPI_BOTTOM, NB, st, me, 10, MPI_BOTTOM, NB, rt, me, 10, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    expect(&r, 0, val(me, 0), "Sendrecv to itself");

    /* Pack and Unpack */
    {
        char packed[NB * 2 * sizeof(int)];

        clear(&r, kind);
        OK(MPI_Pack_size(NB, st, MPI_COMM_WORLD, &psize));
        OK(MPI_Pack(MPI_BOTTOM, NB, st, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
        CHECK(pos == psize, "Pack wrote %d bytes, Pack_size %d", pos, psize);
        pos = 0;
        OK(MPI_Unpack(packed, psize, &pos, MPI_BOTTOM, NB, rt, MPI_COMM_WORLD));
        expect(&r, NB - 1, val(me, NB - 1), "Pack/Unpack");
    }
    OK(MPI_Type_free(&st));
    OK(MPI_Type_free(&rt));
}

/* ---- collectives ------------------------------------------------------------------------- */

typedef struct {
    buf_t s, r;
    MPI_Datatype st, rt;         /* all NB elements */
    MPI_Datatype sw[NB], rw[NB]; /* element k alone (the w variants) */
    int ones[NB], idx[NB], zeros[NB];
} coll_t;

static void coll_setup(coll_t *c, int kind, int from)
{
    fill(&c->s, kind, from);
    clear(&c->r, kind);
    c->st = abs_type(&c->s, 0);
    c->rt = abs_type(&c->r, 0);
    for (int k = 0; k < NB; k++) {
        c->sw[k] = abs_type(&c->s, k);
        c->rw[k] = abs_type(&c->r, k);
        c->ones[k] = 1;
        c->idx[k] = k;
        c->zeros[k] = 0;
    }
}

static void coll_reset(coll_t *c, int kind, int from)
{
    fill(&c->s, kind, from);
    clear(&c->r, kind);
}

static void coll_free(coll_t *c)
{
    OK(MPI_Type_free(&c->st));
    OK(MPI_Type_free(&c->rt));
    for (int k = 0; k < NB; k++) {
        OK(MPI_Type_free(&c->sw[k]));
        OK(MPI_Type_free(&c->rw[k]));
    }
}

static int sum_over_ranks(int n, int k)
{
    int s = 0;

    for (int r = 0; r < n; r++) {
        s += val(r, k);
    }
    return s;
}

/* the exchanges: rank r's element me goes to rank me's element r (every block, its own too) */
static void coll_moves(coll_t *c, int kind, MPI_Comm comm, int n, int rank)
{
    int root = n - 1;

    coll_reset(c, kind, rank);
    OK(MPI_Alltoallw(MPI_BOTTOM, c->ones, c->zeros, c->sw, MPI_BOTTOM, c->ones, c->zeros, c->rw,
                     comm));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, rank), "Alltoallw");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Alltoall(MPI_BOTTOM, 1, c->st, MPI_BOTTOM, 1, c->rt, comm));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, rank), "Alltoall");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Alltoallv(MPI_BOTTOM, c->ones, c->idx, c->st, MPI_BOTTOM, c->ones, c->idx, c->rt, comm));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, rank), "Alltoallv");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Allgather(MPI_BOTTOM, 1, c->sw[2], MPI_BOTTOM, 1, c->rt, comm));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, 2), "Allgather");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Allgatherv(MPI_BOTTOM, 1, c->sw[3], MPI_BOTTOM, c->ones, c->idx, c->rt, comm));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, 3), "Allgatherv");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Gather(MPI_BOTTOM, 1, c->sw[1], MPI_BOTTOM, 1, c->rt, root, comm));
    for (int r = 0; rank == root && r < n; r++) {
        expect(&c->r, r, val(r, 1), "Gather");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Gatherv(MPI_BOTTOM, 1, c->sw[4], MPI_BOTTOM, c->ones, c->idx, c->rt, root, comm));
    for (int r = 0; rank == root && r < n; r++) {
        expect(&c->r, r, val(r, 4), "Gatherv");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Scatter(MPI_BOTTOM, 1, c->st, MPI_BOTTOM, 1, c->rw[5], root, comm));
    expect(&c->r, 5, val(root, rank), "Scatter");
    coll_reset(c, kind, rank);
    OK(MPI_Scatterv(MPI_BOTTOM, c->ones, c->idx, c->st, MPI_BOTTOM, 1, c->rw[6], root, comm));
    expect(&c->r, 6, val(root, rank), "Scatterv");
    coll_reset(c, kind, rank);
    OK(MPI_Bcast(MPI_BOTTOM, NB, rank == root ? c->st : c->rt, root, comm));
    expect(rank == root ? &c->s : &c->r, NB - 1, val(root, NB - 1), "Bcast");
}

/* The reductions take one type for both buffers: the input at MPI_BOTTOM (st, absolute), the
 * result at MPI_BOTTOM + (r - s) with the same type (or in place at MPI_BOTTOM). MPI_SUM of
 * ints: both kinds of element are ints. */
static void *r_of(coll_t *c)
{
    return (void *)(uintptr_t)(addr(&c->r) - addr(&c->s));
}

static int scan_sum(int upto, int k)
{
    return upto > 0 ? sum_over_ranks(upto, k) : 0;
}

static void coll_reductions(coll_t *c, int kind, MPI_Comm comm, int n, int rank)
{
    int root = n - 1;

    coll_reset(c, kind, rank);
    OK(MPI_Allreduce(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, comm));
    for (int k = 0; k < NB; k++) {
        expect(&c->r, k, sum_over_ranks(n, k), "Allreduce");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, NB, c->st, MPI_SUM, comm));
    expect(&c->s, 3, sum_over_ranks(n, 3), "Allreduce in place");
    coll_reset(c, kind, rank);
    OK(MPI_Reduce(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, root, comm));
    for (int k = 0; rank == root && k < NB; k++) {
        expect(&c->r, k, sum_over_ranks(n, k), "Reduce");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Reduce_scatter_block(MPI_BOTTOM, r_of(c), 1, c->st, MPI_SUM, comm));
    expect(&c->r, 0, sum_over_ranks(n, rank), "Reduce_scatter_block");
    coll_reset(c, kind, rank);
    OK(MPI_Reduce_scatter(MPI_BOTTOM, r_of(c), c->ones, c->st, MPI_SUM, comm));
    expect(&c->r, 0, sum_over_ranks(n, rank), "Reduce_scatter");
    fill(&c->s, kind, rank);
    fill(&c->r, kind, rank);
    OK(MPI_Reduce_local(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM));
    expect(&c->r, NB - 1, 2 * val(rank, NB - 1), "Reduce_local");
    coll_reset(c, kind, rank);
    OK(MPI_Scan(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, comm));
    expect(&c->r, 2, scan_sum(rank + 1, 2), "Scan");
    coll_reset(c, kind, rank);
    OK(MPI_Exscan(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, comm));
    if (rank > 0) {
        expect(&c->r, 5, scan_sum(rank, 5), "Exscan");
    }
}

/* the nonblocking collectives (as the blocking ones; each waited for at once) */
static void coll_nonblocking(coll_t *c, int kind, MPI_Comm comm, int n, int rank)
{
    int root = n - 1;
    MPI_Request q;

    coll_reset(c, kind, rank);
    OK(MPI_Ialltoall(MPI_BOTTOM, 1, c->st, MPI_BOTTOM, 1, c->rt, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, rank), "Ialltoall");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Iallgather(MPI_BOTTOM, 1, c->sw[2], MPI_BOTTOM, 1, c->rt, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int r = 0; r < n; r++) {
        expect(&c->r, r, val(r, 2), "Iallgather");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Igather(MPI_BOTTOM, 1, c->sw[1], MPI_BOTTOM, 1, c->rt, root, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int r = 0; rank == root && r < n; r++) {
        expect(&c->r, r, val(r, 1), "Igather");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Iscatter(MPI_BOTTOM, 1, c->st, MPI_BOTTOM, 1, c->rw[5], root, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    expect(&c->r, 5, val(root, rank), "Iscatter");
    coll_reset(c, kind, rank);
    OK(MPI_Ibcast(MPI_BOTTOM, NB, rank == root ? c->st : c->rt, root, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    expect(rank == root ? &c->s : &c->r, 4, val(root, 4), "Ibcast");
    coll_reset(c, kind, rank);
    OK(MPI_Iallreduce(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    expect(&c->r, 1, sum_over_ranks(n, 1), "Iallreduce");
    coll_reset(c, kind, rank);
    OK(MPI_Ireduce(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, root, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (rank == root) {
        expect(&c->r, 6, sum_over_ranks(n, 6), "Ireduce");
    }
    coll_reset(c, kind, rank);
    OK(MPI_Ireduce_scatter_block(MPI_BOTTOM, r_of(c), 1, c->st, MPI_SUM, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    expect(&c->r, 0, sum_over_ranks(n, rank), "Ireduce_scatter_block");
    coll_reset(c, kind, rank);
    OK(MPI_Iscan(MPI_BOTTOM, r_of(c), NB, c->st, MPI_SUM, comm, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    expect(&c->r, 7, scan_sum(rank + 1, 7), "Iscan");
}

static void coll_kind(int kind)
{
    static coll_t c;

    coll_setup(&c, kind, me);
    coll_moves(&c, kind, MPI_COMM_WORLD, np, me);
    coll_reductions(&c, kind, MPI_COMM_WORLD, np, me);
    coll_nonblocking(&c, kind, MPI_COMM_WORLD, np, me);
    coll_free(&c);
}

/* Over an intercommunicator of the lower and the upper half: remote rank r's element of my
 * local rank arrives at my element r. */
static void inter_kind(MPI_Comm ic, int kind)
{
    static coll_t c;
    int rank, rn, lo = me < np / 2, root;
    MPI_Request q;

    MPI_Comm_rank(ic, &rank);
    MPI_Comm_remote_size(ic, &rn);
    coll_setup(&c, kind, me);
    OK(MPI_Alltoallw(MPI_BOTTOM, c.ones, c.zeros, c.sw, MPI_BOTTOM, c.ones, c.zeros, c.rw, ic));
    for (int r = 0; r < rn; r++) {
        expect(&c.r, r, val(lo ? np / 2 + r : r, rank), "Alltoallw over an intercommunicator");
    }
    coll_reset(&c, kind, me);
    OK(MPI_Alltoall(MPI_BOTTOM, 1, c.st, MPI_BOTTOM, 1, c.rt, ic));
    expect(&c.r, rn - 1, val(lo ? np - 1 : np / 2 - 1, rank), "Alltoall over an intercommunicator");
    coll_reset(&c, kind, me);
    OK(MPI_Allgatherv(MPI_BOTTOM, 1, c.sw[2], MPI_BOTTOM, c.ones, c.idx, c.rt, ic));
    expect(&c.r, 0, val(lo ? np / 2 : 0, 2), "Allgatherv over an intercommunicator");
    coll_reset(&c, kind, me);
    OK(MPI_Allreduce(MPI_BOTTOM, r_of(&c), NB, c.st, MPI_SUM, ic));
    {
        int want = 0;

        for (int r = lo ? np / 2 : 0; r < (lo ? np : np / 2); r++) {
            want += val(r, 3);
        }
        expect(&c.r, 3, want, "Allreduce over an intercommunicator");
    }
    /* a broadcast from rank 0 of the lower half */
    coll_reset(&c, kind, me);
    root = lo ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    OK(MPI_Ibcast(MPI_BOTTOM, NB, root == MPI_ROOT ? c.st : c.rt, root, ic, &q));
    OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    if (!lo) {
        expect(&c.r, 5, val(0, 5), "Ibcast over an intercommunicator");
    }
    coll_free(&c);
}

static void test_inter(void)
{
    MPI_Comm local, ic;
    int lo = me < np / 2;

    OK(MPI_Comm_split(MPI_COMM_WORLD, lo, me, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, lo ? np / 2 : 0, 38, &ic));
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    for (int kind = 0; kind < 2; kind++) {
        inter_kind(ic, kind);
    }
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = np >= 2 ? 3 : 2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    next = (me + 1) % np;
    prev = (me + np - 1) % np;
    for (int kind = 0; kind < 2; kind++) {
        p2p_kind(kind);
    }
    phase("point-to-point and Pack/Unpack at MPI_BOTTOM");
    for (int kind = 0; kind < 2; kind++) {
        coll_kind(kind);
    }
    phase("blocking and nonblocking collectives at MPI_BOTTOM");
    if (np >= 2) {
        test_inter();
        phase("intercommunicator collectives at MPI_BOTTOM");
    }
    MPI_Finalize();
    return summary();
}
