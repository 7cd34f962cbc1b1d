/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-4.0 persistent collectives and MPI_Isendrecv(_replace), data checked, on any number of
 * ranks (1 included): every *_init call (the neighborhood ones over a periodic ring), each
 * started several times with the buffers' contents changed between the rounds (a start reads
 * them then), completed by Wait, a Test loop or Waitall in turn and left inactive (the handle
 * kept, a Wait on it returns at once); Startall of several at once with Waitall / Testany;
 * starts in different orders on different ranks (matched at the init, as MPI-4.0 says); init,
 * start and Request_free local (one rank's before another's init); a communicator freed after
 * the init; MPI_IN_PLACE and a noncontiguous type; intercommunicator roots (MPI_ROOT,
 * MPI_PROC_NULL); Request_free after completion and of one never started; the errors: a start
 * while active, Request_free and Cancel of an active one, bad arguments: every init checks
 * comm, request, info and the nonblocking form's checks (counts, datatypes, roots, neighbor
 * counts, ...; Alltoallv/w, the neighborhood ones and the intercommunicator ones included),
 * failing with the class that form gives, naming the init, no request made.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define N      37 /* ints per block */
#define ROUNDS 3

static int val(int r, int i, int k)
{
    return r * 10007 + i * 31 + k * 100003;
}

static int *ints(size_t n)
{
    int *p = calloc(n > 0 ? n : 1, sizeof(int));

    if (p == NULL) {
        printf("out of memory\n");
        exit(2);
    }
    return p;
}

/* completes an active persistent request in round k's way; it stays (inactive) */
static void complete(MPI_Request *req, int k, const char *what)
{
    MPI_Status st;
    int flag = 0;

    if (k % 3 == 0) {
        OK(MPI_Wait(req, &st));
    } else if (k % 3 == 1) {
        while (!flag) {
            OK(MPI_Test(req, &flag, &st));
        }
    } else {
        OK(MPI_Waitall(1, req, &st));
    }
    CHECK(*req != MPI_REQUEST_NULL, "%s: the persistent request was released by completion", what);
    OK(MPI_Test(req, &flag, &st)); /* inactive: complete at once, an empty status */
    CHECK(flag == 1 && st.MPI_SOURCE == MPI_ANY_SOURCE, "%s: inactive test: flag %d source %d",
          what, flag, st.MPI_SOURCE);
}

/* runs ROUNDS starts of req: fill(k) before, check(k) after */
typedef struct {
    const char *what;
    void (*fill)(void *arg, int k);
    int (*check)(void *arg, int k); /* the number of wrong elements */
    void *arg;
} rounds_t;

static void run_rounds(MPI_Request *req, const rounds_t *r)
{
    for (int k = 0; k < ROUNDS; k++) {
        int bad;

        if (r->fill != NULL) {
            r->fill(r->arg, k);
        }
        OK(MPI_Start(req));
        complete(req, k, r->what);
        bad = r->check != NULL ? r->check(r->arg, k) : 0;
        CHECK(bad == 0, "%s round %d: %d wrong element(s)", r->what, k, bad);
    }
    OK(MPI_Request_free(req));
    CHECK(*req == MPI_REQUEST_NULL, "%s: Request_free left the handle", r->what);
}

/* ---- the buffers of one collective: send and receive, counts and displacements ------------ */
typedef struct {
    int *s, *r;
    int sc[64], sd[64], rc[64], rd[64];
    int root;
} bufs_t;

static bufs_t *bufs_new(void)
{
    bufs_t *b = calloc(1, sizeof(*b));

    b->s = ints((size_t)np * N * 4);
    b->r = ints((size_t)np * N * 4);
    return b;
}

static void bufs_free(bufs_t *b)
{
    free(b->s);
    free(b->r);
    free(b);
}

/* the receive buffer set to -1 (what a collective must overwrite) */
static void clear_r(bufs_t *b)
{
    for (int i = 0; i < np * N * 4; i++) {
        b->r[i] = -1;
    }
}

/* ---- bcast, gather(v), scatter(v), allgather(v) ------------------------------------------- */
static void fill_bcast(void *arg, int k)
{
    bufs_t *b = arg;

    for (int i = 0; i < N; i++) {
        b->r[i] = me == b->root ? val(b->root, i, k) : -1;
    }
}

static int check_bcast(void *arg, int k)
{
    bufs_t *b = arg;
    int bad = 0;

    for (int i = 0; i < N; i++) {
        bad += b->r[i] != val(b->root, i, k);
    }
    return bad;
}

/* one int of two (the odd ones stay -7) */
static void fill_bcast_eo(void *arg, int k)
{
    bufs_t *b = arg;

    for (int i = 0; i < 2 * N; i++) {
        b->r[i] = i % 2 ? -7 : me == b->root ? val(b->root, i, k) : -1;
    }
}

static int check_bcast_eo(void *arg, int k)
{
    bufs_t *b = arg;
    int bad = 0;

    for (int i = 0; i < 2 * N; i++) {
        bad += b->r[i] != (i % 2 ? -7 : val(b->root, i, k));
    }
    return bad;
}

/* every rank's send block: val(me, i, k); receive blocks cleared */
static void fill_own(void *arg, int k)
{
    bufs_t *b = arg;

    for (int i = 0; i < N; i++) {
        b->s[i] = val(me, i, k);
    }
    clear_r(b);
}

/* the receive buffer holds rank j's block j (rc[j] ints at rd[j]) */
static int check_gathered(bufs_t *b, int k)
{
    int bad = 0;

    for (int j = 0; j < np; j++) {
        for (int i = 0; i < b->rc[j]; i++) {
            bad += b->r[b->rd[j] + i] != val(j, i, k);
        }
    }
    return bad;
}

static int check_gather(void *arg, int k)
{
    bufs_t *b = arg;

    return me == b->root ? check_gathered(b, k) : 0;
}

