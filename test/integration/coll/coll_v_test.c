/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives of issue 39, checked against serial references every rank computes:
 *   - gatherv (every root), scatterv (every root), allgatherv, alltoallv with uneven counts,
 *     zero counts among them and displacements in reverse order with gaps; in place too;
 *   - reduce_scatter with uneven and zero counts, scan, exscan;
 *   - user operations on a created datatype: a non-commutative one (2x2 matrix product of
 *     uint32, wrapping) whose results must be the rank-ordered product, through reduce (every
 *     root), allreduce, reduce_scatter_block, reduce_scatter, scan and exscan; a commutative
 *     one (a sum) through every forced algorithm of reduce, allreduce, reduce_scatter_block,
 *     and a short allreduce with it on auto: reduce_bcast when more than 2 ranks share CPUs;
 *   - the nonblocking forms: every one started at once on one communicator (16 outstanding),
 *     mixed with point-to-point around a ring and a blocking collective, completed by
 *     rcmsg_waitall, and again by an rcmsg_test loop; an op and a datatype freed while their
 *     collective runs; rcmsg_cancel refused;
 *   - bad arguments: a predefined op on a created datatype, a NULL request, NULL arrays.
 * Prints "rank R of N: F failure(s)" and exits non-zero on any failure.
 */
#include "base/config_vars.h"
#include "collectives/coll.h"
#include "progress/progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
static rcmsg_comm_t world;

#include "../test_check.h"

#define MAXR 64

/* ---- v-variants ---- */

/* rank i's count in a v-call (salt varies the pattern): zeros among them */
static size_t vcount(int i, int salt)
{
    return (size_t)((i + salt) % 3 == 1 ? 0 : (i * 7 + salt) % 5 + 1);
}

static int32_t val(int r, size_t i, int salt)
{
    return (int32_t)(r * 100000 + (int)i * 13 + salt);
}

/* displacements: blocks in reverse rank order, a gap of 2 between them; the extent */
static size_t vdispls(const size_t *cnt, size_t *dsp)
{
    size_t off = 1;

    for (int i = size - 1; i >= 0; i--) {
        dsp[i] = off;
        off += cnt[i] + 2;
    }
    return off;
}

static void test_gatherv(int root, bool in_place, bool nb)
{
    size_t cnt[MAXR] = {0}, dsp[MAXR], ext;
    int32_t sbuf[8], rbuf[512];
    rcmsg_request_t req;
    rcmsg_status_t s;

    for (int i = 0; i < size; i++) {
        cnt[i] = vcount(i, root);
    }
    ext = vdispls(cnt, dsp);
    for (size_t i = 0; i < cnt[rank]; i++) {
        sbuf[i] = val(rank, i, root);
    }
    for (size_t i = 0; i < ext; i++) {
        rbuf[i] = -1;
    }
    in_place = in_place && rank == root;
    if (in_place) {
        memcpy(rbuf + dsp[rank], sbuf, cnt[rank] * sizeof(int32_t));
    }
    if (nb) {
        s = rcmsg_igatherv(in_place ? RCMSG_IN_PLACE : sbuf, cnt[rank], rbuf, cnt, dsp, RCMSG_INT32,
                           root, world, &req);
        s = s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    } else {
        s = rcmsg_gatherv(in_place ? RCMSG_IN_PLACE : sbuf, cnt[rank], rbuf, cnt, dsp, RCMSG_INT32,
                          root, world);
    }
    CHECK(s == RCMSG_OK, "gatherv root %d: %s", root, rcmsg_status_name(s));
    for (int r = 0; r < size && rank == root; r++) {
        for (size_t i = 0; i < cnt[r]; i++) {
            CHECK(rbuf[dsp[r] + i] == val(r, i, root), "gatherv root %d: rank %d elem %zu", root, r,
                  i);
        }
        CHECK(rbuf[dsp[r] - 1] == -1, "gatherv root %d: the gap before rank %d written", root, r);
    }
}

