/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI nonblocking collectives over rcmsg, data checked, on any number of ranks (1 included):
 * each call with every root, counts 0, 1, 37 and a rendezvous-sized one, a noncontiguous
 * type, MPI_IN_PLACE; reductions with MPI_SUM, MINLOC on MPI_2INT and a non-commutative user
 * operation (2x2 matrix product: the result says whether the ranks' order was kept); several
 * at once on one communicator and on two, overlapped with point-to-point rings, completed by
 * Waitall/Testany mixes with point-to-point requests; a blocking receive that must keep a
 * schedule moving (the chain below); the errors of misuse.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>

#define BIG 70000 /* ints: 280 KB, rendezvous */

/* the last one is BIG, a quarter of it beyond 4 ranks (time: 2 cores, up to 8 ranks) */
static int counts[] = {0, 1, 37, BIG};
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

static int val(int rank, int i)
{
    return rank * 1000003 + i;
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

/* a vector type: one int out of two (extent 2 ints minus one: resized to 2 ints) */
static MPI_Datatype every_other(void)
{
    MPI_Datatype v, r;

    OK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
    OK(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &r));
    OK(MPI_Type_commit(&r));
    OK(MPI_Type_free(&v));
    return r;
}

static void test_barrier_bcast(void)
{
    MPI_Request req;
    int *buf = ints(2 * BIG);
    MPI_Datatype eo = every_other();

    for (int k = 0; k < 3; k++) {
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL, "Ibarrier's request not NULL after Wait");
    }
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];

        for (int root = 0; root < np; root++) {
            for (int i = 0; i < n; i++) {
                buf[i] = me == root ? val(root, i) : -1;
            }
            OK(MPI_Ibcast(buf, n, MPI_INT, root, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++) {
                CHECK(buf[i] == val(root, i), "Ibcast %d from %d: [%d] = %d", n, root, i, buf[i]);
                if (buf[i] != val(root, i)) {
                    break;
                }
            }
        }
        /* noncontiguous: the odd ints stay */
        for (int i = 0; i < 2 * n; i++) {
            buf[i] = i % 2 ? -7 : me == np - 1 ? val(9, i) : -1;
        }
        OK(MPI_Ibcast(buf, n, eo, np - 1, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * n; i++) {
            int want = i % 2 ? -7 : val(9, i);
            CHECK(buf[i] == want, "Ibcast of a vector, %d: [%d] = %d", n, i, buf[i]);
            if (buf[i] != want) {
                break;
            }
        }
    }
    MPI_Type_free(&eo);
    free(buf);
}

