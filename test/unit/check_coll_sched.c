/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The schedule engine, in process, over a fake transport: every algorithm builds the
 * schedules of all the ranks of a 1-8 rank group (no pml, no communicator), and a simulator
 * runs them together: a rank starts its next phase (its local steps run, its messages are
 * posted) once every message of its previous phase is matched; a receive matches the oldest
 * send posted to it by its peer (MPI's order), whose length must be the same; a send
 * completes only when matched (rendezvous: the strictest transport). A round without progress
 * while a rank is not done is a deadlock. Results are checked against serial references:
 * every collective and algorithm, counts 0, 1, 7 and 100, roots 0 and n - 1, the v-variants
 * with zero counts, the scans, and a non-commutative user operation in rank order.
 */
#include "config.h"

#include "base/config_vars.h"
#include "collectives/coll.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 8
#define MAXC 100

typedef struct {
    rcmsg_coll_args_t a;
    rcmsg_coll_arena_t ar;
    rcmsg_coll_sched_t s;
    bool *matched; /* per step */
    int pending;
    bool done;
    unsigned long *seq; /* per step: when it was posted */
} sim_rank_t;

static sim_rank_t rk[MAXN];
static unsigned long post_clock;

static void run_local(rcmsg_coll_sched_t *s, const rcmsg_coll_step_t *st)
{
    if (st->kind == RCMSG_COLL_STEP_COPY) {
        memmove(st->dst, st->src, st->len);
    } else if (st->kind == RCMSG_COLL_STEP_REDUCE) {
        ck_assert_int_eq(
            rcmsg_coll_apply(s->coll, s->op, s->dtype, st->src, st->src2, st->dst, st->len),
            RCMSG_OK);
    }
}

/* Starts rank r's next phase; whether there was one. */
static bool phase_start(sim_rank_t *k)
{
    rcmsg_coll_sched_t *s = &k->s;

    if (k->pending > 0 || k->done) {
        return false;
    }
    if (s->cur >= s->nsteps) {
        k->done = true;
        return true;
    }
    s->phase = s->cur;
    while (s->cur < s->nsteps) {
        rcmsg_coll_step_t *st = &s->steps[s->cur++];
        if (st->kind == RCMSG_COLL_STEP_FENCE) {
            break;
        }
        if (st->kind == RCMSG_COLL_STEP_SEND || st->kind == RCMSG_COLL_STEP_RECV) {
            ck_assert_msg(st->peer >= 0 && st->peer < k->a.size && st->peer != k->a.rank,
                          "rank %d: a message to rank %d", k->a.rank, st->peer);
            k->seq[s->cur - 1] = ++post_clock;
            k->pending++;
        } else {
            run_local(s, st);
        }
    }
    return true;
}

/* The oldest unmatched send of rank p's phase to rank r, or -1. */
static int oldest_send(sim_rank_t *p, int r)
{
    int best = -1;

    for (int i = p->s.phase; i < p->s.cur; i++) {
        rcmsg_coll_step_t *st = &p->s.steps[i];
        if (st->kind == RCMSG_COLL_STEP_SEND && st->peer == r && !p->matched[i] &&
            (best < 0 || p->seq[i] < p->seq[best])) {
            best = i;
        }
    }
    return best;
}

/* Matches what can be matched; whether anything was. */
static bool match_all(int n)
{
    bool any = false;

    for (int r = 0; r < n; r++) {
        sim_rank_t *k = &rk[r];
        for (int i = k->s.phase; i < k->s.cur && k->pending > 0; i++) {
            rcmsg_coll_step_t *st = &k->s.steps[i];
            sim_rank_t *p;
            int j;

            if (st->kind != RCMSG_COLL_STEP_RECV || k->matched[i]) {
                continue;
            }
            p = &rk[st->peer];
            j = oldest_send(p, r);
            if (j < 0) {
                break; /* the older receives from this peer match first: keep the order */
            }
            ck_assert_msg(p->s.steps[j].len == st->len,
                          "rank %d sends %zu bytes to rank %d, which expects %zu", st->peer,
                          p->s.steps[j].len, r, st->len);
            if (st->len > 0) { /* (a zero count's buffers may be NULL) */
                memcpy(st->dst, p->s.steps[j].src, st->len);
            }
            k->matched[i] = p->matched[j] = true;
            k->pending--;
            p->pending--;
            any = true;
        }
    }
    return any;
}

/* Builds fn's schedule on each of the n ranks (args in rk[r].a) and runs them together. */
static void sim_run(int n, rcmsg_coll_fn_t fn)
{
    post_clock = 0;
    for (int r = 0; r < n; r++) {
        sim_rank_t *k = &rk[r];
        k->ar = (rcmsg_coll_arena_t){0};
        rcmsg_coll_sched_init(&k->s, &k->a, &k->ar);
        ck_assert_int_eq(fn(&k->a), RCMSG_OK);
        ck_assert_int_eq(k->s.err, RCMSG_OK);
        k->matched = calloc((size_t)k->s.nsteps + 1, sizeof(bool));
        k->seq = calloc((size_t)k->s.nsteps + 1, sizeof(unsigned long));
        k->pending = 0;
        k->done = false;
    }
    for (;;) {
        bool progress = false, all = true;
        for (int r = 0; r < n; r++) {
            progress |= phase_start(&rk[r]);
        }
        progress |= match_all(n);
        for (int r = 0; r < n; r++) {
            all &= rk[r].done;
        }
        if (all) {
            break;
        }
        ck_assert_msg(progress, "deadlock: no rank can go on (%d ranks)", n);
    }
    for (int r = 0; r < n; r++) {
        free(rk[r].matched);
        free(rk[r].seq);
        rcmsg_coll_arena_free(&rk[r].ar);
    }
}

/* ---- the collectives and their references ---- */

static int32_t in_of(int r, size_t i)
{
    return (int32_t)(r * 1000 + (int)i + 1);
}

static int32_t sbuf[MAXN][MAXN * MAXC], rbuf[MAXN][MAXN * MAXC + 64];
static size_t cnts[MAXN], dsps[MAXN], a2c[MAXN][MAXN], a2d[MAXN][MAXN];

static void setup(int n, rcmsg_coll_t coll, size_t count, int root, rcmsg_op_t op)
{
    for (int r = 0; r < n; r++) {
        for (size_t i = 0; i < (size_t)n * count; i++) {
            sbuf[r][i] = in_of(r, i);
        }
        memset(rbuf[r], 0xee, sizeof(rbuf[r]));
        rk[r].a = (rcmsg_coll_args_t){.rank = r,
                                      .size = n,
                                      .root = root,
                                      .sbuf = sbuf[r],
                                      .rbuf = rbuf[r],
                                      .count = count,
                                      .esize = 4,
                                      .dtype = RCMSG_INT32,
                                      .op = op,
                                      .coll = coll};
    }
}

static int32_t sum_at(int n, size_t i)
{
    int32_t s = 0;

    for (int r = 0; r < n; r++) {
        s += in_of(r, i);
    }
    return s;
}

static void check_coll(rcmsg_coll_t coll, int alg, rcmsg_coll_fn_t fn)
{
    static const size_t counts[] = {0, 1, 7, MAXC};

    for (int n = 1; n <= MAXN; n++) {
        for (size_t c = 0; c < 4; c++) {
            for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
                size_t count = counts[c];

                setup(n, coll, count, root, RCMSG_SUM);
                if (coll == RCMSG_COLL_BCAST) {
                    for (int r = 0; r < n; r++) {
                        for (size_t i = 0; i < count; i++) {
                            rbuf[r][i] = r == root ? in_of(root, i) : -1;
                        }
                    }
                }
                sim_run(n, fn);
                for (int r = 0; r < n; r++) {
                    for (size_t i = 0; i < (size_t)n * count; i++) {
                        int32_t got = rbuf[r][i], want = 0;
                        size_t b = i / (count ? count : 1), e = i % (count ? count : 1);
                        bool check = true;

                        switch (coll) {
                        case RCMSG_COLL_BCAST:
                            check = i < count;
                            want = in_of(root, i);
                            break;
                        case RCMSG_COLL_REDUCE:
                            check = i < count && r == root;
                            want = sum_at(n, i);
                            break;
                        case RCMSG_COLL_ALLREDUCE:
                            check = i < count;
                            want = sum_at(n, i);
                            break;
                        case RCMSG_COLL_ALLGATHER:
                        case RCMSG_COLL_GATHER:
                            check = coll == RCMSG_COLL_ALLGATHER || r == root;
                            want = in_of((int)b, e);
                            break;
                        case RCMSG_COLL_ALLTOALL:
                            want = in_of((int)b, (size_t)r * count + e);
                            break;
                        case RCMSG_COLL_SCATTER:
                            check = i < count;
                            want = in_of(root, (size_t)r * count + i);
                            break;
                        case RCMSG_COLL_REDUCE_SCATTER:
                            check = i < count;
                            want = sum_at(n, (size_t)r * count + i);
                            break;
                        default:
                            check = false;
                        }
                        ck_assert_msg(!check || got == want,
                                      "%s/%s, %d ranks, count %zu, root %d: rank %d elem %zu: "
                                      "%d, not %d",
                                      rcmsg_coll_name(coll), rcmsg_coll_algorithm_name(coll, alg),
                                      n, count, root, r, i, got, want);
                    }
                }
            }
        }
    }
}