static void test_scatterv(int root, bool in_place, bool nb)
{
    size_t cnt[MAXR] = {0}, dsp[MAXR], ext, mine;
    int32_t sbuf[512], rbuf[8] = {0};
    rcmsg_request_t req;
    rcmsg_status_t s;
    void *rb = rbuf;

    for (int i = 0; i < size; i++) {
        cnt[i] = vcount(i, root + 1);
    }
    ext = vdispls(cnt, dsp);
    for (int r = 0; r < size; r++) {
        for (size_t i = 0; i < cnt[r]; i++) {
            sbuf[dsp[r] + i] = val(r, i, root + 7);
        }
    }
    (void)ext;
    mine = cnt[rank];
    if (in_place && rank == root) {
        rb = RCMSG_IN_PLACE;
    }
    if (nb) {
        s = rcmsg_iscatterv(sbuf, cnt, dsp, rb, mine, RCMSG_INT32, root, world, &req);
        s = s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    } else {
        s = rcmsg_scatterv(sbuf, cnt, dsp, rb, mine, RCMSG_INT32, root, world);
    }
    CHECK(s == RCMSG_OK, "scatterv root %d: %s", root, rcmsg_status_name(s));
    for (size_t i = 0; i < mine && rb != RCMSG_IN_PLACE; i++) {
        CHECK(rbuf[i] == val(rank, i, root + 7), "scatterv root %d: elem %zu", root, i);
    }
}

static void test_allgatherv(bool in_place, bool nb)
{
    size_t cnt[MAXR] = {0}, dsp[MAXR], ext;
    int32_t sbuf[8], rbuf[512];
    rcmsg_request_t req;
    rcmsg_status_t s;

    for (int i = 0; i < size; i++) {
        cnt[i] = vcount(i, 2);
    }
    ext = vdispls(cnt, dsp);
    for (size_t i = 0; i < ext; i++) {
        rbuf[i] = -1;
    }
    for (size_t i = 0; i < cnt[rank]; i++) {
        sbuf[i] = val(rank, i, 2);
        if (in_place) {
            rbuf[dsp[rank] + i] = sbuf[i];
        }
    }
    if (nb) {
        s = rcmsg_iallgatherv(in_place ? RCMSG_IN_PLACE : sbuf, cnt[rank], rbuf, cnt, dsp,
                              RCMSG_INT32, world, &req);
        s = s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    } else {
        s = rcmsg_allgatherv(in_place ? RCMSG_IN_PLACE : sbuf, cnt[rank], rbuf, cnt, dsp,
                             RCMSG_INT32, world);
    }
    CHECK(s == RCMSG_OK, "allgatherv: %s", rcmsg_status_name(s));
    for (int r = 0; r < size; r++) {
        for (size_t i = 0; i < cnt[r]; i++) {
            CHECK(rbuf[dsp[r] + i] == val(r, i, 2), "allgatherv: rank %d elem %zu", r, i);
        }
        CHECK(rbuf[dsp[r] - 1] == -1, "allgatherv: the gap before rank %d written", r);
    }
}

/* rank i sends (i + j) % 4 elements to rank j (zeros among them) */
static void test_alltoallv(bool in_place, bool nb)
{
    size_t sc[MAXR] = {0}, sd[MAXR], rc[MAXR] = {0}, rd[MAXR], sext, rext;
    int32_t sbuf[512], rbuf[512];
    rcmsg_request_t req;
    rcmsg_status_t s;

    for (int j = 0; j < size; j++) {
        sc[j] = (size_t)((rank + j) % 4);
        rc[j] = (size_t)((j + rank) % 4);
    }
    sext = vdispls(sc, sd);
    rext = vdispls(rc, rd);
    for (int j = 0; j < size; j++) {
        for (size_t i = 0; i < sc[j]; i++) {
            sbuf[sd[j] + i] = val(rank, i, 1000 + j);
        }
    }
    for (size_t i = 0; i < rext; i++) {
        rbuf[i] = -1;
    }
    if (in_place) { /* the blocks to send in rbuf, laid out as the receive */
        for (int j = 0; j < size; j++) {
            memcpy(rbuf + rd[j], sbuf + sd[j], sc[j] * sizeof(int32_t));
        }
    }
    (void)sext;
    if (nb) {
        s = rcmsg_ialltoallv(in_place ? RCMSG_IN_PLACE : sbuf, sc, sd, rbuf, rc, rd, RCMSG_INT32,
                             world, &req);
        s = s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    } else {
        s = rcmsg_alltoallv(in_place ? RCMSG_IN_PLACE : sbuf, sc, sd, rbuf, rc, rd, RCMSG_INT32,
                            world);
    }
    CHECK(s == RCMSG_OK, "alltoallv: %s", rcmsg_status_name(s));
    for (int j = 0; j < size; j++) {
        for (size_t i = 0; i < rc[j]; i++) {
            CHECK(rbuf[rd[j] + i] == val(j, i, 1000 + rank), "alltoallv%s: from %d elem %zu",
                  in_place ? " in place" : "", j, i);
        }
    }
}

