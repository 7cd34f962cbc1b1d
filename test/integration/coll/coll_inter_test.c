/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rcmsg.h's intercommunicators (issue 39 item 4): the world cut in two groups of unequal
 * size (the first third, at least one rank, and the rest), joined with rcmsg_intercomm_create;
 * rcmsg_comm_rank/size/remote_size, rcmsg_comm_test_inter; every collective rcmsg.h has over
 * it, blocking and nonblocking, with 0 and 3 elements, roots in either group, zero counts in
 * the v-variants, a user operation that does not commute (rank order within the group) and
 * one that does; bad arguments refused; rcmsg_comm_dup and rcmsg_comm_idup of it (both
 * groups, an idup outstanding across a dup and a barrier); rcmsg_intercomm_merge's order;
 * rcmsg_comm_free.
 * Prints "rank R of N: ... F failure(s)".
 */
#include <rcmsg.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, nb;
static int G, OG, me, L, R; /* my group (0: the first), the other, my rank, the sizes */
static rcmsg_comm_t ic;
static rcmsg_request_t req;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d (group %d rank %d) %s: ", rcmsg_rank(), G, me,                \
                    nb ? "nonblocking" : "blocking");                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static rcmsg_status_t fin(rcmsg_status_t s)
{
    return s == RCMSG_OK ? rcmsg_wait(&req, NULL) : s;
}

/* the call blocking, or its nonblocking form waited for */
#define RUN(fn, ...) (nb ? fin(rcmsg_i##fn(__VA_ARGS__, &req)) : rcmsg_##fn(__VA_ARGS__))

static int32_t val(int g, int r, int i)
{
    return g * 100000 + r * 100 + i;
}

/* the left operand: associative, not commutative (a group's result is its rank 0's) */
static void left(const void *in, void *inout, size_t count, rcmsg_datatype_t dt, rcmsg_op_t op)
{
    (void)dt;
    (void)op;
    memcpy(inout, in, count * sizeof(int32_t));
}

static void usum(const void *in, void *inout, size_t count, rcmsg_datatype_t dt, rcmsg_op_t op)
{
    const int32_t *a = in;
    int32_t *b = inout;

    (void)dt;
    (void)op;
    for (size_t i = 0; i < count; i++) {
        b[i] += a[i];
    }
}

static int32_t *buf(size_t n, int32_t fill)
{
    int32_t *b = malloc(sizeof(int32_t) * (n + 1));

    for (size_t i = 0; i <= n; i++) {
        b[i] = fill;
    }
    return b;
}

/* the root arguments: root is rank rr of group rg */
static int root_arg(int rg, int rr)
{
    return G == rg ? (me == rr ? RCMSG_ROOT : RCMSG_PROC_NULL) : rr;
}

static void t_bcast(int n)
{
    for (int rg = 0; rg < 2; rg++) {
        int rr = rg == 1 ? (G == 1 ? L : R) - 1 : 0; /* rank 0 of group 0, the last of 1 */
        int32_t *b = buf((size_t)n, -1);
        rcmsg_status_t s;

        if (G == rg && me == rr) {
            for (int i = 0; i < n; i++) {
                b[i] = val(rg, rr, i);
            }
        }
        s = RUN(bcast, b, (size_t)n, RCMSG_INT32, root_arg(rg, rr), ic);
        CHECK(s == RCMSG_OK, "bcast from group %d: %s", rg, rcmsg_strerror(s));
        for (int i = 0; i < n && G != rg; i++) {
            CHECK(b[i] == val(rg, rr, i), "bcast[%d] = %d", i, b[i]);
        }
        CHECK(b[n] == -1, "bcast wrote past the end");
        free(b);
    }
}