static const struct {
    rcmsg_coll_t coll;
    int alg;
    rcmsg_coll_fn_t fn;
} algs[] = {
    {RCMSG_COLL_BARRIER, RCMSG_COLL_BARRIER_ALG_DISSEMINATION, rcmsg_coll_barrier_dissemination},
    {RCMSG_COLL_BARRIER, RCMSG_COLL_BARRIER_ALG_LINEAR, rcmsg_coll_barrier_linear},
    {RCMSG_COLL_BCAST, RCMSG_COLL_BCAST_ALG_BINOMIAL, rcmsg_coll_bcast_binomial},
    {RCMSG_COLL_BCAST, RCMSG_COLL_BCAST_ALG_LINEAR, rcmsg_coll_bcast_linear},
    {RCMSG_COLL_BCAST, RCMSG_COLL_BCAST_ALG_SCATTER_ALLGATHER, rcmsg_coll_bcast_scatter_allgather},
    {RCMSG_COLL_REDUCE, RCMSG_COLL_REDUCE_ALG_BINOMIAL, rcmsg_coll_reduce_binomial},
    {RCMSG_COLL_REDUCE, RCMSG_COLL_REDUCE_ALG_LINEAR, rcmsg_coll_reduce_linear},
    {RCMSG_COLL_REDUCE, RCMSG_COLL_REDUCE_ALG_REDUCE_SCATTER_GATHER, rcmsg_coll_reduce_rsg},
    {RCMSG_COLL_REDUCE, 0, rcmsg_coll_reduce_ordered},
    {RCMSG_COLL_ALLREDUCE, RCMSG_COLL_ALLREDUCE_ALG_RECURSIVE_DOUBLING,
     rcmsg_coll_allreduce_recursive_doubling},
    {RCMSG_COLL_ALLREDUCE, RCMSG_COLL_ALLREDUCE_ALG_RABENSEIFNER,
     rcmsg_coll_allreduce_rabenseifner},
    {RCMSG_COLL_ALLREDUCE, RCMSG_COLL_ALLREDUCE_ALG_RING, rcmsg_coll_allreduce_ring},
    {RCMSG_COLL_ALLREDUCE, RCMSG_COLL_ALLREDUCE_ALG_REDUCE_BCAST,
     rcmsg_coll_allreduce_reduce_bcast},
    {RCMSG_COLL_ALLGATHER, RCMSG_COLL_ALLGATHER_ALG_RECURSIVE_DOUBLING,
     rcmsg_coll_allgather_recursive_doubling},
    {RCMSG_COLL_ALLGATHER, RCMSG_COLL_ALLGATHER_ALG_BRUCK, rcmsg_coll_allgather_bruck},
    {RCMSG_COLL_ALLGATHER, RCMSG_COLL_ALLGATHER_ALG_RING, rcmsg_coll_allgather_ring},
    {RCMSG_COLL_ALLTOALL, RCMSG_COLL_ALLTOALL_ALG_BRUCK, rcmsg_coll_alltoall_bruck},
    {RCMSG_COLL_ALLTOALL, RCMSG_COLL_ALLTOALL_ALG_PAIRWISE, rcmsg_coll_alltoall_pairwise},
    {RCMSG_COLL_GATHER, RCMSG_COLL_GATHER_ALG_BINOMIAL, rcmsg_coll_gather_binomial},
    {RCMSG_COLL_GATHER, RCMSG_COLL_GATHER_ALG_LINEAR, rcmsg_coll_gather_linear},
    {RCMSG_COLL_SCATTER, RCMSG_COLL_SCATTER_ALG_BINOMIAL, rcmsg_coll_scatter_binomial},
    {RCMSG_COLL_SCATTER, RCMSG_COLL_SCATTER_ALG_LINEAR, rcmsg_coll_scatter_linear},
    {RCMSG_COLL_REDUCE_SCATTER, RCMSG_COLL_REDUCE_SCATTER_ALG_RECURSIVE_HALVING,
     rcmsg_coll_reduce_scatter_recursive_halving},
    {RCMSG_COLL_REDUCE_SCATTER, RCMSG_COLL_REDUCE_SCATTER_ALG_RING, rcmsg_coll_reduce_scatter_ring},
    {RCMSG_COLL_REDUCE_SCATTER, 0, rcmsg_coll_reduce_scatter_block_ordered},
};