/* ---- reductions: int32 sums, and a non-commutative user op on a created datatype ---- */

typedef struct {
    uint32_t m[4]; /* a b / c d */
} mat_t;

static rcmsg_datatype_t mat_type;
static rcmsg_op_t mat_op, add_op;
static long mat_calls;

static void mat_mul(const mat_t *x, const mat_t *y, mat_t *out)
{
    mat_t r = {{x->m[0] * y->m[0] + x->m[1] * y->m[2], x->m[0] * y->m[1] + x->m[1] * y->m[3],
                x->m[2] * y->m[0] + x->m[3] * y->m[2], x->m[2] * y->m[1] + x->m[3] * y->m[3]}};
    *out = r;
}

/* inout = in x inout: in holds the lower ranks' product */
static void mat_fn(const void *in, void *inout, size_t count, rcmsg_datatype_t dtype, rcmsg_op_t op)
{
    CHECK(dtype == mat_type && op == mat_op, "the matrix op called with another dtype or op");
    for (size_t i = 0; i < count; i++) {
        mat_mul((const mat_t *)in + i, (mat_t *)inout + i, (mat_t *)inout + i);
    }
    mat_calls++;
}

/* a commutative user op: element-wise uint32 sum of the four entries */
static void add_fn(const void *in, void *inout, size_t count, rcmsg_datatype_t dtype, rcmsg_op_t op)
{
    (void)dtype;
    (void)op;
    for (size_t i = 0; i < count * 4; i++) {
        ((uint32_t *)inout)[i] += ((const uint32_t *)in)[i];
    }
}

static mat_t mat_of(int r, size_t i)
{
    mat_t m = {{(uint32_t)(r + 2 + i), 1u, (uint32_t)(2 * r + 1), (uint32_t)(i + 3)}};
    return m;
}

/* the rank-ordered product over ranks [lo, hi) of element i */
static mat_t mat_prod(int lo, int hi, size_t i)
{
    mat_t p = mat_of(lo, i);

    for (int r = lo + 1; r < hi; r++) {
        mat_t q = mat_of(r, i);
        mat_mul(&p, &q, &p);
    }
    return p;
}

static mat_t mat_sum(size_t i)
{
    mat_t p = {{0}};

    for (int r = 0; r < size; r++) {
        for (int k = 0; k < 4; k++) {
            p.m[k] += mat_of(r, i).m[k];
        }
    }
    return p;
}

static bool mat_eq(const mat_t *x, const mat_t *y)
{
    return memcmp(x, y, sizeof(*x)) == 0;
}

#define NMAT 5