/* uop: a user operation, the left operand (sum: a sum) */
static void t_reduce(int n, rcmsg_op_t uop, int sum)
{
    int32_t *s = buf((size_t)n, 0), *r = buf((size_t)n, -1);
    rcmsg_status_t st;

    for (int i = 0; i < n; i++) {
        s[i] = val(G, me, i);
    }
    /* the root: rank 0 of group 1; SUM of group 0's */
    st = RUN(reduce, s, r, (size_t)n, RCMSG_INT32, RCMSG_SUM, root_arg(1, 0), ic);
    CHECK(st == RCMSG_OK, "reduce: %s", rcmsg_strerror(st));
    for (int i = 0; i < n && G == 1 && me == 0; i++) {
        int32_t want = 0;

        for (int k = 0; k < R; k++) {
            want += val(0, k, i);
        }
        CHECK(r[i] == want, "reduce[%d] = %d, not %d", i, r[i], want);
    }
    /* allreduce: the other group's SUM, and its rank 0's with the left operand */
    st = RUN(allreduce, s, r, (size_t)n, RCMSG_INT32, RCMSG_SUM, ic);
    CHECK(st == RCMSG_OK, "allreduce: %s", rcmsg_strerror(st));
    for (int i = 0; i < n; i++) {
        int32_t want = 0;

        for (int k = 0; k < R; k++) {
            want += val(OG, k, i);
        }
        CHECK(r[i] == want, "allreduce[%d] = %d, not %d", i, r[i], want);
    }
    st = RUN(allreduce, s, r, (size_t)n, RCMSG_INT32, uop, ic);
    CHECK(st == RCMSG_OK, "allreduce (user op): %s", rcmsg_strerror(st));
    for (int i = 0; i < n; i++) {
        int32_t want = 0;

        for (int k = 0; k < (sum ? R : 1); k++) {
            want += val(OG, k, i);
        }
        CHECK(r[i] == want, "allreduce (user op)[%d] = %d, not %d", i, r[i], want);
    }
    CHECK(r[n] == -1, "reductions wrote past the end");
    free(s);
    free(r);
}

static void t_blocks(int n)
{
    int32_t *s = buf((size_t)n * (size_t)(L > R ? L : R), 0);
    int32_t *r = buf((size_t)n * (size_t)(L > R ? L : R), -1);
    rcmsg_status_t st;

    /* gather to rank 0 of group 0 */
    for (int i = 0; i < n; i++) {
        s[i] = val(G, me, i);
    }
    st = RUN(gather, s, r, (size_t)n, RCMSG_INT32, root_arg(0, 0), ic);
    CHECK(st == RCMSG_OK, "gather: %s", rcmsg_strerror(st));
    for (int k = 0; G == 0 && me == 0 && k < R; k++) {
        for (int i = 0; i < n; i++) {
            CHECK(r[k * n + i] == val(1, k, i), "gather[%d][%d] = %d", k, i, r[k * n + i]);
        }
    }
    /* scatter from rank 0 of group 1: block k = val(7, k, i) */
    for (int k = 0; G == 1 && k < R; k++) {
        for (int i = 0; i < n; i++) {
            s[k * n + i] = val(7, k, i);
        }
    }
    st = RUN(scatter, s, r, (size_t)n, RCMSG_INT32, root_arg(1, 0), ic);
    CHECK(st == RCMSG_OK, "scatter: %s", rcmsg_strerror(st));
    for (int i = 0; G == 0 && i < n; i++) {
        CHECK(r[i] == val(7, me, i), "scatter[%d] = %d", i, r[i]);
    }
    /* allgather: the remote group's blocks */
    for (int i = 0; i < n; i++) {
        s[i] = val(G, me, i);
    }
    st = RUN(allgather, s, r, (size_t)n, RCMSG_INT32, ic);
    CHECK(st == RCMSG_OK, "allgather: %s", rcmsg_strerror(st));
    for (int k = 0; k < R; k++) {
        for (int i = 0; i < n; i++) {
            CHECK(r[k * n + i] == val(OG, k, i), "allgather[%d][%d] = %d", k, i, r[k * n + i]);
        }
    }
    /* alltoall: block k to remote rank k */
    for (int k = 0; k < R; k++) {
        for (int i = 0; i < n; i++) {
            s[k * n + i] = val(G, me, i) + k * 10000;
        }
    }
    st = RUN(alltoall, s, r, (size_t)n, RCMSG_INT32, ic);
    CHECK(st == RCMSG_OK, "alltoall: %s", rcmsg_strerror(st));
    for (int k = 0; k < R; k++) {
        for (int i = 0; i < n; i++) {
            CHECK(r[k * n + i] == val(OG, k, i) + me * 10000, "alltoall[%d][%d] = %d", k, i,
                  r[k * n + i]);
        }
    }
    free(s);
    free(r);
}

/* reduce_scatter_block with recvcount c (c * L = the other group's c * R: c = R * n), and
 * reduce_scatter with counts of which the first is 0 */