START_TEST(test_algorithm)
{
    check_coll(algs[_i].coll, algs[_i].alg, algs[_i].fn);
}
END_TEST

/* ---- v-variants and scans ---- */

static void v_setup(int n, int coll, int root)
{
    size_t off = 2;

    for (int r = n - 1; r >= 0; r--) { /* reverse order, gaps, zeros */
        cnts[r] = (size_t)((r + root) % 3 == 1 ? 0 : r + 1);
        dsps[r] = off;
        off += cnts[r] + 1;
    }
    setup(n, (rcmsg_coll_t)coll, 0, root, RCMSG_SUM);
    for (int r = 0; r < n; r++) {
        rk[r].a.count = cnts[r];
        for (size_t i = 0; i < MAXC; i++) {
            sbuf[r][i] = in_of(r, i);
        }
        rk[r].a.rcounts = rk[r].a.scounts = cnts;
        rk[r].a.rdispls = rk[r].a.sdispls = dsps;
        if (coll == RCMSG_COLL_SCATTERV) {
            for (int q = 0; q < n; q++) {
                for (size_t i = 0; i < cnts[q]; i++) {
                    sbuf[r][dsps[q] + i] = in_of(q, i);
                }
            }
        }
    }
}

START_TEST(test_v)
{
    for (int n = 1; n <= MAXN; n++) {
        for (int root = 0; root < n; root++) {
            v_setup(n, RCMSG_COLL_GATHERV, root);
            sim_run(n, rcmsg_coll_gatherv_linear);
            for (int q = 0; q < n; q++) {
                for (size_t i = 0; i < cnts[q]; i++) {
                    ck_assert_int_eq(rbuf[root][dsps[q] + i], in_of(q, i));
                }
            }
            v_setup(n, RCMSG_COLL_SCATTERV, root);
            sim_run(n, rcmsg_coll_scatterv_linear);
            for (int r = 0; r < n; r++) {
                for (size_t i = 0; i < cnts[r]; i++) {
                    ck_assert_int_eq(rbuf[r][i], in_of(r, i));
                }
            }
        }
        v_setup(n, RCMSG_COLL_ALLGATHERV, 0);
        sim_run(n, rcmsg_coll_allgatherv_ring);
        for (int r = 0; r < n; r++) {
            for (int q = 0; q < n; q++) {
                for (size_t i = 0; i < cnts[q]; i++) {
                    ck_assert_int_eq(rbuf[r][dsps[q] + i], in_of(q, i));
                }
                ck_assert_int_eq(rbuf[r][dsps[q] - 1], (int32_t)0xeeeeeeee); /* the gaps */
            }
        }
        /* alltoallv: rank r and rank q exchange (r + q) % 3 elements each way */
        v_setup(n, RCMSG_COLL_ALLTOALLV, 0);
        for (int r = 0; r < n; r++) {
            for (int q = 0; q < n; q++) {
                a2c[r][q] = (size_t)((r + q) % 3);
                a2d[r][q] = (size_t)(n - 1 - q) * 4 + 1;
                for (size_t i = 0; i < a2c[r][q]; i++) {
                    sbuf[r][a2d[r][q] + i] = in_of(r, (size_t)q * 10 + i);
                }
            }
            rk[r].a.scounts = rk[r].a.rcounts = a2c[r];
            rk[r].a.sdispls = rk[r].a.rdispls = a2d[r];
        }
        sim_run(n, rcmsg_coll_alltoallv_pairwise);
        for (int r = 0; r < n; r++) {
            for (int q = 0; q < n; q++) {
                for (size_t i = 0; i < a2c[r][q]; i++) {
                    ck_assert_int_eq(rbuf[r][a2d[r][q] + i], in_of(q, (size_t)r * 10 + i));
                }
            }
        }
    }
}
END_TEST