static void test_mat_reduce(rcmsg_op_t op, bool nb)
{
    mat_t in[NMAT * MAXR], out[NMAT * MAXR];
    size_t cnt[MAXR];
    rcmsg_request_t req;
    rcmsg_status_t s;
    bool ordered = op == mat_op;
    const char *name = ordered ? "matrix product" : "matrix sum";

    for (size_t i = 0; i < NMAT * (size_t)size; i++) {
        in[i] = mat_of(rank, i);
    }
    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof(out));
        s = nb ? rcmsg_ireduce(in, out, NMAT, mat_type, op, root, world, &req)
               : rcmsg_reduce(in, out, NMAT, mat_type, op, root, world);
        s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
        CHECK(s == RCMSG_OK, "reduce (%s) root %d: %s", name, root, rcmsg_status_name(s));
        for (size_t i = 0; i < NMAT && rank == root; i++) {
            mat_t e = ordered ? mat_prod(0, size, i) : mat_sum(i);
            CHECK(mat_eq(&out[i], &e), "reduce (%s) root %d: elem %zu", name, root, i);
        }
    }
    memset(out, 0, sizeof(out));
    s = nb ? rcmsg_iallreduce(in, out, NMAT, mat_type, op, world, &req)
           : rcmsg_allreduce(in, out, NMAT, mat_type, op, world);
    s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    CHECK(s == RCMSG_OK, "allreduce (%s): %s", name, rcmsg_status_name(s));
    for (size_t i = 0; i < NMAT; i++) {
        mat_t e = ordered ? mat_prod(0, size, i) : mat_sum(i);
        CHECK(mat_eq(&out[i], &e), "allreduce (%s): elem %zu", name, i);
    }
    s = nb ? rcmsg_ireduce_scatter_block(in, out, NMAT, mat_type, op, world, &req)
           : rcmsg_reduce_scatter_block(in, out, NMAT, mat_type, op, world);
    s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    CHECK(s == RCMSG_OK, "reduce_scatter_block (%s): %s", name, rcmsg_status_name(s));
    for (size_t i = 0; i < NMAT; i++) {
        size_t g = (size_t)rank * NMAT + i;
        mat_t e = ordered ? mat_prod(0, size, g) : mat_sum(g);
        CHECK(mat_eq(&out[i], &e), "reduce_scatter_block (%s): elem %zu", name, i);
    }
    for (int i = 0; i < size; i++) {
        cnt[i] = vcount(i, 0);
    }
    s = nb ? rcmsg_ireduce_scatter(in, out, cnt, mat_type, op, world, &req)
           : rcmsg_reduce_scatter(in, out, cnt, mat_type, op, world);
    s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    CHECK(s == RCMSG_OK, "reduce_scatter (%s): %s", name, rcmsg_status_name(s));
    size_t off = 0;
    for (int r = 0; r < rank; r++) {
        off += cnt[r];
    }
    for (size_t i = 0; i < cnt[rank]; i++) {
        mat_t e = ordered ? mat_prod(0, size, off + i) : mat_sum(off + i);
        CHECK(mat_eq(&out[i], &e), "reduce_scatter (%s): elem %zu", name, i);
    }
    if (!ordered) {
        return;
    }
    s = nb ? rcmsg_iscan(in, out, NMAT, mat_type, op, world, &req)
           : rcmsg_scan(in, out, NMAT, mat_type, op, world);
    s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    CHECK(s == RCMSG_OK, "scan (%s): %s", name, rcmsg_status_name(s));
    for (size_t i = 0; i < NMAT; i++) {
        mat_t e = mat_prod(0, rank + 1, i);
        CHECK(mat_eq(&out[i], &e), "scan (%s): elem %zu", name, i);
    }
    memset(out, 0x5a, sizeof(out));
    s = nb ? rcmsg_iexscan(in, out, NMAT, mat_type, op, world, &req)
           : rcmsg_exscan(in, out, NMAT, mat_type, op, world);
    s = nb && s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
    CHECK(s == RCMSG_OK, "exscan (%s): %s", name, rcmsg_status_name(s));
    for (size_t i = 0; i < NMAT; i++) {
        mat_t e = rank == 0 ? (mat_t){{0x5a5a5a5au, 0x5a5a5a5au, 0x5a5a5a5au, 0x5a5a5a5au}}
                            : mat_prod(0, rank, i);
        CHECK(mat_eq(&out[i], &e), "exscan (%s): elem %zu%s", name, i,
              rank == 0 ? " (rank 0's must stay untouched)" : "");
    }
}

/* int32 sums: scan, exscan (in place too), reduce_scatter with zero counts */
static void test_int_scans(void)
{
    int32_t in[16], out[16], e;
    size_t cnt[MAXR], total = 0, off = 0;

    for (int i = 0; i < 16; i++) {
        in[i] = val(rank, (size_t)i, 5);
    }
    CHECK(rcmsg_scan(in, out, 16, RCMSG_INT32, RCMSG_SUM, world) == RCMSG_OK, "scan int32");
    for (int i = 0; i < 16; i++) {
        e = 0;
        for (int r = 0; r <= rank; r++) {
            e += val(r, (size_t)i, 5);
        }
        CHECK(out[i] == e, "scan int32 elem %d", i);
    }
    memcpy(out, in, sizeof(in));
    CHECK(rcmsg_exscan(RCMSG_IN_PLACE, out, 16, RCMSG_INT32, RCMSG_SUM, world) == RCMSG_OK,
          "exscan int32 in place");
    for (int i = 0; i < 16 && rank > 0; i++) {
        e = 0;
        for (int r = 0; r < rank; r++) {
            e += val(r, (size_t)i, 5);
        }
        CHECK(out[i] == e, "exscan int32 in place elem %d", i);
    }
    for (int i = 0; i < size; i++) {
        cnt[i] = (size_t)(i % 2 == 0 ? 1 : 0) + (size_t)(16 / size / 2);
        total += cnt[i];
        off += i < rank ? cnt[i] : 0;
    }
    memcpy(out, in, sizeof(in));
    CHECK(rcmsg_reduce_scatter(RCMSG_IN_PLACE, out, cnt, RCMSG_INT32, RCMSG_SUM, world) == RCMSG_OK,
          "reduce_scatter int32 in place");
    for (size_t i = 0; i < cnt[rank]; i++) {
        e = 0;
        for (int r = 0; r < size; r++) {
            e += val(r, off + i, 5);
        }
        CHECK(out[i] == e, "reduce_scatter int32 in place elem %zu (of %zu)", i, total);
    }
}