static void t_reduce_scatter(int n)
{
    size_t c = (size_t)R * (size_t)n, total = c * (size_t)L;
    int32_t *s = buf(total, 0), *r = buf(total, -1);
    size_t *rc = calloc((size_t)L, sizeof(size_t)), off = 0;
    rcmsg_status_t st;

    for (size_t k = 0; k < total; k++) {
        s[k] = val(G, me, (int)k);
    }
    st = RUN(reduce_scatter_block, s, r, c, RCMSG_INT32, RCMSG_SUM, ic);
    CHECK(st == RCMSG_OK, "reduce_scatter_block: %s", rcmsg_strerror(st));
    for (size_t i = 0; i < c; i++) {
        int32_t want = 0;

        for (int k = 0; k < R; k++) {
            want += val(OG, k, (int)(me * c + i));
        }
        CHECK(r[i] == want, "reduce_scatter_block[%zu] = %d, not %d", i, r[i], want);
    }
    for (int i = 0; i < L; i++) { /* total elements, rank 0 none (unless alone) */
        rc[i] = L == 1 ? total : i == 0 ? 0 : i < L - 1 ? c : total - c * (size_t)(L - 2);
    }
    for (int i = 0; i < me; i++) {
        off += rc[i];
    }
    st = RUN(reduce_scatter, s, r, rc, RCMSG_INT32, RCMSG_SUM, ic);
    CHECK(st == RCMSG_OK, "reduce_scatter: %s", rcmsg_strerror(st));
    for (size_t i = 0; i < rc[me]; i++) {
        int32_t want = 0;

        for (int k = 0; k < R; k++) {
            want += val(OG, k, (int)(off + i));
        }
        CHECK(r[i] == want, "reduce_scatter[%zu] = %d, not %d", i, r[i], want);
    }
    free(s);
    free(r);
    free(rc);
}

/* the v-variants: remote rank k's block has cnt(k) elements, remote rank 0's none, laid out
 * backwards (displacements descending) */
static size_t cnt(int k, int n)
{
    return n == 0 ? 0 : (size_t)(k % 3);
}

static void layout(int n, size_t *c, size_t *d)
{
    size_t off = 0;

    for (int k = R - 1; k >= 0; k--) {
        c[k] = cnt(k, n);
        d[k] = off;
        off += c[k] + 3; /* a gap: alltoallv's blocks are up to 2 */
    }
}

static void t_v(int n)
{
    size_t c[16], d[16], sc[16], sd[16], mine = cnt(me, n);
    int32_t *s = buf(64, 0), *r = buf(64, -1);
    rcmsg_status_t st;

    layout(n, c, d);
    for (size_t i = 0; i < 64; i++) {
        s[i] = val(G, me, (int)i);
    }
    /* gatherv to the last rank of group 0 */
    st = RUN(gatherv, s, mine, r, c, d, RCMSG_INT32, root_arg(0, G == 0 ? L - 1 : R - 1), ic);
    CHECK(st == RCMSG_OK, "gatherv: %s", rcmsg_strerror(st));
    for (int k = 0; G == 0 && me == L - 1 && k < R; k++) {
        for (size_t i = 0; i < c[k]; i++) {
            CHECK(r[d[k] + i] == val(1, k, (int)i), "gatherv[%d][%zu] = %d", k, i, r[d[k] + i]);
        }
    }
    /* scatterv from rank 0 of group 1: remote rank k gets its cnt(k) elements at d[k] */
    for (size_t i = 0; i < 64; i++) {
        r[i] = -1;
    }
    st = RUN(scatterv, s, c, d, r, mine, RCMSG_INT32, root_arg(1, 0), ic);
    CHECK(st == RCMSG_OK, "scatterv: %s", rcmsg_strerror(st));
    if (G == 0) {
        size_t dm[16], cm[16];

        R = L; /* the root's layout is over group 0 (this group) */
        layout(n, cm, dm);
        R = rcmsg_comm_remote_size(ic);
        for (size_t i = 0; i < mine; i++) {
            CHECK(r[i] == val(1, 0, (int)(dm[me] + i)), "scatterv[%zu] = %d", i, r[i]);
        }
    }
    /* allgatherv: each rank's cnt(me) elements to every remote rank */
    st = RUN(allgatherv, s, mine, r, c, d, RCMSG_INT32, ic);
    CHECK(st == RCMSG_OK, "allgatherv: %s", rcmsg_strerror(st));
    for (int k = 0; k < R; k++) {
        for (size_t i = 0; i < c[k]; i++) {
            CHECK(r[d[k] + i] == val(OG, k, (int)i), "allgatherv[%d][%zu] = %d", k, i, r[d[k] + i]);
        }
    }
    /* alltoallv: (me + k) % 3 elements to remote rank k, from s + 4k */
    for (int k = 0; k < R; k++) {
        sc[k] = n == 0 ? 0 : (size_t)((me + k) % 3);
        sd[k] = (size_t)k * 4;
    }
    st = RUN(alltoallv, s, sc, sd, r, sc, d, RCMSG_INT32, ic);
    CHECK(st == RCMSG_OK, "alltoallv: %s", rcmsg_strerror(st));
    for (int k = 0; k < R; k++) {
        for (size_t i = 0; i < sc[k]; i++) {
            CHECK(r[d[k] + i] == val(OG, k, (int)(me * 4 + i)), "alltoallv[%d][%zu] = %d", k, i,
                  r[d[k] + i]);
        }
    }
    free(s);
    free(r);
}