static int check_allgather(void *arg, int k)
{
    return check_gathered(arg, k);
}

/* the root's send blocks: block j (sc[j] ints at sd[j]) is val(j, i, k) */
static void fill_scatter(void *arg, int k)
{
    bufs_t *b = arg;

    for (int j = 0; me == b->root && j < np; j++) {
        for (int i = 0; i < b->sc[j]; i++) {
            b->s[b->sd[j] + i] = val(j, i, k);
        }
    }
    clear_r(b);
}

static int check_scatter(void *arg, int k)
{
    bufs_t *b = arg;
    int bad = 0;

    for (int i = 0; i < b->sc[me]; i++) {
        bad += b->r[i] != val(me, i, k);
    }
    return bad + (b->r[b->sc[me]] != -1);
}

/* blocks of N (v false) or of j + 1 ints with a gap of one (v true) */
static void layout(int *c, int *d, bool v)
{
    for (int j = 0, at = 0; j < np; j++) {
        c[j] = v ? j + 1 : N;
        d[j] = at;
        at += c[j] + (v ? 1 : 0);
    }
}

static void test_data(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Request req;
    MPI_Datatype v, eo;
    bufs_t *b = bufs_new();

    OK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
    OK(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &eo));
    OK(MPI_Type_commit(&eo));
    OK(MPI_Type_free(&v));
    OK(MPI_Info_create(&info)); /* a live info: accepted, not read */

    OK(MPI_Barrier_init(w, info, &req));
    run_rounds(&req, &(rounds_t){"Barrier_init", NULL, NULL, NULL});

    b->root = np - 1;
    OK(MPI_Bcast_init(b->r, N, MPI_INT, b->root, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Bcast_init", fill_bcast, check_bcast, b});
    b->root = 0;
    OK(MPI_Bcast_init(b->r, N, eo, b->root, w, info, &req));
    run_rounds(&req, &(rounds_t){"Bcast_init (noncontiguous)", fill_bcast_eo, check_bcast_eo, b});

    b->root = np / 2;
    layout(b->rc, b->rd, false);
    OK(MPI_Gather_init(b->s, N, MPI_INT, b->r, N, MPI_INT, b->root, w, info, &req));
    run_rounds(&req, &(rounds_t){"Gather_init", fill_own, check_gather, b});
    layout(b->rc, b->rd, true);
    OK(MPI_Gatherv_init(b->s, me + 1, MPI_INT, b->r, b->rc, b->rd, MPI_INT, b->root, w, info,
                        &req));
    run_rounds(&req, &(rounds_t){"Gatherv_init", fill_own, check_gather, b});

    layout(b->rc, b->rd, false);
    OK(MPI_Allgather_init(b->s, N, MPI_INT, b->r, N, MPI_INT, w, info, &req));
    run_rounds(&req, &(rounds_t){"Allgather_init", fill_own, check_allgather, b});
    layout(b->rc, b->rd, true);
    OK(MPI_Allgatherv_init(b->s, me + 1, MPI_INT, b->r, b->rc, b->rd, MPI_INT, w, info, &req));
    run_rounds(&req, &(rounds_t){"Allgatherv_init", fill_own, check_allgather, b});

    b->root = np - 1;
    layout(b->sc, b->sd, false);
    OK(MPI_Scatter_init(b->s, N, MPI_INT, b->r, N, MPI_INT, b->root, w, info, &req));
    run_rounds(&req, &(rounds_t){"Scatter_init", fill_scatter, check_scatter, b});
    layout(b->sc, b->sd, true);
    OK(MPI_Scatterv_init(b->s, b->sc, b->sd, MPI_INT, b->r, me + 1, MPI_INT, b->root, w, info,
                         &req));
    run_rounds(&req, &(rounds_t){"Scatterv_init", fill_scatter, check_scatter, b});

    /* its type freed after the init, a new type made then (it may take the freed handle):
     * the request goes on with the type of its init (MPI: freed types stay usable by the
     * operations that hold them); the new type would leave even ints -1 */
    b->root = 0;
    OK(MPI_Bcast_init(b->r, N, eo, b->root, w, MPI_INFO_NULL, &req));
    OK(MPI_Type_free(&eo));
    OK(MPI_Type_create_resized(MPI_INT, 0, 3 * (MPI_Aint)sizeof(int), &v)); /* 1 int in 3 */
    OK(MPI_Type_commit(&v));
    run_rounds(&req, &(rounds_t){"Bcast_init (its type freed after the init)", fill_bcast_eo,
                                 check_bcast_eo, b});
    OK(MPI_Type_free(&v));

    OK(MPI_Info_free(&info));
    bufs_free(b);
}

/* ---- alltoall(v/w) ------------------------------------------------------------------------- */
/* rank a's block for rank j, element i in round k */
static int a2a(int a, int j, int i, int k)
{
    return val(a * 64 + j, i, k);
}

static void fill_a2a(void *arg, int k)
{
    bufs_t *b = arg;

    for (int j = 0; j < np; j++) {
        for (int i = 0; i < b->sc[j]; i++) {
            b->s[b->sd[j] + i] = a2a(me, j, i, k);
        }
    }
    clear_r(b);
}

static int check_a2a(void *arg, int k)
{
    bufs_t *b = arg;
    int bad = 0;

    for (int j = 0; j < np; j++) {
        for (int i = 0; i < b->rc[j]; i++) {
            bad += b->r[b->rd[j] + i] != a2a(j, me, i, k);
        }
    }
    return bad;
}

/* counts (me + j) % 3 + 1 both ways (what j sends me is what I receive from j), a gap of 2 */
static void a2a_layout(bufs_t *b)
{
    for (int j = 0, at = 0; j < np; j++) {
        b->sc[j] = b->rc[j] = (me + j) % 3 + 1;
        b->sd[j] = b->rd[j] = at;
        at += b->sc[j] + 2;
    }
}

/* MPI_Type_free of derived types in the w form's arrays right after the init (through copies
 * of the handles: the arrays stay as they were, as MPI wants them until the request is freed),
 * another type made in between: every start still moves the data (issue 43: the w forms did
 * not hold the types of their arrays, and a start used freed ones). */
static void test_alltoallw_freed(bufs_t *b, int *sdb, int *rdb)
{
    MPI_Datatype st[64], rt[64], other;
    MPI_Request req;
    int ones[64];

    for (int j = 0; j < np; j++) {
        ones[j] = 1;
        OK(MPI_Type_contiguous(b->sc[j], MPI_INT, &st[j]));
        OK(MPI_Type_commit(&st[j]));
        OK(MPI_Type_contiguous(b->rc[j], MPI_INT, &rt[j]));
        OK(MPI_Type_commit(&rt[j]));
    }
    OK(MPI_Alltoallw_init(b->s, ones, sdb, st, b->r, ones, rdb, rt, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req));
    for (int j = 0; j < np; j++) {
        MPI_Datatype s = st[j], r = rt[j];
        OK(MPI_Type_free(&s));
        OK(MPI_Type_free(&r));
    }
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &other)); /* may take a freed handle's place */
    OK(MPI_Type_commit(&other));
    run_rounds(&req,
               &(rounds_t){"Alltoallw_init, its types freed after it", fill_a2a, check_a2a, b});
    OK(MPI_Type_free(&other));
}