/* The commutative user op through every forced algorithm of the reductions. */
static void test_user_algorithms(void)
{
    static const rcmsg_coll_t colls[] = {RCMSG_COLL_REDUCE, RCMSG_COLL_ALLREDUCE,
                                         RCMSG_COLL_REDUCE_SCATTER};

    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
        for (int alg = 1; alg <= rcmsg_coll_algorithm_count(colls[c]); alg++) {
            rcmsg_coll_algorithm_force(colls[c], alg);
            test_mat_reduce(add_op, false);
        }
        rcmsg_coll_algorithm_force(colls[c], RCMSG_COLL_ALG_AUTO);
    }
    { /* auto, a short one: reduce_bcast where ranks share CPUs (more than 2 ranks) */
        mat_t in = mat_of(rank, 0), out, want = mat_sum(0);
        bool rb = size > 2 && rcmsg_progress_oversubscribed();

        CHECK(rcmsg_allreduce(&in, &out, 1, mat_type, add_op, world) == RCMSG_OK &&
                  mat_eq(&out, &want),
              "allreduce, a user op, auto");
        CHECK((rcmsg_coll_algorithm_last(RCMSG_COLL_ALLREDUCE) ==
               RCMSG_COLL_ALLREDUCE_ALG_REDUCE_BCAST) == rb,
              "a short allreduce with a user op, %d ranks%s: auto chose %s", size,
              rcmsg_progress_oversubscribed() ? ", oversubscribed" : "",
              rcmsg_coll_algorithm_name(RCMSG_COLL_ALLREDUCE,
                                        rcmsg_coll_algorithm_last(RCMSG_COLL_ALLREDUCE)));
    }
}

/* ---- nonblocking: every kind outstanding at once, with point-to-point ---- */

#define NB_N 24