/* d is a duplicate of ic (the same groups): an allreduce on it gives each group the sum of
 * the other's values */
static void dup_check(rcmsg_comm_t d, const char *what)
{
    int32_t x = val(G, me, 0), sum = -1, want = 0;
    int flag = -1;
    rcmsg_status_t s;

    CHECK(d != RCMSG_COMM_NULL && d != ic && rcmsg_comm_test_inter(d, &flag) == RCMSG_OK &&
              flag == 1,
          "%s: not an intercommunicator (flag %d)", what, flag);
    CHECK(rcmsg_comm_rank(d) == me && rcmsg_comm_size(d) == L && rcmsg_comm_remote_size(d) == R,
          "%s: rank %d size %d remote %d", what, rcmsg_comm_rank(d), rcmsg_comm_size(d),
          rcmsg_comm_remote_size(d));
    for (int k = 0; k < R; k++) {
        want += val(OG, k, 0);
    }
    s = rcmsg_allreduce(&x, &sum, 1, RCMSG_INT32, RCMSG_SUM, d);
    CHECK(s == RCMSG_OK && sum == want, "%s: allreduce %s, %d (expected %d)", what,
          rcmsg_strerror(s), sum, want);
}

/* rcmsg_comm_idup and rcmsg_comm_dup of ic: an idup outstanding across a blocking dup and a
 * barrier on ic, another posted after them; *newcomm_p written only at completion */
static void t_dup(void)
{
    rcmsg_comm_t d = RCMSG_COMM_NULL, e[2] = {RCMSG_COMM_NULL, RCMSG_COMM_NULL};
    rcmsg_request_t q[2];
    rcmsg_status_t s;

    s = rcmsg_comm_idup(ic, &e[0], &q[0]);
    CHECK(s == RCMSG_OK, "idup: %s", rcmsg_strerror(s));
    s = rcmsg_comm_dup(ic, &d);
    CHECK(s == RCMSG_OK, "dup beside an idup: %s", rcmsg_strerror(s));
    s = rcmsg_barrier(ic);
    CHECK(s == RCMSG_OK, "barrier beside an idup: %s", rcmsg_strerror(s));
    s = rcmsg_comm_idup(ic, &e[1], &q[1]);
    CHECK(s == RCMSG_OK, "second idup: %s", rcmsg_strerror(s));
    /* the groups wait in opposite orders */
    s = rcmsg_wait(&q[G], NULL);
    CHECK(s == RCMSG_OK, "idup %d: %s", G, rcmsg_strerror(s));
    s = rcmsg_wait(&q[OG], NULL);
    CHECK(s == RCMSG_OK, "idup %d: %s", OG, rcmsg_strerror(s));
    dup_check(d, "dup");
    dup_check(e[0], "idup");
    dup_check(e[1], "second idup");
    CHECK(rcmsg_comm_free(&d) == RCMSG_OK && rcmsg_comm_free(&e[0]) == RCMSG_OK &&
              rcmsg_comm_free(&e[1]) == RCMSG_OK,
          "comm_free of the duplicates");
}

/* bad arguments, refused on every rank alike (nothing moves) */
static void t_bad(void)
{
    int32_t x[4] = {0};
    rcmsg_request_t q = RCMSG_REQUEST_NULL;

    CHECK(rcmsg_bcast(x, 1, RCMSG_INT32, R, ic) == RCMSG_ERR_INVALID_PARAM, "root %d taken", R);
    CHECK(rcmsg_scan(x, x + 1, 1, RCMSG_INT32, RCMSG_SUM, ic) == RCMSG_ERR_INVALID_PARAM,
          "scan taken");
    CHECK(rcmsg_iexscan(x, x + 1, 1, RCMSG_INT32, RCMSG_SUM, ic, &q) == RCMSG_ERR_INVALID_PARAM &&
              q == RCMSG_REQUEST_NULL,
          "iexscan taken");
    CHECK(rcmsg_allreduce(RCMSG_IN_PLACE, x, 1, RCMSG_INT32, RCMSG_SUM, ic) ==
              RCMSG_ERR_INVALID_PARAM,
          "RCMSG_IN_PLACE taken");
    CHECK(rcmsg_allgather(NULL, x, 1, RCMSG_INT32, ic) == RCMSG_ERR_INVALID_PARAM,
          "NULL sendbuf taken");
    /* point-to-point: refused, not run over the union's ranks */
    CHECK(rcmsg_send(x, sizeof(x), 0, 1, ic) == RCMSG_ERR_UNSUPPORTED, "send taken");
    CHECK(rcmsg_isend(x, sizeof(x), 0, 1, ic, &q) == RCMSG_ERR_UNSUPPORTED &&
              q == RCMSG_REQUEST_NULL,
          "isend taken");
    CHECK(rcmsg_irecv(x, sizeof(x), 0, 1, ic, &q) == RCMSG_ERR_UNSUPPORTED &&
              q == RCMSG_REQUEST_NULL,
          "irecv taken");
    CHECK(rcmsg_iprobe(RCMSG_ANY_SOURCE, 1, ic, &(int){0}, NULL) == RCMSG_ERR_UNSUPPORTED,
          "iprobe taken");
}