/* Igather and Iscatter, every root, contiguous and vector receive types, in place */
static void test_gather_scatter(void)
{
    MPI_Datatype eo = every_other();
    int *mine = ints(BIG), *all = ints(2 * (size_t)BIG * (size_t)np);
    MPI_Request req;

    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        for (int root = 0; root < np; root++) {
            bool vec = (root + ci) % 2 == 1; /* the root receives into a vector type */
            bool inplace = root == 1;
            for (int i = 0; i < n; i++) {
                mine[i] = val(me, i);
            }
            for (size_t i = 0; i < 2 * (size_t)n * (size_t)np; i++) {
                all[i] = -1;
            }
            if (inplace && me == root) {
                for (int i = 0; i < n; i++) {
                    all[(size_t)root * (size_t)n * (vec ? 2 : 1) + (size_t)i * (vec ? 2 : 1)] =
                        val(me, i);
                }
            }
            OK(MPI_Igather(inplace && me == root ? MPI_IN_PLACE : mine, n, MPI_INT, all, n,
                           vec ? eo : MPI_INT, root, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int r = 0; me == root && r < np; r++) {
                for (int i = 0; i < n; i++) {
                    size_t at = vec ? 2 * ((size_t)r * n + i) : (size_t)r * n + i;
                    CHECK(all[at] == val(r, i), "Igather %d root %d%s: from %d [%d] = %d", n, root,
                          vec ? " (vector)" : "", r, i, all[at]);
                    if (all[at] != val(r, i)) {
                        break;
                    }
                }
            }
            /* scatter back, +1 */
            for (size_t i = 0; me == root && i < 2 * (size_t)n * (size_t)np; i++) {
                all[i] += 1;
            }
            for (int i = 0; i < n; i++) {
                mine[i] = -1;
            }
            OK(MPI_Iscatter(all, n, vec ? eo : MPI_INT, inplace && me == root ? MPI_IN_PLACE : mine,
                            n, MPI_INT, root, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; !(inplace && me == root) && i < n; i++) {
                CHECK(mine[i] == val(me, i) + 1, "Iscatter %d root %d: [%d] = %d", n, root, i,
                      mine[i]);
                if (mine[i] != val(me, i) + 1) {
                    break;
                }
            }
        }
    }
    MPI_Type_free(&eo);
    free(mine);
    free(all);
}

/* Iallgather and Ialltoall, contiguous, vector and in place */
static void test_all(void)
{
    MPI_Datatype eo = every_other();
    size_t cap = 2 * (size_t)BIG * (size_t)np;
    int *out = ints(cap), *in = ints(cap);
    MPI_Request req;

    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        for (int mode = 0; mode < 3; mode++) { /* 0 contiguous, 1 vector recv, 2 in place */
            int step = mode == 1 ? 2 : 1;
            for (size_t i = 0; i < cap; i++) {
                in[i] = -1;
            }
            for (int i = 0; i < n; i++) {
                out[i] = val(me, i);
                if (mode == 2) {
                    in[(size_t)me * n + i] = val(me, i);
                }
            }
            OK(MPI_Iallgather(mode == 2 ? MPI_IN_PLACE : out, n, MPI_INT, in, n,
                              mode == 1 ? eo : MPI_INT, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int r = 0; r < np; r++) {
                for (int i = 0; i < n; i++) {
                    int got = in[((size_t)r * n + i) * step];
                    CHECK(got == val(r, i), "Iallgather %d mode %d: from %d [%d] = %d", n, mode, r,
                          i, got);
                    if (got != val(r, i)) {
                        break;
                    }
                }
            }
            /* alltoall: block j of rank r holds val(r * 64 + j, i) */
            for (int j = 0; j < np; j++) {
                for (int i = 0; i < n; i++) {
                    out[(size_t)j * n + i] = val(me * 64 + j, i);
                    in[((size_t)j * n + i) * step] = mode == 2 ? val(me * 64 + j, i) : -1;
                }
            }
            OK(MPI_Ialltoall(mode == 2 ? MPI_IN_PLACE : out, n, MPI_INT, in, n,
                             mode == 1 ? eo : MPI_INT, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int r = 0; r < np; r++) {
                for (int i = 0; i < n; i++) {
                    int got = in[((size_t)r * n + i) * step];
                    CHECK(got == val(r * 64 + me, i), "Ialltoall %d mode %d: from %d [%d] = %d", n,
                          mode, r, i, got);
                    if (got != val(r * 64 + me, i)) {
                        break;
                    }
                }
            }
        }
    }
    MPI_Type_free(&eo);
    free(out);
    free(in);
}

/* ---- reductions -------------------------------------------------------------------------- */
#define P 1000003LL
typedef struct {
    long long a, b, c, d;
} mat_t;

static mat_t mat_mul(mat_t x, mat_t y)
{
    return (mat_t){(x.a * y.a + x.b * y.c) % P, (x.a * y.b + x.b * y.d) % P,
                   (x.c * y.a + x.d * y.c) % P, (x.c * y.b + x.d * y.d) % P};
}

static mat_t mat_of(int rank, int i)
{
    return (mat_t){rank + 2, i + 1, 1, 0};
}

/* inout = in * inout (in: the lower ranks') */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *x = in, *y = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        y[i] = mat_mul(x[i], y[i]);
    }
}