static void test_nb_all(bool by_test)
{
    int32_t bc[NB_N], red[NB_N], ar[NB_N], ag[NB_N * MAXR], a2a_s[MAXR], a2a_r[MAXR], a2av_r[MAXR];
    int32_t ga[MAXR], sc_s[MAXR], sc_r, rsb_s[MAXR], rsb_r, in[NB_N], scn[NB_N], exs[NB_N];
    int32_t gv_s[8], gv_r[512], agv_r[512], p2p_s = rank, p2p_r = -1, blk[NB_N];
    size_t cnt[MAXR] = {0}, dsp[MAXR], one[MAXR], oned[MAXR];
    rcmsg_request_t reqs[32];
    int n = 0, flag = 0, root = size - 1;
    rcmsg_status_t s;

    for (int i = 0; i < NB_N; i++) {
        in[i] = val(rank, (size_t)i, 9);
        bc[i] = rank == root ? val(root, (size_t)i, 3) : -1;
        blk[i] = in[i];
    }
    for (int j = 0; j < size; j++) {
        a2a_s[j] = val(rank, 0, j);
        sc_s[j] = val(j, 0, 44);
        rsb_s[j] = val(rank, (size_t)j, 6);
        cnt[j] = vcount(j, 1);
        one[j] = 1;
        oned[j] = (size_t)j;
    }
    vdispls(cnt, dsp);
    for (size_t i = 0; i < cnt[rank]; i++) {
        gv_s[i] = val(rank, i, 77);
    }
    /* a ring of point-to-point first: its receive stays posted across the collectives */
    CHECK(rcmsg_irecv(&p2p_r, sizeof(p2p_r), (rank - 1 + size) % size, 5, world, &reqs[n++]) ==
              RCMSG_OK,
          "irecv");
    CHECK(rcmsg_ibarrier(world, &reqs[n++]) == RCMSG_OK, "ibarrier");
    CHECK(rcmsg_ibcast(bc, NB_N, RCMSG_INT32, root, world, &reqs[n++]) == RCMSG_OK, "ibcast");
    CHECK(rcmsg_ireduce(in, red, NB_N, RCMSG_INT32, RCMSG_SUM, 0, world, &reqs[n++]) == RCMSG_OK,
          "ireduce");
    CHECK(rcmsg_iallreduce(in, ar, NB_N, RCMSG_INT32, RCMSG_MAX, world, &reqs[n++]) == RCMSG_OK,
          "iallreduce");
    CHECK(rcmsg_iallgather(in, ag, NB_N, RCMSG_INT32, world, &reqs[n++]) == RCMSG_OK, "iallgather");
    CHECK(rcmsg_ialltoall(a2a_s, a2a_r, 1, RCMSG_INT32, world, &reqs[n++]) == RCMSG_OK,
          "ialltoall");
    CHECK(rcmsg_igather(in, ga, 1, RCMSG_INT32, root, world, &reqs[n++]) == RCMSG_OK, "igather");
    CHECK(rcmsg_iscatter(sc_s, &sc_r, 1, RCMSG_INT32, root, world, &reqs[n++]) == RCMSG_OK,
          "iscatter");
    CHECK(rcmsg_ireduce_scatter_block(rsb_s, &rsb_r, 1, RCMSG_INT32, RCMSG_SUM, world,
                                      &reqs[n++]) == RCMSG_OK,
          "ireduce_scatter_block");
    CHECK(rcmsg_isend(&p2p_s, sizeof(p2p_s), (rank + 1) % size, 5, world, &reqs[n++]) == RCMSG_OK,
          "isend");
    CHECK(rcmsg_igatherv(gv_s, cnt[rank], gv_r, cnt, dsp, RCMSG_INT32, 0, world, &reqs[n++]) ==
              RCMSG_OK,
          "igatherv");
    CHECK(rcmsg_iallgatherv(gv_s, cnt[rank], agv_r, cnt, dsp, RCMSG_INT32, world, &reqs[n++]) ==
              RCMSG_OK,
          "iallgatherv");
    CHECK(rcmsg_iscan(in, scn, NB_N, RCMSG_INT32, RCMSG_SUM, world, &reqs[n++]) == RCMSG_OK,
          "iscan");
    CHECK(rcmsg_iexscan(in, exs, NB_N, RCMSG_INT32, RCMSG_SUM, world, &reqs[n++]) == RCMSG_OK,
          "iexscan");
    /* a blocking collective on the same communicator while they are outstanding */
    s = rcmsg_allreduce(RCMSG_IN_PLACE, blk, NB_N, RCMSG_INT32, RCMSG_SUM, world);
    CHECK(s == RCMSG_OK, "blocking allreduce among nonblocking ones: %s", rcmsg_status_name(s));
    CHECK(rcmsg_ialltoallv(a2a_s, one, oned, a2av_r, one, oned, RCMSG_INT32, world, &reqs[n]) ==
              RCMSG_OK,
          "ialltoallv");
    {
        rcmsg_request_t c = reqs[n];
        CHECK(rcmsg_cancel(&c) == RCMSG_ERR_INVALID_PARAM, "rcmsg_cancel of a collective");
    }
    n++;
    if (by_test) {
        for (long spins = 0; !flag && spins < 100000000L; spins++) {
            CHECK(rcmsg_testall((size_t)n, reqs, &flag, NULL) == RCMSG_OK, "testall");
        }
        CHECK(flag, "testall never completed the nonblocking collectives");
    } else {
        s = rcmsg_waitall((size_t)n, reqs, NULL);
        CHECK(s == RCMSG_OK, "waitall: %s", rcmsg_status_name(s));
    }
    CHECK(p2p_r == (rank - 1 + size) % size, "ring message among the collectives");
    for (int i = 0; i < NB_N; i++) {
        int32_t sum = 0, mx = INT32_MIN, pre = 0;
        for (int r = 0; r < size; r++) {
            int32_t v = val(r, (size_t)i, 9);
            sum += v;
            mx = v > mx ? v : mx;
            pre += r <= rank ? v : 0;
            CHECK(ag[r * NB_N + i] == v, "iallgather rank %d elem %d", r, i);
        }
        CHECK(bc[i] == val(root, (size_t)i, 3), "ibcast elem %d", i);
        CHECK(rank != 0 || red[i] == sum, "ireduce elem %d", i);
        CHECK(ar[i] == mx, "iallreduce max elem %d", i);
        CHECK(blk[i] == sum, "blocking allreduce elem %d", i);
        CHECK(scn[i] == pre, "iscan elem %d", i);
        CHECK(rank == 0 || exs[i] == pre - in[i], "iexscan elem %d", i);
    }
    int32_t rs = 0;
    for (int r = 0; r < size; r++) {
        rs += val(r, (size_t)rank, 6);
    }
    CHECK(rsb_r == rs, "ireduce_scatter_block");
    for (int j = 0; j < size; j++) {
        CHECK(a2a_r[j] == val(j, 0, rank), "ialltoall from %d", j);
        CHECK(a2av_r[j] == val(j, 0, rank), "ialltoallv from %d", j);
        CHECK(rank != root || ga[j] == val(j, 0, 9), "igather from %d", j);
        for (size_t i = 0; i < cnt[j]; i++) {
            CHECK(rank != 0 || gv_r[dsp[j] + i] == val(j, i, 77), "igatherv from %d", j);
            CHECK(agv_r[dsp[j] + i] == val(j, i, 77), "iallgatherv from %d", j);
        }
    }
    CHECK(sc_r == val(rank, 0, 44), "iscatter");
}