int main(void)
{
    rcmsg_comm_t world, half, merged;
    rcmsg_op_t uleft, usum_op;
    int n, rank, k, flag = -1;
    rcmsg_status_t s = rcmsg_init();

    if (s != RCMSG_OK) {
        fprintf(stderr, "rcmsg_init: %s\n", rcmsg_strerror(s));
        return 1;
    }
    world = rcmsg_comm_world();
    rank = rcmsg_rank();
    n = rcmsg_size();
    if (n < 2) {
        printf("SKIP: coll_inter_test needs 2 ranks or more\n");
        rcmsg_finalize();
        return 77;
    }
    k = n / 3 > 0 ? n / 3 : 1; /* group 0: ranks [0, k) */
    G = rank < k ? 0 : 1;
    OG = 1 - G;
    if (rcmsg_comm_split(world, G, rank, &half) != RCMSG_OK ||
        rcmsg_intercomm_create(half, 0, world, G == 0 ? k : 0, 7, &ic) != RCMSG_OK) {
        fprintf(stderr, "rank %d: intercomm_create failed\n", rank);
        return 1;
    }
    me = rcmsg_comm_rank(ic);
    L = rcmsg_comm_size(ic);
    R = rcmsg_comm_remote_size(ic);
    CHECK(me == (G == 0 ? rank : rank - k) && L == (G == 0 ? k : n - k) && L + R == n,
          "rank %d size %d remote %d", me, L, R);
    CHECK(rcmsg_comm_test_inter(ic, &flag) == RCMSG_OK && flag == 1, "test_inter %d", flag);
    CHECK(rcmsg_comm_test_inter(half, &flag) == RCMSG_OK && flag == 0, "test_inter %d", flag);
    CHECK(rcmsg_comm_remote_size(world) == -1, "remote_size of the world");
    rcmsg_op_create(left, 0, &uleft);
    rcmsg_op_create(usum, 1, &usum_op);
    for (nb = 0; nb < 2; nb++) {
        for (int c = 0; c <= 3; c += 3) {
            s = RUN(barrier, ic);
            CHECK(s == RCMSG_OK, "barrier: %s", rcmsg_strerror(s));
            t_bcast(c);
            t_reduce(c, uleft, 0);
            t_reduce(c, usum_op, 1);
            t_blocks(c);
            t_reduce_scatter(c);
            t_v(c);
        }
    }
    nb = 0;
    t_bad();
    t_dup();
    /* merge: group 1 passes high = 0, so it comes first */
    s = rcmsg_intercomm_merge(ic, G == 0, &merged);
    CHECK(s == RCMSG_OK && rcmsg_comm_size(merged) == n &&
              rcmsg_comm_rank(merged) == (G == 1 ? me : R + me),
          "merge: %s, rank %d", rcmsg_strerror(s), rcmsg_comm_rank(merged));
    s = rcmsg_barrier(merged);
    CHECK(s == RCMSG_OK, "barrier on the merged: %s", rcmsg_strerror(s));
    CHECK(rcmsg_comm_free(&merged) == RCMSG_OK && rcmsg_comm_free(&ic) == RCMSG_OK &&
              rcmsg_comm_free(&half) == RCMSG_OK && ic == RCMSG_COMM_NULL,
          "comm_free");
    rcmsg_op_free(&uleft);
    rcmsg_op_free(&usum_op);
    printf("rank %d of %d: group %d rank %d of %d (remote %d), %d failure(s)\n", rank, n, G, me, L,
           R, failures);
    s = rcmsg_finalize();
    return failures == 0 && s == RCMSG_OK ? 0 : 1;
}