/* neighbor_alltoallv: rank r sends 1 then 2 elements to r + 1 (a PROC_NULL between), and
 * receives them from r - 1 in that order (a PROC_NULL after): the k-th message to a rank
 * meets its k-th receive from this one; PROC_NULL blocks untouched */
START_TEST(test_neighbor)
{
    static const size_t sc[3] = {1, 1, 2}, sd[3] = {0, 1, 3}, rc[3] = {1, 2, 1}, rd[3] = {0, 2, 5};
    static int dsts[MAXN][3], srcs[MAXN][3];
    static rcmsg_coll_nbr_t nb[MAXN];

    for (int n = 2; n <= MAXN; n++) { /* (this transport has no message to oneself) */
        setup(n, (rcmsg_coll_t)RCMSG_COLL_NEIGHBOR_ALLTOALLV, 0, 0, RCMSG_SUM);
        for (int r = 0; r < n; r++) {
            int next = (r + 1) % n, prev = (r - 1 + n) % n;

            memcpy(dsts[r], (int[]){next, RCMSG_PROC_NULL, next}, sizeof(dsts[r]));
            memcpy(srcs[r], (int[]){prev, prev, RCMSG_PROC_NULL}, sizeof(srcs[r]));
            nb[r] = (rcmsg_coll_nbr_t){.nsrc = 3, .ndst = 3, .srcs = srcs[r], .dsts = dsts[r]};
            rk[r].a.nbr = &nb[r];
            for (size_t i = 0; i < 5; i++) {
                sbuf[r][i] = in_of(r, i);
            }
            rk[r].a.scounts = sc, rk[r].a.sdispls = sd;
            rk[r].a.rcounts = rc, rk[r].a.rdispls = rd;
        }
        sim_run(n, rcmsg_coll_neighbor_alltoallv);
        for (int r = 0; r < n; r++) {
            int prev = (r - 1 + n) % n;

            ck_assert_int_eq(rbuf[r][0], in_of(prev, 0));
            ck_assert_int_eq(rbuf[r][2], in_of(prev, 3));
            ck_assert_int_eq(rbuf[r][3], in_of(prev, 4));
            ck_assert_int_eq(rbuf[r][1], (int32_t)0xeeeeeeee);
            ck_assert_int_eq(rbuf[r][5], (int32_t)0xeeeeeeee); /* PROC_NULL's block */
        }
    }
}
END_TEST