/* An op and a datatype freed while their nonblocking collective runs: it still completes. */
static void test_nb_free_during(void)
{
    rcmsg_datatype_t t;
    rcmsg_op_t op;
    mat_t in[NMAT], out[NMAT];
    rcmsg_request_t req;

    CHECK(rcmsg_datatype_create(sizeof(mat_t), &t) == RCMSG_OK, "datatype_create");
    CHECK(rcmsg_op_create(add_fn, 1, &op) == RCMSG_OK, "op_create");
    for (size_t i = 0; i < NMAT; i++) {
        in[i] = mat_of(rank, i);
    }
    CHECK(rcmsg_iallreduce(in, out, NMAT, t, op, world, &req) == RCMSG_OK, "iallreduce");
    CHECK(rcmsg_op_free(&op) == RCMSG_OK && op == RCMSG_OP_NULL, "op_free during a collective");
    CHECK(rcmsg_datatype_free(&t) == RCMSG_OK && t == RCMSG_DATATYPE_NULL,
          "datatype_free during a collective");
    CHECK(rcmsg_wait(&req, NULL) == RCMSG_OK, "iallreduce with its op and datatype freed");
    for (size_t i = 0; i < NMAT; i++) {
        mat_t e = mat_sum(i);
        CHECK(mat_eq(&out[i], &e), "iallreduce with a freed op: elem %zu: %u %u vs %u %u", i,
              out[i].m[0], out[i].m[1], e.m[0], e.m[1]);
    }
}

/* A communicator freed with a nonblocking collective outstanding: refused (its schedule
 * holds the handle), then freed once the collective completed. Rank 0's ibcast (root 1) cannot
 * complete before rank 1 starts it, which waits for rank 0's message after the free. */
static void test_nb_comm_free(void)
{
    rcmsg_comm_t d;
    rcmsg_request_t req;
    int32_t v = rank == 1 ? 4242 : -1, go = 0;
    int root = size > 1 ? 1 : 0;

    CHECK(rcmsg_comm_dup(world, &d) == RCMSG_OK, "comm_dup");
    if (rank == 1) {
        CHECK(rcmsg_recv(&go, sizeof(go), 0, 7, world, NULL) == RCMSG_OK, "recv go");
    }
    CHECK(rcmsg_ibcast(&v, 1, RCMSG_INT32, root, d, &req) == RCMSG_OK, "ibcast");
    if (rank == 0 && size > 1) {
        CHECK(rcmsg_comm_free(&d) == RCMSG_ERR_STATE && d != RCMSG_COMM_NULL,
              "comm_free with an ibcast outstanding was not refused");
        CHECK(rcmsg_send(&go, sizeof(go), 1, 7, world) == RCMSG_OK, "send go");
    }
    CHECK(rcmsg_wait(&req, NULL) == RCMSG_OK, "ibcast on a communicator whose free was refused");
    CHECK(v == (size > 1 ? 4242 : -1), "ibcast: %d", (int)v);
    CHECK(rcmsg_comm_free(&d) == RCMSG_OK && d == RCMSG_COMM_NULL, "comm_free once completed");
}