static int mat_eq(mat_t x, mat_t y)
{
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

/* the product of ranks lo..hi's matrices, in order */
static mat_t mat_range(int lo, int hi, int i)
{
    mat_t m = {1, 0, 0, 1};

    for (int r = lo; r <= hi; r++) {
        m = mat_mul(m, mat_of(r, i));
    }
    return m;
}

static void test_sum(void)
{
    int *in = ints((size_t)BIG * np), *out = ints((size_t)BIG * np);
    MPI_Request req;
    long long tri = (long long)np * (np - 1) / 2;

    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        for (int root = 0; root < np; root++) {
            for (int i = 0; i < n; i++) {
                in[i] = me + i;
                out[i] = root == 0 && me == root ? me + i : -1;
            }
            OK(MPI_Ireduce(root == 0 && me == root ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                           root, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; me == root && i < n; i++) {
                CHECK(out[i] == tri + (long long)np * i, "Ireduce %d root %d: [%d] = %d", n, root,
                      i, out[i]);
                if (out[i] != tri + (long long)np * i) {
                    break;
                }
            }
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++) {
                in[i] = out[i] = me + i;
            }
            OK(MPI_Iallreduce(inplace ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++) {
                CHECK(out[i] == tri + (long long)np * i, "Iallreduce %d: [%d] = %d", n, i, out[i]);
                if (out[i] != tri + (long long)np * i) {
                    break;
                }
            }
            /* reduce_scatter_block: n per rank, element j of the whole is sum(me + j) */
            for (size_t j = 0; j < (size_t)n * np; j++) {
                in[j] = out[j] = me + (int)j;
            }
            OK(MPI_Ireduce_scatter_block(inplace ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                                         MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++) {
                long long want = tri + (long long)np * ((long long)me * n + i);
                CHECK(out[i] == want, "Ireduce_scatter_block %d: [%d] = %d", n, i, out[i]);
                if (out[i] != want) {
                    break;
                }
            }
            /* scan: sum over ranks 0..me of (r + i) */
            for (int i = 0; i < n; i++) {
                in[i] = out[i] = me + i;
            }
            OK(MPI_Iscan(inplace ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                         &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++) {
                long long want = (long long)me * (me + 1) / 2 + (long long)(me + 1) * i;
                CHECK(out[i] == want, "Iscan %d: [%d] = %d", n, i, out[i]);
                if (out[i] != want) {
                    break;
                }
            }
        }
    }
    free(in);
    free(out);
}

/* a non-commutative user operation on a contiguous type of 4 long longs: rank order kept */
static void test_user_op(void)
{
    enum { N = 5 };
    MPI_Datatype mt;
    MPI_Op op;
    mat_t in[N * 8], out[N * 8];
    MPI_Request req;

    OK(MPI_Type_contiguous(4, MPI_LONG_LONG, &mt));
    OK(MPI_Type_commit(&mt));
    OK(MPI_Op_create(mat_op, 0, &op));
    for (int root = 0; root < np; root++) {
        for (int i = 0; i < N; i++) {
            in[i] = mat_of(me, i);
        }
        OK(MPI_Ireduce(in, out, N, mt, op, root, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; me == root && i < N; i++) {
            CHECK(mat_eq(out[i], mat_range(0, np - 1, i)), "Ireduce (user op) root %d [%d]", root,
                  i);
        }
    }
    OK(MPI_Iallreduce(in, out, N, mt, op, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        CHECK(mat_eq(out[i], mat_range(0, np - 1, i)), "Iallreduce (user op) [%d]", i);
    }
    OK(MPI_Iscan(in, out, N, mt, op, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        CHECK(mat_eq(out[i], mat_range(0, me, i)), "Iscan (user op) [%d]", i);
    }
    for (int j = 0; j < np; j++) {
        in[j] = mat_of(me, j);
    }
    OK(MPI_Ireduce_scatter_block(in, out, 1, mt, op, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(mat_eq(out[0], mat_range(0, np - 1, me)), "Ireduce_scatter_block (user op)");
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&mt));
}

/* The operation and the datatype freed while their collectives run (MPI: they complete
 * normally): the reductions must still be made, in rank order. */
static void test_user_op_freed(void)
{
    enum { N = 3 };
    MPI_Datatype mt;
    MPI_Op op;
    mat_t in[N], out[N], sout[N], rout[N];
    MPI_Request req[3];

    OK(MPI_Type_contiguous(4, MPI_LONG_LONG, &mt));
    OK(MPI_Type_commit(&mt));
    OK(MPI_Op_create(mat_op, 0, &op));
    for (int i = 0; i < N; i++) {
        in[i] = mat_of(me, i);
    }
    OK(MPI_Iallreduce(in, out, N, mt, op, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Iscan(in, sout, N, mt, op, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Ireduce(in, rout, N, mt, op, np - 1, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&mt));
    CHECK(op == MPI_OP_NULL && mt == MPI_DATATYPE_NULL, "the handles were not set to null");
    OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        CHECK(mat_eq(out[i], mat_range(0, np - 1, i)), "Iallreduce, op and type freed: [%d]", i);
        CHECK(mat_eq(sout[i], mat_range(0, me, i)), "Iscan, op and type freed: [%d]", i);
        CHECK(me != np - 1 || mat_eq(rout[i], mat_range(0, np - 1, i)),
              "Ireduce (root %d), op and type freed: [%d]", np - 1, i);
    }
}

/* MINLOC on MPI_2INT, MAX on a vector type */
static void test_minloc_vector(void)
{
    struct {
        int v, loc;
    } in[3], out[3];
    int vin[8], vout[8];
    MPI_Datatype eo = every_other();
    MPI_Request req;

    for (int i = 0; i < 3; i++) {
        in[i].v = (me + i) % np == 0 ? -5 : 10 + me;
        in[i].loc = me;
    }
    OK(MPI_Iallreduce(in, out, 3, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) {
        int who = (np - i % np) % np;
        CHECK(out[i].v == -5 && out[i].loc == who, "MINLOC [%d]: (%d, %d), expected (-5, %d)", i,
              out[i].v, out[i].loc, who);
    }
    for (int i = 0; i < 8; i++) {
        vin[i] = i % 2 ? -9 : me * 10 + i;
        vout[i] = -3;
    }
    OK(MPI_Iallreduce(vin, vout, 4, eo, MPI_MAX, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) {
        int want = i % 2 ? -3 : (np - 1) * 10 + i;
        CHECK(vout[i] == want, "Iallreduce MAX of a vector: [%d] = %d, expected %d", i, vout[i],
              want);
    }
    MPI_Type_free(&eo);
}

/* ---- several at once, overlapped with point-to-point ------------------------------------- */
enum { NRING = 8 };

static void ring_start(MPI_Request reqs[2], int *out, int *in, int n, int tag)
{
    for (int i = 0; i < n; i++) {
        out[i] = val(me + tag, i);
    }
    OK(MPI_Irecv(in, n, MPI_INT, (me - 1 + np) % np, tag, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Isend(out, n, MPI_INT, (me + 1) % np, tag, MPI_COMM_WORLD, &reqs[1]));
}

static void ring_check(const int *in, int n, int tag)
{
    int left = (me - 1 + np) % np;

    for (int i = 0; i < n; i++) {
        CHECK(in[i] == val(left + tag, i), "ring tag %d [%d] = %d", tag, i, in[i]);
        if (in[i] != val(left + tag, i)) {
            break;
        }
    }
}

static void test_overlap(void)
{
    MPI_Comm dup;
    MPI_Request reqs[6 + 2 * NRING];
    int *b1 = ints(BIG), *b2 = ints(BIG), *g = ints((size_t)np * 4), *s1 = ints(4);
    int *rout = ints((size_t)NRING * BIG), *rin = ints((size_t)NRING * BIG);
    int sum = -1, sum2 = -1, one = 1, done = 0, idx, flag;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int i = 0; i < BIG; i++) {
        b1[i] = me == 0 ? val(1, i) : -1;
        b2[i] = me == np - 1 ? val(2, i) : -1;
    }
    for (int i = 0; i < 4; i++) {
        s1[i] = val(me, i);
    }
    /* four schedules on two communicators and p2p rings, all outstanding together */
    OK(MPI_Ibcast(b1, BIG, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Ibcast(b2, BIG, MPI_INT, np - 1, dup, &reqs[1]));
    OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup, &reqs[2]));
    OK(MPI_Iallgather(s1, 4, MPI_INT, g, 4, MPI_INT, MPI_COMM_WORLD, &reqs[3]));
    OK(MPI_Iallreduce(&one, &sum2, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[4]));
    OK(MPI_Ibarrier(dup, &reqs[5]));
    for (int k = 0; k < NRING; k++) {
        int n = k % 2 ? BIG : 10;
        ring_start(&reqs[6 + 2 * k], rout + (size_t)k * BIG, rin + (size_t)k * BIG, n, 100 + k);
    }
    /* Testany until everything is done: schedules and p2p mixed */
    while (done < 6 + 2 * NRING) {
        OK(MPI_Testany(6 + 2 * NRING, reqs, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag && idx != MPI_UNDEFINED) {
            done++;
        }
        CHECK(!(flag && idx == MPI_UNDEFINED && done < 6 + 2 * NRING), "Testany: none live");
        if (flag && idx == MPI_UNDEFINED) {
            break;
        }
    }
    for (int i = 0; i < BIG; i++) {
        CHECK(b1[i] == val(1, i) && b2[i] == val(2, i), "overlapped Ibcasts [%d]: %d %d", i, b1[i],
              b2[i]);
        if (b1[i] != val(1, i) || b2[i] != val(2, i)) {
            break;
        }
    }
    CHECK(sum == np && sum2 == np, "overlapped Iallreduces: %d %d", sum, sum2);
    for (int r = 0; r < np; r++) {
        for (int i = 0; i < 4; i++) {
            CHECK(g[r * 4 + i] == val(r, i), "overlapped Iallgather from %d [%d]", r, i);
        }
    }
    for (int k = 0; k < NRING; k++) {
        ring_check(rin + (size_t)k * BIG, k % 2 ? BIG : 10, 100 + k);
    }
    /* completed in reverse order with Waitall, rings in between */
    sum = sum2 = -1;
    OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
    ring_start(&reqs[1], rout, rin, BIG, 200);
    OK(MPI_Iallreduce(&one, &sum2, 1, MPI_INT, MPI_SUM, dup, &reqs[3]));
    OK(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));
    OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(sum == np && sum2 == np, "Waitall of Iallreduces: %d %d", sum, sum2);
    ring_check(rin, BIG, 200);
    OK(MPI_Comm_free(&dup)); /* its schedules are done; a new one on dup would be erroneous */
    free(b1);
    free(b2);
    free(g);
    free(s1);
    free(rout);
    free(rin);
}

/* A blocking receive must move the schedules: rank r < np - 1 receives from r + 1 before it
 * waits for the Ibcast, and the last rank waits for the Ibcast before it sends; the Ibcast
 * reaches the last rank only through ranks blocked in MPI_Recv (binomial tree from 0). */
static void test_chain(void)
{
    for (int len = 10; len <= BIG; len *= 7) {
        int *buf = ints((size_t)len), token = 0;
        MPI_Request req;

        for (int i = 0; i < len; i++) {
            buf[i] = me == 0 ? val(5, i) : -1;
        }
        OK(MPI_Ibcast(buf, len, MPI_INT, 0, MPI_COMM_WORLD, &req));
        if (me == np - 1) {
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Recv(&token, 1, MPI_INT, me + 1, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (me > 0) {
            OK(MPI_Send(&token, 1, MPI_INT, me - 1, 300, MPI_COMM_WORLD));
        }
        if (me != np - 1) {
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < len; i++) {
            CHECK(buf[i] == val(5, i), "chained Ibcast of %d [%d] = %d", len, i, buf[i]);
            if (buf[i] != val(5, i)) {
                break;
            }
        }
        free(buf);
    }
}

/* misuse: errors name the call, the schedule still completes */
static void test_errors(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int x = 0, y = 0;

    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    FAILS(MPI_Ibcast(&x, 1, MPI_INT, np, MPI_COMM_WORLD, &req), MPI_ERR_ROOT);
    FAILS(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    FAILS(MPI_Igather(&x, -1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    FAILS(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), MPI_ERR_OP);
    FAILS(MPI_Iallreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, &req),
          MPI_ERR_TYPE);
    FAILS(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM);
    FAILS(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK(req == MPI_REQUEST_NULL, "a failed call set the request");
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    FAILS(MPI_Request_free(&req), MPI_ERR_REQUEST);
    FAILS(MPI_Cancel(&req), MPI_ERR_REQUEST);
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 9;
    counts[NCOUNTS - 1] = np > 4 ? BIG / 4 : BIG;
    test_barrier_bcast();
    phase("Ibarrier, Ibcast");
    test_gather_scatter();
    phase("Igather, Iscatter");
    test_all();
    phase("Iallgather, Ialltoall");
    test_sum();
    phase("Ireduce, Iallreduce, Ireduce_scatter_block, Iscan (MPI_SUM)");
    test_user_op();
    test_user_op_freed();
    phase("a non-commutative user operation (also freed, with its type, while in use)");
    test_minloc_vector();
    phase("MINLOC, MAX on a vector type");
    test_overlap();
    phase("several at once, overlapped with point-to-point");
    test_chain();
    phase("a blocking receive moves the schedules");
    test_errors();
    phase("errors");
    MPI_Finalize();
    return summary();
}