START_TEST(test_scans)
{
    for (int n = 1; n <= MAXN; n++) {
        for (int ex = 0; ex < 2; ex++) {
            setup(n, (rcmsg_coll_t)(ex ? RCMSG_COLL_EXSCAN : RCMSG_COLL_SCAN), 7, 0, RCMSG_SUM);
            sim_run(n, rcmsg_coll_scan_recursive_doubling);
            for (int r = ex; r < n; r++) {
                for (size_t i = 0; i < 7; i++) {
                    int32_t want = 0;
                    for (int q = 0; q <= r - ex; q++) {
                        want += in_of(q, i);
                    }
                    ck_assert_int_eq(rbuf[r][i], want);
                }
            }
            if (ex) {
                ck_assert_int_eq(rbuf[0][0], (int32_t)0xeeeeeeee); /* rank 0's untouched */
            }
        }
        /* reduce_scatter with zero counts */
        v_setup(n, RCMSG_COLL_REDUCE_SCATTER_V, 0);
        for (int r = 0; r < n; r++) {
            size_t total = 0;
            for (int q = 0; q < n; q++) {
                total += cnts[q];
            }
            rk[r].a.count = total;
        }
        sim_run(n, rcmsg_coll_reduce_scatter_v);
        for (int r = 0, off = 0; r < n; off += (int)cnts[r], r++) {
            for (size_t i = 0; i < cnts[r]; i++) {
                ck_assert_int_eq(rbuf[r][i], sum_at(n, (size_t)off + i));
            }
        }
    }
}
END_TEST