static void test_bad_args(void)
{
    mat_t m[2] = {{{0}}};
    rcmsg_request_t req;
    rcmsg_op_t op = RCMSG_SUM;
    rcmsg_datatype_t dt = RCMSG_INT32;
    size_t one[MAXR] = {0};

    CHECK(rcmsg_allreduce(m, m + 1, 1, mat_type, RCMSG_SUM, world) == RCMSG_ERR_UNSUPPORTED,
          "a predefined op on a created datatype");
    CHECK(rcmsg_ibarrier(world, NULL) == RCMSG_ERR_INVALID_PARAM, "ibarrier with no request");
    CHECK(rcmsg_allgatherv(m, 0, m, NULL, one, mat_type, world) == RCMSG_ERR_INVALID_PARAM,
          "allgatherv without counts");
    CHECK(rcmsg_op_free(&op) == RCMSG_ERR_INVALID_PARAM, "freeing a predefined op");
    CHECK(rcmsg_datatype_free(&dt) == RCMSG_ERR_INVALID_PARAM, "freeing a predefined datatype");
    CHECK(rcmsg_datatype_create(0, &dt) == RCMSG_ERR_INVALID_PARAM, "a datatype of 0 bytes");
    CHECK(rcmsg_datatype_size(mat_type) == sizeof(mat_t), "datatype_size of a created one");
    /* lengths no node has (the collectives post unchecked: refused up front, on every rank) */
    if (SIZE_MAX >> 52 > 0) {
        size_t huge = (size_t)1 << 50, hv[MAXR];

        for (int i = 0; i < size; i++) {
            hv[i] = i == size - 1 ? huge : 0;
        }
        CHECK(rcmsg_bcast(m, huge, RCMSG_UINT8, 0, world) == RCMSG_ERR_INVALID_PARAM,
              "a bcast of 1 PiB");
        CHECK(rcmsg_ibcast(m, huge, RCMSG_UINT8, 0, world, &req) == RCMSG_ERR_INVALID_PARAM,
              "an ibcast of 1 PiB");
        CHECK(rcmsg_allgather(m, m, huge / 4 / (size_t)size, RCMSG_INT32, world) ==
                  RCMSG_ERR_INVALID_PARAM,
              "an allgather of 1 PiB in all");
        CHECK(rcmsg_allgatherv(m, hv[rank], m, hv, one, RCMSG_UINT8, world) ==
                  RCMSG_ERR_INVALID_PARAM,
              "an allgatherv of 1 PiB from one rank");
        CHECK(rcmsg_reduce_scatter(m, m, hv, RCMSG_UINT8, RCMSG_SUM, world) ==
                  RCMSG_ERR_INVALID_PARAM,
              "a reduce_scatter of 1 PiB");
    }
    (void)req;
}

int main(void)
{
    long calls;

    if (rcmsg_init() != RCMSG_OK) {
        fprintf(stderr, "coll_v_test: rcmsg_init failed\n");
        return 1;
    }
    world = rcmsg_comm_world();
    rank = rcmsg_comm_rank(world);
    size = rcmsg_comm_size(world);
    if (size > MAXR) {
        printf("SKIP: more than %d ranks\n", MAXR);
        rcmsg_finalize();
        return 77;
    }
    CHECK(rcmsg_datatype_create(sizeof(mat_t), &mat_type) == RCMSG_OK, "datatype_create");
    CHECK(rcmsg_op_create(mat_fn, 0, &mat_op) == RCMSG_OK, "op_create (non-commutative)");
    CHECK(rcmsg_op_create(add_fn, 1, &add_op) == RCMSG_OK, "op_create (commutative)");
    for (int nb = 0; nb < 2; nb++) {
        for (int ip = 0; ip < 2; ip++) {
            for (int root = 0; root < size; root++) {
                test_gatherv(root, ip, nb);
                test_scatterv(root, ip, nb);
            }
            test_allgatherv(ip, nb);
            test_alltoallv(ip, nb);
        }
    }
    if (rank == 0) {
        printf("ok: gatherv, scatterv (every root), allgatherv, alltoallv: zero counts, gaps, "
               "in place, blocking and nonblocking\n");
    }
    test_int_scans();
    calls = mat_calls;
    test_mat_reduce(mat_op, false);
    test_mat_reduce(mat_op, true);
    CHECK(size == 1 || mat_calls > calls, "the non-commutative op was never called");
    if (rank == 0) {
        printf("ok: a non-commutative user op (2x2 matrix product) in rank order through reduce "
               "(every root), allreduce, reduce_scatter(_block), scan, exscan\n");
    }
    test_user_algorithms();
    if (rank == 0) {
        printf("ok: a commutative user op through every algorithm of reduce, allreduce, "
               "reduce_scatter_block\n");
    }
    test_nb_all(false);
    test_nb_all(true);
    test_nb_free_during();
    test_nb_comm_free();
    if (rank == 0) {
        printf("ok: 16 nonblocking collectives outstanding with point-to-point and a blocking "
               "allreduce, by waitall and by testall; op and datatype freed during one; comm_free "
               "refused during one\n");
    }
    test_bad_args();
    rcmsg_op_free(&mat_op);
    rcmsg_op_free(&add_op);
    rcmsg_datatype_free(&mat_type);
    printf("rank %d of %d: coll_v_test, %d failure(s)\n", rank, size, failures);
    fflush(stdout);
    rcmsg_finalize();
    return failures == 0 ? 0 : 1;
}