static void test_alltoall(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    MPI_Datatype st[64], rt[64];
    int sdb[64], rdb[64];
    bufs_t *b = bufs_new();

    layout(b->sc, b->sd, false);
    layout(b->rc, b->rd, false);
    OK(MPI_Alltoall_init(b->s, N, MPI_INT, b->r, N, MPI_INT, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Alltoall_init", fill_a2a, check_a2a, b});
    a2a_layout(b);
    OK(MPI_Alltoallv_init(b->s, b->sc, b->sd, MPI_INT, b->r, b->rc, b->rd, MPI_INT, w,
                          MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Alltoallv_init", fill_a2a, check_a2a, b});
    for (int j = 0; j < np; j++) {
        st[j] = rt[j] = MPI_INT;
        sdb[j] = b->sd[j] * (int)sizeof(int);
        rdb[j] = b->rd[j] * (int)sizeof(int);
    }
    OK(MPI_Alltoallw_init(b->s, b->sc, sdb, st, b->r, b->rc, rdb, rt, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Alltoallw_init", fill_a2a, check_a2a, b});
    test_alltoallw_freed(b, sdb, rdb);
    bufs_free(b);
}

/* ---- reductions ----------------------------------------------------------------------------- */
typedef struct {
    bufs_t *b;
    int kind; /* 0 reduce, 1 allreduce, 2 allreduce in place, 3 scan, 4 exscan, 5 rsb, 6 rs */
} red_arg_t;

/* the sum over ranks lo..hi-1 of val(r, i, k) */
static int sum(int lo, int hi, int i, int k)
{
    int s = 0;

    for (int r = lo; r < hi; r++) {
        s += val(r, i, k);
    }
    return s;
}

static void fill_red(void *arg, int k)
{
    red_arg_t *a = arg;

    for (int i = 0; i < np * N; i++) {
        a->b->s[i] = val(me, i, k);
    }
    clear_r(a->b);
    if (a->kind == 2) {
        for (int i = 0; i < N; i++) {
            a->b->r[i] = val(me, i, k);
        }
    }
}

static int check_red(void *arg, int k)
{
    red_arg_t *a = arg;
    bufs_t *b = a->b;
    int bad = 0, n = a->kind == 6 ? me + 1 : N, off = a->kind == 5 ? me * N : 0;

    if (a->kind == 6) {
        off = me * (me + 1) / 2; /* the blocks before mine: 1 + 2 + ... + me */
    }
    for (int i = 0; i < n; i++) {
        int want = a->kind == 3   ? sum(0, me + 1, i, k)
                   : a->kind == 4 ? sum(0, me, i, k)
                                  : sum(0, np, off + i, k);

        if ((a->kind == 0 && me != b->root) || (a->kind == 4 && me == 0)) {
            break; /* no result here (Exscan's rank 0: undefined) */
        }
        bad += b->r[i] != want;
    }
    return bad;
}

/* user operations: a sum, and one that writes zeros */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[i] += ((int *)in)[i];
    }
}

static void user_zero(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)dt;
    memset(inout, 0, (size_t)*len * sizeof(int));
}

static void test_reduce(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    bufs_t *b = bufs_new();
    red_arg_t a = {b, 0};

    b->root = np - 1;
    OK(MPI_Reduce_init(b->s, b->r, N, MPI_INT, MPI_SUM, b->root, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Reduce_init", fill_red, check_red, &a});
    a.kind = 1;
    OK(MPI_Allreduce_init(b->s, b->r, N, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Allreduce_init", fill_red, check_red, &a});
    a.kind = 2;
    OK(MPI_Allreduce_init(MPI_IN_PLACE, b->r, N, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Allreduce_init (MPI_IN_PLACE)", fill_red, check_red, &a});
    a.kind = 3;
    OK(MPI_Scan_init(b->s, b->r, N, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Scan_init", fill_red, check_red, &a});
    a.kind = 4;
    OK(MPI_Exscan_init(b->s, b->r, N, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Exscan_init", fill_red, check_red, &a});
    a.kind = 5;
    OK(MPI_Reduce_scatter_block_init(b->s, b->r, N, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Reduce_scatter_block_init", fill_red, check_red, &a});
    a.kind = 6;
    for (int j = 0; j < np; j++) {
        b->rc[j] = j + 1;
    }
    OK(MPI_Reduce_scatter_init(b->s, b->r, b->rc, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req));
    run_rounds(&req, &(rounds_t){"Reduce_scatter_init", fill_red, check_red, &a});
    /* its user operation freed after the init, a new one made then (it may take the freed
     * handle; it would give zeros): the request goes on with the operation of its init */
    {
        MPI_Op sum_op, zero_op;

        a.kind = 1;
        OK(MPI_Op_create(user_sum, 1, &sum_op));
        OK(MPI_Allreduce_init(b->s, b->r, N, MPI_INT, sum_op, w, MPI_INFO_NULL, &req));
        OK(MPI_Op_free(&sum_op));
        OK(MPI_Op_create(user_zero, 1, &zero_op));
        run_rounds(&req, &(rounds_t){"Allreduce_init (its user operation freed after the init)",
                                     fill_red, check_red, &a});
        OK(MPI_Op_free(&zero_op));
    }
    bufs_free(b);
}

/* ---- Startall of several ------------------------------------------------------------------ */
static void test_startall(void)
{
    MPI_Request reqs[4];
    int bc[N], ar[N], out[N], *ag = ints((size_t)np);

    OK(MPI_Bcast_init(bc, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    OK(MPI_Allreduce_init(ar, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    OK(MPI_Allgather_init(&me, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &reqs[2]));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[3]));
    for (int k = 0; k < 2 * ROUNDS; k++) {
        int bad = 0, idx = 0, n = 0;

        for (int i = 0; i < N; i++) {
            bc[i] = me == 0 ? val(0, i, k) : -1;
            ar[i] = val(me, i, k);
        }
        OK(MPI_Startall(4, reqs));
        if (k % 2 == 0) {
            OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        } else { /* Testany until every one was completed once, then none is active */
            do {
                int flag = 0;

                OK(MPI_Testany(4, reqs, &idx, &flag, MPI_STATUS_IGNORE));
                n += flag && idx != MPI_UNDEFINED;
            } while (idx != MPI_UNDEFINED || n < 4);
            CHECK(n == 4, "Testany completed %d of 4", n);
        }
        for (int i = 0; i < N; i++) {
            bad += bc[i] != val(0, i, k) || out[i] != val(np - 1, i, k);
        }
        for (int j = 0; j < np; j++) {
            bad += ag[j] != j;
        }
        CHECK(bad == 0, "Startall round %d: %d wrong element(s)", k, bad);
    }
    for (int i = 0; i < 4; i++) {
        OK(MPI_Request_free(&reqs[i]));
    }
    /* started in different orders on different ranks (MPI-4.0 matches them at the init) */
    OK(MPI_Bcast_init(bc, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    OK(MPI_Allreduce_init(ar, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0;

        for (int i = 0; i < N; i++) {
            bc[i] = me == 0 ? val(0, i, k) : -1;
            ar[i] = val(me, i, k);
        }
        for (int i = 0; i < 3; i++) {
            OK(MPI_Start(&reqs[me % 2 ? 2 - i : i]));
        }
        OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++) {
            bad += bc[i] != val(0, i, k) || out[i] != val(np - 1, i, k);
        }
        CHECK(bad == 0, "starts in different orders, round %d: %d wrong element(s)", k, bad);
    }
    for (int i = 0; i < 3; i++) {
        OK(MPI_Request_free(&reqs[i]));
    }
    /* its communicator freed after the init: the request goes on working */
    {
        MPI_Comm dup;

        OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        OK(MPI_Allreduce_init(ar, out, N, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &reqs[0]));
        OK(MPI_Comm_free(&dup));
        for (int k = 0; k < ROUNDS; k++) {
            int bad = 0;

            for (int i = 0; i < N; i++) {
                ar[i] = val(me, i, k);
            }
            OK(MPI_Start(&reqs[0]));
            OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
            for (int i = 0; i < N; i++) {
                bad += out[i] != sum(0, np, i, k);
            }
            CHECK(bad == 0, "communicator freed after the init, round %d: %d wrong", k, bad);
        }
        OK(MPI_Request_free(&reqs[0]));
    }
    /* init, Request_free and Start are local: rank 0 makes and frees one, then starts
     * another, before rank 1 (waiting for rank 0's message first) has called its inits */
    if (np > 1) {
        int x = me == 0 ? 1 : -1, token = 7;

        if (me == 1) {
            OK(MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
        OK(MPI_Request_free(&reqs[0]));
        OK(MPI_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
        OK(MPI_Start(&reqs[0]));
        if (me == 0) {
            OK(MPI_Send(&token, 1, MPI_INT, 1, 77, MPI_COMM_WORLD));
        }
        OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
        CHECK(x == 1, "Bcast_init started before another rank's init: %d", x);
        OK(MPI_Request_free(&reqs[0]));
    }
    /* freed never started */
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    OK(MPI_Request_free(&reqs[0]));
    free(ag);
}

/* ---- neighborhood: a periodic ring (sources and destinations: left, right) ---------------- */
static void test_neighbor(void)
{
    MPI_Comm ring;
    MPI_Request req;
    int left, right, sb[2 * N], rb[2 * N], c2[2] = {N, N}, d2[2] = {0, N};
    MPI_Aint db[2] = {0, N * (MPI_Aint)sizeof(int)};
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
    int ones[2] = {1, 1}; /* alltoallw's counts: valid until its request is freed (MPI) */

    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, (int[]){1}, 0, &ring));
    OK(MPI_Cart_shift(ring, 0, 1, &left, &right));
    OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
    for (int form = 0; form < 6; form++) {
        static const char *names[] = {"allgather", "allgatherv", "alltoall",
                                      "alltoallv", "alltoallw",  "alltoallw, types freed"};
        MPI_Datatype blk[2], other = MPI_DATATYPE_NULL;
        bool a2a_form = form >= 2;

        if (form == 0) {
            OK(MPI_Neighbor_allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, ring, MPI_INFO_NULL,
                                           &req));
        } else if (form == 1) {
            OK(MPI_Neighbor_allgatherv_init(sb, N, MPI_INT, rb, c2, d2, MPI_INT, ring,
                                            MPI_INFO_NULL, &req));
        } else if (form == 2) {
            OK(MPI_Neighbor_alltoall_init(sb, N, MPI_INT, rb, N, MPI_INT, ring, MPI_INFO_NULL,
                                          &req));
        } else if (form == 3) {
            OK(MPI_Neighbor_alltoallv_init(sb, c2, d2, MPI_INT, rb, c2, d2, MPI_INT, ring,
                                           MPI_INFO_NULL, &req));
        } else if (form == 4) {
            OK(MPI_Neighbor_alltoallw_init(sb, c2, db, t2, rb, c2, db, t2, ring, MPI_INFO_NULL,
                                           &req));
        } else { /* derived types freed right after the init (issue 43), as test_alltoallw_freed */
            OK(MPI_Type_contiguous(N, MPI_INT, &blk[0]));
            OK(MPI_Type_commit(&blk[0]));
            OK(MPI_Type_dup(blk[0], &blk[1]));
            OK(MPI_Neighbor_alltoallw_init(sb, ones, db, blk, rb, ones, db, blk, ring,
                                           MPI_INFO_NULL, &req));
            for (int i = 0; i < 2; i++) {
                MPI_Datatype t = blk[i];
                OK(MPI_Type_free(&t));
            }
            OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &other));
            OK(MPI_Type_commit(&other));
        }
        for (int k = 0; k < ROUNDS; k++) {
            int bad = 0;

            /* block 0 goes to the left neighbor, block 1 to the right; allgather: one block */
            for (int i = 0; i < 2 * N; i++) {
                sb[i] = val(me * 2 + i / N, i % N, k);
                rb[i] = -1;
            }
            OK(MPI_Start(&req));
            complete(&req, k, names[form]);
            /* rb[0..N): from the left neighbor (its block for its right: 1), rb[N..): from the
             * right one (its block 0) */
            for (int i = 0; i < N; i++) {
                bad += rb[i] != val(left * 2 + (a2a_form ? 1 : 0), i, k);
                bad += rb[N + i] != val(right * 2, i, k);
            }
            CHECK(bad == 0, "Neighbor_%s_init round %d: %d wrong element(s)", names[form], k, bad);
        }
        OK(MPI_Request_free(&req));
        if (other != MPI_DATATYPE_NULL) {
            OK(MPI_Type_free(&other));
        }
    }
    OK(MPI_Comm_free(&ring));
}

/* an init that fails with class cls, its message naming call, *req left alone */
static void init_fails(int code, int cls, const char *call, MPI_Request *req)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    FAILS(code, cls);
    MPI_Error_string(code, msg, &len);
    CHECK(strstr(msg, call) != NULL, "%s: the message does not name it: %s", call, msg);
    CHECK(*req == MPI_REQUEST_NULL, "%s: a failed init set the request", call);
}

/* ---- intercommunicator: the two halves of the world ----------------------------------------- */
/* Started in different orders on different ranks (matched at the init, MPI-4.0), the
 * intercommunicator freed after the inits: the requests go on working. */
static void test_inter_orders(MPI_Comm ic, int lo, int lrank)
{
    MPI_Request reqs[3];
    MPI_Comm dup;
    int buf[N], in[N], out[N];

    OK(MPI_Comm_dup(ic, &dup));
    OK(MPI_Bcast_init(buf, N, MPI_INT, lo ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, dup,
                      MPI_INFO_NULL, &reqs[0]));
    OK(MPI_Barrier_init(dup, MPI_INFO_NULL, &reqs[1]));
    OK(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &reqs[2]));
    OK(MPI_Comm_free(&dup));
    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0;

        for (int i = 0; i < N; i++) {
            buf[i] = lo && lrank == 0 ? val(0, i, k) : -1;
            in[i] = val(me, i, k);
        }
        for (int i = 0; i < 3; i++) {
            OK(MPI_Start(&reqs[me % 2 ? 2 - i : (i + k) % 3]));
        }
        OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++) {
            bad += !lo && buf[i] != val(0, i, k);
            bad += out[i] != (lo ? sum(np / 2, np, i, k) : sum(0, np / 2, i, k));
        }
        CHECK(bad == 0, "inter starts in different orders, round %d: %d wrong", k, bad);
    }
    for (int i = 0; i < 3; i++) {
        OK(MPI_Request_free(&reqs[i]));
    }
}

/* Bad arguments of the inits over the intercommunicator (the same on every rank): refused at
 * the init with the intercommunicator form's class, naming the init, no request made; the
 * correct inits that follow (test_inter's) stay in step. */
static void test_inter_errors(MPI_Comm ic, int rsize)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype ty[64], bad_ty[64];
    int buf[2 * 64] = {0}, cnt[64], neg[64], dsp[64];

    for (int i = 0; i < 64; i++) {
        cnt[i] = 1, neg[i] = i == rsize - 1 ? -1 : 1, dsp[i] = i;
        ty[i] = MPI_INT, bad_ty[i] = i == rsize - 1 ? MPI_DATATYPE_NULL : MPI_INT;
    }
    init_fails(MPI_Bcast_init(buf, N, MPI_INT, rsize, ic, MPI_INFO_NULL, &req), MPI_ERR_ROOT,
               "MPI_Bcast_init", &req);
    init_fails(MPI_Reduce_init(buf, buf + 64, 1, MPI_INT, MPI_SUM, -5, ic, MPI_INFO_NULL, &req),
               MPI_ERR_ROOT, "MPI_Reduce_init", &req);
    init_fails(
        MPI_Gather_init(buf, 1, MPI_INT, buf + 64, 1, MPI_INT, rsize + 1, ic, MPI_INFO_NULL, &req),
        MPI_ERR_ROOT, "MPI_Gather_init", &req);
    init_fails(MPI_Allgather_init(buf, -1, MPI_INT, buf + 64, 1, MPI_INT, ic, MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Allgather_init", &req);
    init_fails(
        MPI_Alltoall_init(buf, 1, MPI_DATATYPE_NULL, buf + 64, 1, MPI_INT, ic, MPI_INFO_NULL, &req),
        MPI_ERR_TYPE, "MPI_Alltoall_init", &req);
    init_fails(
        MPI_Allgatherv_init(buf, 1, MPI_INT, buf + 64, neg, dsp, MPI_INT, ic, MPI_INFO_NULL, &req),
        MPI_ERR_COUNT, "MPI_Allgatherv_init", &req);
    init_fails(MPI_Alltoallv_init(buf, neg, dsp, MPI_INT, buf + 64, cnt, dsp, MPI_INT, ic,
                                  MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Alltoallv_init", &req);
    init_fails(
        MPI_Alltoallw_init(buf, cnt, dsp, ty, buf + 64, cnt, dsp, bad_ty, ic, MPI_INFO_NULL, &req),
        MPI_ERR_TYPE, "MPI_Alltoallw_init", &req);
    init_fails(MPI_Allreduce_init(buf, buf + 64, 1, MPI_INT, MPI_OP_NULL, ic, MPI_INFO_NULL, &req),
               MPI_ERR_OP, "MPI_Allreduce_init", &req);
    init_fails(
        MPI_Reduce_scatter_block_init(buf, buf + 64, -1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &req),
        MPI_ERR_COUNT, "MPI_Reduce_scatter_block_init", &req);
    init_fails(MPI_Scan_init(buf, buf + 64, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &req),
               MPI_ERR_COMM, "MPI_Scan_init", &req);
    init_fails(
        MPI_Neighbor_alltoall_init(buf, 1, MPI_INT, buf + 64, 1, MPI_INT, ic, MPI_INFO_NULL, &req),
        MPI_ERR_TOPOLOGY, "MPI_Neighbor_alltoall_init", &req);
}

static void test_inter(void)
{
    MPI_Comm half, ic;
    MPI_Request req;
    int lo = me < np / 2, rsize, lrank, buf[N], in[N], out[N];

    if (np < 2) {
        return;
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, lo, me, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lo ? np / 2 : 0, 41, &ic));
    OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    OK(MPI_Comm_remote_size(ic, &rsize));
    OK(MPI_Comm_rank(half, &lrank));
    test_inter_errors(ic, rsize);
    /* the low group's rank 0 broadcasts to the high group */
    OK(MPI_Bcast_init(buf, N, MPI_INT, lo ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic,
                      MPI_INFO_NULL, &req));
    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0;

        for (int i = 0; i < N; i++) {
            buf[i] = lo && lrank == 0 ? val(0, i, k) : -1;
        }
        OK(MPI_Start(&req));
        complete(&req, k, "Bcast_init (intercommunicator)");
        for (int i = 0; !lo && i < N; i++) {
            bad += buf[i] != val(0, i, k);
        }
        CHECK(bad == 0, "inter Bcast_init round %d: %d wrong", k, bad);
    }
    OK(MPI_Request_free(&req));
    /* each group gets the sum of the other group's values */
    OK(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &req));
    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0;

        for (int i = 0; i < N; i++) {
            in[i] = val(me, i, k);
        }
        OK(MPI_Start(&req));
        complete(&req, k, "Allreduce_init (intercommunicator)");
        for (int i = 0; i < N; i++) {
            bad += out[i] != (lo ? sum(np / 2, np, i, k) : sum(0, np / 2, i, k));
        }
        CHECK(bad == 0, "inter Allreduce_init round %d: %d wrong", k, bad);
    }
    OK(MPI_Request_free(&req));
    test_inter_orders(ic, lo, lrank);
    OK(MPI_Comm_free(&ic));
    OK(MPI_Comm_free(&half));
}

/* ---- Isendrecv, Isendrecv_replace: a ring ------------------------------------------------- */
static void test_isendrecv(void)
{
    static int rep[2 * N]; /* static: the last exchange completes after this returns */
    int right = (me + 1) % np, left = (me + np - 1) % np, s[N], r[N], count;
    MPI_Datatype v, eo;
    MPI_Request req;
    MPI_Status st;

    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0, flag = 0;

        for (int i = 0; i < N; i++) {
            s[i] = val(me, i, k);
            r[i] = -1;
        }
        OK(MPI_Isendrecv(s, N, MPI_INT, right, 5 + k, r, N, MPI_INT, left, 5 + k, MPI_COMM_WORLD,
                         &req));
        while (k == 1 && !flag) {
            OK(MPI_Test(&req, &flag, &st));
        }
        if (k != 1) {
            OK(MPI_Wait(&req, &st));
        }
        CHECK(req == MPI_REQUEST_NULL, "Isendrecv: request not released");
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 + k && count == N,
              "Isendrecv status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        for (int i = 0; i < N; i++) {
            bad += r[i] != val(left, i, k);
        }
        CHECK(bad == 0, "Isendrecv round %d: %d wrong", k, bad);
    }
    /* replace, of a noncontiguous type: the odd ints stay */
    OK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
    OK(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &eo));
    OK(MPI_Type_commit(&eo));
    for (int k = 0; k < ROUNDS; k++) {
        int bad = 0;

        for (int i = 0; i < 2 * N; i++) {
            rep[i] = i % 2 ? -7 : val(me, i, k);
        }
        OK(MPI_Isendrecv_replace(rep, N, eo, right, 9, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 9, "Isendrecv_replace status: %d %d",
              st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < 2 * N; i++) {
            bad += rep[i] != (i % 2 ? -7 : val(left, i, k));
        }
        CHECK(bad == 0, "Isendrecv_replace round %d: %d wrong", k, bad);
    }
    /* to and from MPI_PROC_NULL: complete at once, the receive's status */
    OK(MPI_Isendrecv(s, N, MPI_INT, MPI_PROC_NULL, 0, r, N, MPI_INT, MPI_PROC_NULL, 0,
                     MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Isendrecv PROC_NULL: source %d", st.MPI_SOURCE);
    /* freed before completion: completes in the background */
    OK(MPI_Isendrecv_replace(rep, N, eo, right, 10, left, 10, MPI_COMM_WORLD, &req));
    OK(MPI_Request_free(&req));
    OK(MPI_Type_free(&v));
    OK(MPI_Type_free(&eo));
}

/* ---- errors --------------------------------------------------------------------------------- */
/* MPI_Start, then (when it succeeded) MPI_Wait: the first error */
static int start_wait(MPI_Request *req)
{
    int err = MPI_Start(req);

    return err != MPI_SUCCESS ? err : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* Alltoallv_init and Alltoallw_init: negative counts, a bad datatype, aliased buffers, NULL
 * arrays, refused at the init (as Ialltoallv / Ialltoallw refuse them) */
static void test_errors_vw(void)
{
    MPI_Datatype ty[64], bad_ty[64];
    int buf[2 * 64] = {0}, cnt[64], neg[64], dsp[64], dspb[64];
    MPI_Request req = MPI_REQUEST_NULL;

    /* one int to and from each rank; the last rank's count or type bad, on every rank */
    for (int i = 0; i < 64; i++) {
        cnt[i] = 1, neg[i] = i == np - 1 ? -2 : 1, dsp[i] = i, dspb[i] = i * (int)sizeof(int);
        ty[i] = MPI_INT, bad_ty[i] = i == np - 1 ? MPI_DATATYPE_NULL : MPI_INT;
    }
    init_fails(MPI_Alltoallv_init(buf, neg, dsp, MPI_INT, buf + 64, cnt, dsp, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Alltoallv_init", &req);
    init_fails(MPI_Alltoallv_init(buf, cnt, dsp, MPI_INT, buf + 64, neg, dsp, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Alltoallv_init", &req);
    init_fails(MPI_Alltoallv_init(buf, cnt, dsp, MPI_DATATYPE_NULL, buf + 64, cnt, dsp, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_TYPE, "MPI_Alltoallv_init", &req);
    init_fails(MPI_Alltoallv_init(buf, cnt, dsp, MPI_INT, buf + 64, NULL, dsp, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_ARG, "MPI_Alltoallv_init", &req);
    init_fails(MPI_Alltoallw_init(buf, neg, dspb, ty, buf + 64, cnt, dspb, ty, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Alltoallw_init", &req);
    init_fails(MPI_Alltoallw_init(buf, cnt, dspb, ty, buf + 64, cnt, dspb, bad_ty, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
               MPI_ERR_TYPE, "MPI_Alltoallw_init", &req);
    init_fails(MPI_Alltoallw_init(buf, cnt, dspb, ty, buf, cnt, dspb, ty, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
               MPI_ERR_BUFFER, "MPI_Alltoallw_init", &req);
    /* the same arguments, correct: accepted, and they run */
    OK(MPI_Alltoallw_init(buf, cnt, dspb, ty, buf + 64, cnt, dspb, ty, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &req));
    OK(start_wait(&req));
    OK(MPI_Request_free(&req));
}

/* the neighborhood inits over a periodic ring: bad counts (negative, neighbor counts), a bad
 * datatype, MPI_IN_PLACE, no topology, refused at the init */
static void test_errors_neighbor(void)
{
    MPI_Comm ring;
    MPI_Request req = MPI_REQUEST_NULL;
    int sb[2 * N], rb[2 * N], c2[2] = {N, N}, neg[2] = {N, -1}, d2[2] = {0, N};
    MPI_Aint db[2] = {0, N * (MPI_Aint)sizeof(int)};
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT}, bad_t2[2] = {MPI_INT, MPI_DATATYPE_NULL};

    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, (int[]){1}, 0, &ring));
    OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
    init_fails(
        MPI_Neighbor_allgather_init(sb, -1, MPI_INT, rb, N, MPI_INT, ring, MPI_INFO_NULL, &req),
        MPI_ERR_COUNT, "MPI_Neighbor_allgather_init", &req);
    init_fails(MPI_Neighbor_allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, MPI_COMM_WORLD,
                                           MPI_INFO_NULL, &req),
               MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather_init", &req);
    init_fails(MPI_Neighbor_alltoall_init(sb, N, MPI_INT, rb, N, MPI_DATATYPE_NULL, ring,
                                          MPI_INFO_NULL, &req),
               MPI_ERR_TYPE, "MPI_Neighbor_alltoall_init", &req);
    init_fails(MPI_Neighbor_alltoall_init(MPI_IN_PLACE, N, MPI_INT, rb, N, MPI_INT, ring,
                                          MPI_INFO_NULL, &req),
               MPI_ERR_BUFFER, "MPI_Neighbor_alltoall_init", &req);
    init_fails(MPI_Neighbor_allgatherv_init(sb, N, MPI_INT, rb, neg, d2, MPI_INT, ring,
                                            MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Neighbor_allgatherv_init", &req);
    init_fails(MPI_Neighbor_allgatherv_init(sb, N, MPI_INT, rb, NULL, d2, MPI_INT, ring,
                                            MPI_INFO_NULL, &req),
               MPI_ERR_ARG, "MPI_Neighbor_allgatherv_init", &req);
    init_fails(MPI_Neighbor_alltoallv_init(sb, neg, d2, MPI_INT, rb, c2, d2, MPI_INT, ring,
                                           MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Neighbor_alltoallv_init", &req);
    init_fails(
        MPI_Neighbor_alltoallw_init(sb, c2, db, t2, rb, neg, db, t2, ring, MPI_INFO_NULL, &req),
        MPI_ERR_COUNT, "MPI_Neighbor_alltoallw_init", &req);
    init_fails(
        MPI_Neighbor_alltoallw_init(sb, c2, db, bad_t2, rb, c2, db, t2, ring, MPI_INFO_NULL, &req),
        MPI_ERR_TYPE, "MPI_Neighbor_alltoallw_init", &req);
    /* correct ones are still accepted on the ring after the refusals, and run */
    OK(MPI_Neighbor_alltoallw_init(sb, c2, db, t2, rb, c2, db, t2, ring, MPI_INFO_NULL, &req));
    OK(start_wait(&req));
    OK(MPI_Request_free(&req));
    OK(MPI_Comm_free(&ring));
}

static void test_errors(void)
{
    MPI_Request req, nb;
    MPI_Info bad_info = (MPI_Info)0x7abcdef;
    int buf[N] = {0}, flag;

    /* at init: comm, request, info */
    FAILS(MPI_Bcast_init(buf, N, MPI_INT, 0, MPI_COMM_NULL, MPI_INFO_NULL, &req), MPI_ERR_COMM);
    FAILS(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    FAILS(MPI_Allreduce_init(buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, bad_info, &req),
          MPI_ERR_INFO);
    /* at init: the nonblocking form's checks (count, datatype, root, buffers, op), the error
     * naming the init; no request made */
    req = MPI_REQUEST_NULL;
    init_fails(MPI_Bcast_init(buf, N, MPI_INT, np, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_ROOT, "MPI_Bcast_init", &req);
    init_fails(MPI_Bcast_init(buf, -1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_COUNT, "MPI_Bcast_init", &req);
    init_fails(MPI_Gather_init(buf, 1, MPI_DATATYPE_NULL, buf + 1, 1, MPI_INT, 0, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req),
               MPI_ERR_TYPE, "MPI_Gather_init", &req);
    init_fails(MPI_Scatter_init(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, -3, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req),
               MPI_ERR_ROOT, "MPI_Scatter_init", &req);
    init_fails(MPI_Alltoall_init(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req),
               MPI_ERR_BUFFER, "MPI_Alltoall_init", &req);
    init_fails(MPI_Allreduce_init(buf, buf + N / 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
               MPI_ERR_OP, "MPI_Allreduce_init", &req);
    init_fails(MPI_Scan_init(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_BUFFER, "MPI_Scan_init", &req);
    init_fails(MPI_Reduce_init(buf, buf + 1, 1, MPI_INT, MPI_SUM, np + 1, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req),
               MPI_ERR_ROOT, "MPI_Reduce_init", &req);
    init_fails(MPI_Reduce_scatter_init(buf, buf + N / 2, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &req),
               MPI_ERR_ARG, "MPI_Reduce_scatter_init", &req);
    {
        int cnt[64], dsp[64] = {0};

        for (int i = 0; i < 64; i++) {
            cnt[i] = -1;
        }
        init_fails(MPI_Gatherv_init(buf, 1, MPI_INT, buf + 1, cnt, dsp, MPI_INT, np, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &req),
                   MPI_ERR_ROOT, "MPI_Gatherv_init", &req);
        init_fails(MPI_Allgatherv_init(buf, 1, MPI_INT, buf + 1, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &req),
                   MPI_ERR_COUNT, "MPI_Allgatherv_init", &req);
    }
    test_errors_vw();
    test_errors_neighbor();
    /* while active: a second start, Request_free, Cancel; then it completes normally */
    OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    OK(MPI_Start(&req));
    FAILS(MPI_Start(&req), MPI_ERR_REQUEST);
    FAILS(MPI_Startall(1, &req), MPI_ERR_REQUEST);
    FAILS(MPI_Request_free(&req), MPI_ERR_REQUEST);
    FAILS(MPI_Cancel(&req), MPI_ERR_REQUEST);
    CHECK(req != MPI_REQUEST_NULL, "a refused Request_free released the request");
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    FAILS(MPI_Cancel(&req), MPI_ERR_REQUEST); /* inactive */
    OK(MPI_Request_free(&req));
    /* a nonblocking collective's request is not persistent */
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &nb));
    FAILS(MPI_Start(&nb), MPI_ERR_REQUEST);
    OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    /* Isendrecv: bad arguments refused before anything starts */
    FAILS(MPI_Isendrecv(buf, 1, MPI_INT, np, 0, buf + 1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req),
          MPI_ERR_RANK);
    FAILS(
        MPI_Isendrecv(buf, 1, MPI_INT, 0, 0, buf + 1, 1, MPI_INT, np + 3, 0, MPI_COMM_WORLD, &req),
        MPI_ERR_RANK);
    FAILS(MPI_Isendrecv_replace(buf, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    FAILS(MPI_Isendrecv_replace(buf, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, MPI_COMM_WORLD, &req),
          MPI_ERR_TYPE);
    FAILS(MPI_Isendrecv(buf, 1, MPI_INT, 0, -2, buf + 1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req),
          MPI_ERR_TAG);
    /* nothing left behind by them: a probe finds no message */
    OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a refused Isendrecv left a message");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (np > 64) {
        printf("SKIP: at most 64 ranks (the test's arrays)\n");
        MPI_Finalize();
        return 77;
    }
    phases_expected = 8;
    test_data();
    phase("persistent bcast, gather(v), scatter(v), allgather(v)");
    test_alltoall();
    phase("persistent alltoall(v/w)");
    test_reduce();
    phase("persistent reductions and scans");
    test_startall();
    phase("Startall of several, Waitall / Testany, starts out of order, local init / start / free");
    test_neighbor();
    phase("persistent neighborhood collectives");
    test_inter();
    phase("persistent collectives over an intercommunicator");
    test_isendrecv();
    phase("Isendrecv, Isendrecv_replace");
    test_errors();
    phase("errors");
    MPI_Finalize();
    return summary();
}