/* A non-commutative op: x (.) y = the affine map t -> x.a * (y.a * t + y.b) + x.b, as pairs;
 * composition keeps order, so the ranks' maps must compose as r0 (.) r1 (.) ... */
static void compose(const void *in, void *inout, size_t count, rcmsg_datatype_t dt, rcmsg_op_t op)
{
    const uint32_t *x = in;
    uint32_t *y = inout;

    (void)dt;
    (void)op;
    for (size_t i = 0; i < count; i++) {
        uint32_t a = x[2 * i] * y[2 * i], b = x[2 * i] * y[2 * i + 1] + x[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

START_TEST(test_noncommutative)
{
    rcmsg_op_t op;
    rcmsg_datatype_t pair;
    static const rcmsg_coll_fn_t fns[] = {rcmsg_coll_reduce_ordered,
                                          rcmsg_coll_allreduce_reduce_bcast,
                                          rcmsg_coll_scan_recursive_doubling};

    ck_assert_int_eq(rcmsg_op_create(compose, 0, &op), RCMSG_OK);
    ck_assert_int_eq(rcmsg_datatype_create(8, &pair), RCMSG_OK);
    ck_assert(!rcmsg_coll_op_commutes(op));
    for (int n = 1; n <= MAXN; n++) {
        for (size_t f = 0; f < 3; f++) {
            int root = (int)f == 0 ? n - 1 : 0;
            rcmsg_coll_t coll = f == 0   ? RCMSG_COLL_REDUCE
                                : f == 1 ? RCMSG_COLL_ALLREDUCE
                                         : (rcmsg_coll_t)RCMSG_COLL_SCAN;

            setup(n, coll, 3, root, op);
            for (int r = 0; r < n; r++) {
                rk[r].a.esize = 8;
                rk[r].a.dtype = pair;
                for (size_t i = 0; i < 3; i++) {
                    sbuf[r][2 * i] = 2 * r + 3 + (int32_t)i;
                    sbuf[r][2 * i + 1] = r + 1;
                }
            }
            sim_run(n, fns[f]);
            for (int r = 0; r < n; r++) {
                int upto = f == 2 ? r + 1 : n;
                if (f == 0 && r != root) {
                    continue;
                }
                for (size_t i = 0; i < 3; i++) {
                    uint32_t a = 1, b = 0; /* the identity map, then compose on the right */
                    for (int q = 0; q < upto; q++) {
                        uint32_t qa = (uint32_t)(2 * q + 3 + (int)i), qb = (uint32_t)(q + 1);
                        b = a * qb + b;
                        a = a * qa;
                    }
                    ck_assert_uint_eq((uint32_t)rbuf[r][2 * i], a);
                    ck_assert_uint_eq((uint32_t)rbuf[r][2 * i + 1], b);
                }
            }
        }
    }
    rcmsg_op_free(&op);
    rcmsg_datatype_free(&pair);
}
END_TEST

/* The blocking path's memory: an arena emptied and kept, one chunk once it has grown. */
START_TEST(test_arena)
{
    rcmsg_coll_arena_t ar = {0};
    void *p = rcmsg_coll_arena_get(&ar, 10), *q = rcmsg_coll_arena_get(&ar, 100000);
    unsigned long allocs;

    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(q);
    ck_assert_uint_eq((uintptr_t)q % 16, 0);
    rcmsg_coll_arena_reset(&ar);
    allocs = ar.allocs;
    for (int i = 0; i < 10; i++) {
        ck_assert_ptr_nonnull(rcmsg_coll_arena_get(&ar, 10));
        ck_assert_ptr_nonnull(rcmsg_coll_arena_get(&ar, 100000));
        rcmsg_coll_arena_reset(&ar);
    }
    ck_assert_uint_eq(ar.allocs, allocs);
    rcmsg_coll_arena_free(&ar);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_sched");
    TCase *tc = tcase_create("engine");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_algorithm, 0, (int)(sizeof(algs) / sizeof(algs[0])));
    tcase_add_test(tc, test_v);
    tcase_add_test(tc, test_neighbor);
    tcase_add_test(tc, test_scans);
    tcase_add_test(tc, test_noncommutative);
    tcase_add_test(tc, test_arena);
    suite_add_tcase(s, tc);
    return ck_run(s);
}
