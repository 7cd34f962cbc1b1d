/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collectives, checked against serial references computed locally from the same inputs
 * (every rank can generate every rank's input).
 *
 *   coll_test [options]
 *     --colls a,b,...   collectives to run (default all: barrier bcast reduce allreduce
 *                       allgather alltoall gather scatter reduce_scatter)
 *     --sizes a,b,...   vector sizes: a plain number is a count of elements, one with a k or
 *                       m suffix is bytes (default 0,1,7,1k,64k,1m)
 *     --algs all|auto|env  all (default): every algorithm, forced one by one, then auto;
 *                       auto: the automatic choice only; env: whatever RCMSG_COLL_* says
 *     --expect coll=alg the algorithm the last call of coll must have run (with --algs env)
 *     --ops full|some   full (default): every (datatype, op) pair up to 1 KiB and four of
 *                       them above; some: four pairs at every size
 *     --steady-only     only the steady loops (below), on the world
 *
 * Besides the matrix: in-place variants (sizes up to 1 KiB), guard bytes after every result,
 * a user receive posted with wildcards that no collective may match, the same collectives on
 * a split and a dup of the world, floating-point allreduce results compared bitwise across
 * ranks (values whose sums round differently in different orders, and +-0.0), steady loops
 * of every collective that must allocate no scratch after their first call, and bad
 * arguments. Prints "rank R of N: F failure(s)" and exits non-zero on any failure.
 */
#include "base/config_vars.h"
#include "collectives/coll.h"
#include "pml/pml.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size, failures;
static rcmsg_comm_t world;

#include "../test_check.h"

#define GUARD      64
#define GUARD_BYTE 0xa5

/* ---- inputs and references ---- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Element i of rank r's input (salt: which call). Integers span their whole range (sums and
 * products wrap) with a quarter zeros (for the logical operations); floating-point values
 * are k/4 with |k| <= 8, so every sum and product over 8 ranks is exact in any order. */
static void gen(rcmsg_datatype_t dt, int r, uint64_t salt, size_t count, void *out)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t h = mix(salt * 1000003u + (uint64_t)r * 7919u + i);
        uint64_t v = (h & 3) == 0 ? 0 : h >> 2;
        double f = (double)((int)(h % 17) - 8) / 4.0;

        switch (dt) {
#define GEN_INT(name, type)                                                                        \
    case RCMSG_##name:                                                                             \
        ((type *)out)[i] = (type)v;                                                                \
        break;
            GEN_INT(INT8, int8_t)
            GEN_INT(UINT8, uint8_t)
            GEN_INT(INT16, int16_t)
            GEN_INT(UINT16, uint16_t)
            GEN_INT(INT32, int32_t)
            GEN_INT(UINT32, uint32_t)
            GEN_INT(INT64, int64_t)
            GEN_INT(UINT64, uint64_t)
#undef GEN_INT
        case RCMSG_FLOAT:
            ((float *)out)[i] = (float)f;
            break;
        case RCMSG_DOUBLE:
            ((double *)out)[i] = f;
            break;
        default:
            break;
        }
    }
}

/* ref = input(0) op input(1) op ... over ranks [0, n), elements [first, first + count) */
static void reference(rcmsg_datatype_t dt, rcmsg_op_t op, uint64_t salt, int n, size_t total,
                      size_t first, size_t count, void *ref, void *scratch)
{
    size_t es = rcmsg_datatype_size(dt);

    gen(dt, 0, salt, total, scratch);
    memcpy(ref, (char *)scratch + first * es, count * es);
    for (int r = 1; r < n; r++) {
        gen(dt, r, salt, total, scratch);
        rcmsg_coll_op_reduce(op, dt, (char *)scratch + first * es, ref, count);
    }
}

static void *xalloc(size_t n)
{
    void *p = malloc(n + GUARD);

    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(2);
    }
    memset(p, GUARD_BYTE, n + GUARD);
    return p;
}

static int guard_ok(const void *buf, size_t n)
{
    for (size_t i = 0; i < GUARD; i++) {
        if (((const unsigned char *)buf)[n + i] != GUARD_BYTE) {
            return 0;
        }
    }
    return 1;
}

/* ---- one call, checked ---- */

typedef struct {
    rcmsg_coll_t coll;
    rcmsg_comm_t comm;
    int crank, csize;
    size_t count;
    rcmsg_datatype_t dt;
    rcmsg_op_t op;
    int root;
    int in_place;
    int alg; /* forced algorithm, 0 auto, -1 whatever the environment says */
    uint64_t salt;
} call_t;

static const char *call_text(const call_t *c)
{
    static char text[256];

    snprintf(text, sizeof(text), "%s/%s count %zu %s %s root %d%s on %d ranks",
             rcmsg_coll_name(c->coll),
             c->alg < 0 ? "env" : rcmsg_coll_algorithm_name(c->coll, c->alg), c->count,
             rcmsg_coll_dtype_name(c->dt), rcmsg_coll_op_name(c->op), c->root,
             c->in_place ? " in place" : "", c->csize);
    return text;
}

/* Compares got with want, element by element; reports the first difference. */
static void expect(const call_t *c, const void *got, const void *want, size_t count,
                   const char *what)
{
    size_t es = rcmsg_datatype_size(c->dt);

    for (size_t i = 0; i < count; i++) {
        if (memcmp((const char *)got + i * es, (const char *)want + i * es, es) != 0) {
            CHECK(0, "%s: %s element %zu differs", call_text(c), what, i);
            return;
        }
    }
}

static void run_call(const call_t *c)
{
    size_t es = rcmsg_datatype_size(c->dt), n = c->count, p = (size_t)c->csize;
    size_t vec = n * es, all = p * vec, r = (size_t)c->crank;
    int root = c->root;
    char *sbuf = xalloc(all), *rbuf = xalloc(all), *want = xalloc(all), *scr = xalloc(all);
    char *scopy = xalloc(all); /* sbuf as it was before the call: the call must only read it */
    rcmsg_status_t s = RCMSG_ERR_UNSUPPORTED;
    size_t rlen = 0; /* result bytes in rbuf to check, 0 for none */

    if (c->alg >= 0) {
        rcmsg_coll_algorithm_force(c->coll, c->alg);
    }
    switch (c->coll) {
    case RCMSG_COLL_BARRIER:
        s = rcmsg_barrier(c->comm);
        break;
    case RCMSG_COLL_BCAST:
        if (c->crank == root) {
            gen(c->dt, root, c->salt, n, rbuf);
        }
        gen(c->dt, root, c->salt, n, want);
        memcpy(scopy, sbuf, all);
        s = rcmsg_bcast(rbuf, n, c->dt, root, c->comm);
        rlen = vec;
        break;
    case RCMSG_COLL_REDUCE:
    case RCMSG_COLL_ALLREDUCE: {
        int has = c->coll == RCMSG_COLL_ALLREDUCE || c->crank == root;
        gen(c->dt, c->crank, c->salt, n, c->in_place && has ? rbuf : sbuf);
        reference(c->dt, c->op, c->salt, c->csize, n, 0, n, want, scr);
        if (c->coll == RCMSG_COLL_REDUCE) {
            memcpy(scopy, sbuf, all);
            s = rcmsg_reduce(c->in_place && has ? RCMSG_IN_PLACE : sbuf, has ? rbuf : NULL, n,
                             c->dt, c->op, root, c->comm);
        } else {
            memcpy(scopy, sbuf, all);
            s = rcmsg_allreduce(c->in_place ? RCMSG_IN_PLACE : sbuf, rbuf, n, c->dt, c->op,
                                c->comm);
        }
        rlen = has ? vec : 0;
        break;
    }
    case RCMSG_COLL_REDUCE_SCATTER:
        gen(c->dt, c->crank, c->salt, p * n, c->in_place ? rbuf : sbuf);
        reference(c->dt, c->op, c->salt, c->csize, p * n, r * n, n, want, scr);
        memcpy(scopy, sbuf, all);
        s = rcmsg_reduce_scatter_block(c->in_place ? RCMSG_IN_PLACE : sbuf, rbuf, n, c->dt, c->op,
                                       c->comm);
        rlen = vec;
        break;
    case RCMSG_COLL_ALLGATHER:
    case RCMSG_COLL_GATHER: {
        int has = c->coll == RCMSG_COLL_ALLGATHER || c->crank == root;
        for (int i = 0; i < c->csize; i++) {
            gen(c->dt, i, c->salt, n, want + (size_t)i * vec);
        }
        gen(c->dt, c->crank, c->salt, n, c->in_place && has ? rbuf + r * vec : sbuf);
        if (c->coll == RCMSG_COLL_GATHER) {
            memcpy(scopy, sbuf, all);
            s = rcmsg_gather(c->in_place && has ? RCMSG_IN_PLACE : sbuf, has ? rbuf : NULL, n,
                             c->dt, root, c->comm);
        } else {
            memcpy(scopy, sbuf, all);
            s = rcmsg_allgather(c->in_place ? RCMSG_IN_PLACE : sbuf, rbuf, n, c->dt, c->comm);
        }
        rlen = has ? all : 0;
        break;
    }
    case RCMSG_COLL_SCATTER:
        if (c->crank == root) {
            for (int i = 0; i < c->csize; i++) {
                gen(c->dt, i, c->salt, n, sbuf + (size_t)i * vec);
            }
        }
        gen(c->dt, c->crank, c->salt, n, want);
        if (c->in_place && c->crank == root) {
            memcpy(scopy, sbuf, all);
            s = rcmsg_scatter(sbuf, RCMSG_IN_PLACE, n, c->dt, root, c->comm);
            memcpy(rbuf, sbuf + r * vec, vec); /* the root's block stays in place */
        } else {
            memcpy(scopy, sbuf, all);
            s = rcmsg_scatter(c->crank == root ? sbuf : NULL, rbuf, n, c->dt, root, c->comm);
        }
        rlen = vec;
        break;
    case RCMSG_COLL_ALLTOALL:
        /* block j of rank i's input: gen(rank i * size + j) */
        for (size_t j = 0; j < p; j++) {
            gen(c->dt, (int)(r * p + j), c->salt, n, (c->in_place ? rbuf : sbuf) + j * vec);
            gen(c->dt, (int)(j * p + r), c->salt, n, want + j * vec);
        }
        memcpy(scopy, sbuf, all);
        s = rcmsg_alltoall(c->in_place ? RCMSG_IN_PLACE : sbuf, rbuf, n, c->dt, c->comm);
        rlen = all;
        break;
    default:
        break;
    }
    CHECK(s == RCMSG_OK, "%s returned %s", call_text(c), rcmsg_status_name(s));
    if (s == RCMSG_OK && rlen > 0) {
        expect(c, rbuf, want, rlen / es, "result");
    }
    if (c->in_place && c->coll == RCMSG_COLL_REDUCE_SCATTER) {
        rlen = all; /* the input filled rbuf; beyond the first block it is scratch */
    }
    CHECK(guard_ok(rbuf, rlen), "%s wrote past its result", call_text(c));
    CHECK(c->coll == RCMSG_COLL_BARRIER || memcmp(sbuf, scopy, all) == 0,
          "%s wrote into its send buffer", call_text(c));
    if (c->alg > 0) {
        CHECK(rcmsg_coll_algorithm_last(c->coll) == c->alg, "%s ran %s", call_text(c),
              rcmsg_coll_algorithm_name(c->coll, rcmsg_coll_algorithm_last(c->coll)));
        rcmsg_coll_algorithm_force(c->coll, RCMSG_COLL_ALG_AUTO);
    }
    free(sbuf);
    free(rbuf);
    free(want);
    free(scr);
    free(scopy);
}

/* ---- the matrix ---- */

static const struct {
    rcmsg_datatype_t dt;
    rcmsg_op_t op;
} some_pairs[] = {
    {RCMSG_DOUBLE, RCMSG_SUM},
    {RCMSG_UINT8, RCMSG_BXOR},
    {RCMSG_INT32, RCMSG_PROD},
    {RCMSG_FLOAT, RCMSG_MAX},
};

static int is_reduction(rcmsg_coll_t c)
{
    return c == RCMSG_COLL_REDUCE || c == RCMSG_COLL_ALLREDUCE || c == RCMSG_COLL_REDUCE_SCATTER;
}

/* size: elements, or bytes when bytes is set (then the count is bytes / element size) */
typedef struct {
    size_t v;
    int bytes;
} size_spec_t;

static unsigned long calls;

static void run_one(call_t *c, const size_spec_t *sz)
{
    c->count = sz->bytes ? sz->v / rcmsg_datatype_size(c->dt) : sz->v;
    c->salt++;
    c->root = c->csize > 0 ? (int)(c->salt % (uint64_t)c->csize) : 0;
    run_call(c);
    calls++;
}

static void matrix(rcmsg_comm_t comm, const int *colls, const size_spec_t *sizes, int nsizes,
                   const char *algs, int full_ops)
{
    call_t c = {.comm = comm, .crank = rcmsg_comm_rank(comm), .csize = rcmsg_comm_size(comm)};

    for (int ci = 0; ci < RCMSG_COLL_COUNT; ci++) {
        int nalg = rcmsg_coll_algorithm_count(ci), first = 1, lastalg = nalg;
        time_t t0 = time(NULL);

        if (!colls[ci]) {
            continue;
        }
        if (strcmp(algs, "auto") == 0) {
            first = lastalg = 0;
        } else if (strcmp(algs, "env") == 0) {
            first = lastalg = -1;
        }
        c.coll = ci;
        for (int alg = first; alg <= lastalg + (first > 0); alg++) {
            c.alg = alg > nalg ? 0 : alg; /* "all" ends with auto */
            for (int si = 0; si < nsizes; si++) {
                size_t bytes = sizes[si].bytes ? sizes[si].v : sizes[si].v * 8;
                int small = bytes <= 1024;

                if (c.coll == RCMSG_COLL_BARRIER) {
                    if (si == 0) {
                        c.dt = RCMSG_UINT8;
                        run_one(&c, &sizes[si]);
                    }
                    continue;
                }
                if (is_reduction(c.coll) && full_ops && small) {
                    for (int op = 0; op < RCMSG_OP_COUNT; op++) {
                        for (int dt = 0; dt < RCMSG_DATATYPE_COUNT; dt++) {
                            if (rcmsg_coll_op_valid(op, dt)) {
                                c.dt = dt;
                                c.op = op;
                                c.in_place = (op + dt) % 2;
                                run_one(&c, &sizes[si]);
                            }
                        }
                    }
                    continue;
                }
                for (size_t k = 0; k < sizeof(some_pairs) / sizeof(some_pairs[0]); k++) {
                    if (!is_reduction(c.coll) && k >= 2) {
                        break; /* 1- and 8-byte elements are enough for moving data */
                    }
                    c.dt = some_pairs[k].dt;
                    c.op = some_pairs[k].op;
                    c.in_place = small && k % 2 == 1;
                    run_one(&c, &sizes[si]);
                }
            }
        }
        if (c.crank == 0) {
            printf("ok: %s on %d ranks: %s algorithms, %ld s\n", rcmsg_coll_name(ci), c.csize, algs,
                   (long)(time(NULL) - t0));
            fflush(stdout);
        }
    }
}

/* ---- scratch: no allocation in a steady loop ---- */

/* Every collective x algorithm x (7 elements, 64 KiB) x (in place or not), each on a dup of
 * comm: after the first call, STEADY_CALLS more of the very same call make no allocation for
 * the communicator's scratch (src/collectives allocates nowhere else: scratch_src.sh). */
#define STEADY_CALLS 5

static void steady(rcmsg_comm_t comm)
{
    static const size_t counts[] = {7, 64 * 1024 / sizeof(double)};
    rcmsg_comm_t d = RCMSG_COMM_NULL;
    call_t c = {.dt = RCMSG_DOUBLE, .op = RCMSG_SUM};
    unsigned long total;

    CHECK(rcmsg_comm_dup(comm, &d) == RCMSG_OK, "dup for the steady loops failed");
    c.comm = d;
    c.crank = rcmsg_comm_rank(d);
    c.csize = rcmsg_comm_size(d);
    c.root = c.csize - 1;
    CHECK(rcmsg_coll_scratch_allocs(d) == 0, "a new communicator starts with %lu allocations",
          rcmsg_coll_scratch_allocs(d));
    for (int ci = 0; ci < RCMSG_COLL_COUNT; ci++) {
        for (int alg = 1; alg <= rcmsg_coll_algorithm_count(ci); alg++) {
            for (size_t k = 0; k < 2 * sizeof(counts) / sizeof(counts[0]); k++) {
                unsigned long before;

                c.coll = ci;
                c.alg = alg;
                c.count = counts[k / 2];
                c.in_place = (int)(k % 2) && ci != RCMSG_COLL_BCAST && ci != RCMSG_COLL_BARRIER;
                c.salt++;
                run_call(&c);
                before = rcmsg_coll_scratch_allocs(d);
                for (int i = 0; i < STEADY_CALLS; i++) {
                    run_call(&c);
                }
                CHECK(rcmsg_coll_scratch_allocs(d) == before,
                      "%s: %lu allocations in %d calls after the first", call_text(&c),
                      rcmsg_coll_scratch_allocs(d) - before, STEADY_CALLS);
                calls += 1 + STEADY_CALLS;
            }
        }
    }
    total = rcmsg_coll_scratch_allocs(d);
    rcmsg_comm_free(&d);
    if (rank == 0) {
        printf("ok: steady loops of every collective and algorithm allocate nothing after their "
               "first call (%lu allocations in all, on a dup)\n",
               total);
    }
}

/* A binomial reduce whose root has one child (2 ranks), not in place, receives the child's
 * vector straight into the root's result buffer and reduces there: the root takes no scratch
 * for data (the third vector made 512 KiB-1 MiB 1.5x slower: docs/performance.md, issue 19),
 * only the schedule's steps (a few KiB, far less than the 64 KiB vector). */
static void reduce_root_scratch(rcmsg_comm_t comm)
{
    rcmsg_comm_t d = RCMSG_COMM_NULL;
    call_t c = {.coll = RCMSG_COLL_REDUCE,
                .alg = RCMSG_COLL_REDUCE_ALG_BINOMIAL,
                .dt = RCMSG_DOUBLE,
                .op = RCMSG_SUM,
                .count = 64 * 1024 / sizeof(double)};

    if (rcmsg_comm_size(comm) != 2) {
        return;
    }
    CHECK(rcmsg_comm_dup(comm, &d) == RCMSG_OK, "dup for the reduce scratch check failed");
    c.comm = d;
    c.crank = rcmsg_comm_rank(d);
    c.csize = rcmsg_comm_size(d);
    run_call(&c);
    if (c.crank == c.root) {
        CHECK(rcmsg_coll_scratch_bytes(d) < c.count * sizeof(double) / 4,
              "%s: the root took %zu bytes of scratch; the child's vector should go "
              "straight into its result buffer",
              call_text(&c), rcmsg_coll_scratch_bytes(d));
    }
    rcmsg_comm_free(&d);
    if (rank == 0) {
        printf("ok: a 2-rank binomial reduce takes no scratch for data at its root\n");
    }
}

/* ---- floating point: the same bits everywhere ---- */

static void fp_bitwise(rcmsg_comm_t p2p)
{
    enum { N = 257 };
    static const rcmsg_op_t ops[] = {RCMSG_SUM, RCMSG_PROD, RCMSG_MIN, RCMSG_MAX};

    for (int alg = 1; alg <= rcmsg_coll_algorithm_count(RCMSG_COLL_ALLREDUCE); alg++) {
        for (size_t k = 0; k < 4; k++) {
            double in[N], out[N], other[N], ref[N], mag[N];
            float fin[N], fout[N], fother[N];

            for (int i = 0; i < N; i++) {
                uint64_t h = mix((uint64_t)rank * 977 + (uint64_t)i);
                /* magnitudes 1e-8..1e8: sums round differently in different orders */
                in[i] = ((double)(h >> 11) / 9007199254740992.0 - 0.5) * pow(10, (int)(h % 17) - 8);
                if (i % 16 == 0) {
                    in[i] = (rank % 2) ? -0.0 : 0.0;
                }
                fin[i] = (float)in[i];
            }
            rcmsg_coll_algorithm_force(RCMSG_COLL_ALLREDUCE, alg);
            CHECK(rcmsg_allreduce(in, out, N, RCMSG_DOUBLE, ops[k], world) == RCMSG_OK,
                  "fp allreduce failed");
            CHECK(rcmsg_allreduce(fin, fout, N, RCMSG_FLOAT, ops[k], world) == RCMSG_OK,
                  "fp allreduce failed");
            rcmsg_coll_algorithm_force(RCMSG_COLL_ALLREDUCE, RCMSG_COLL_ALG_AUTO);
            /* rank 0 compares everyone's bits, over plain point-to-point (not on the world,
             * where a wildcard receive waits) */
            if (rank == 0) {
                for (int r = 1; r < size; r++) {
                    rcmsg_recv(other, sizeof(other), r, 77, p2p, NULL);
                    rcmsg_recv(fother, sizeof(fother), r, 78, p2p, NULL);
                    CHECK(memcmp(other, out, sizeof(out)) == 0 &&
                              memcmp(fother, fout, sizeof(fout)) == 0,
                          "allreduce/%s %s: rank %d's result is not bitwise rank 0's",
                          rcmsg_coll_algorithm_name(RCMSG_COLL_ALLREDUCE, alg),
                          rcmsg_coll_op_name(ops[k]), r);
                }
            } else {
                rcmsg_send(out, sizeof(out), 0, 77, p2p);
                rcmsg_send(fout, sizeof(fout), 0, 78, p2p);
            }
            /* and the sum is right to rounding */
            if (ops[k] == RCMSG_SUM) {
                memset(ref, 0, sizeof(ref));
                memset(mag, 0, sizeof(mag));
                for (int r = 0; r < size; r++) {
                    for (int i = 0; i < N; i++) {
                        uint64_t h = mix((uint64_t)r * 977 + (uint64_t)i);
                        double v = ((double)(h >> 11) / 9007199254740992.0 - 0.5) *
                                   pow(10, (int)(h % 17) - 8);
                        ref[i] += i % 16 == 0 ? 0.0 : v;
                        mag[i] += fabs(v);
                    }
                }
                for (int i = 0; i < N; i++) {
                    CHECK(fabs(out[i] - ref[i]) <= 1e-15 * mag[i] * size,
                          "fp sum element %d: %.17g vs %.17g", i, out[i], ref[i]);
                }
            }
        }
    }
    if (rank == 0) {
        printf("ok: floating-point allreduce bitwise identical on all %d ranks (every "
               "algorithm, sum/prod/min/max, +-0.0)\n",
               size);
    }
}

/* ---- bad arguments: clear errors, no communication ---- */

static void bad_args(void)
{
    double d[4] = {0};

    CHECK(rcmsg_allreduce(d, d + 2, 1, RCMSG_DOUBLE, RCMSG_BXOR, world) == RCMSG_ERR_UNSUPPORTED,
          "BXOR on DOUBLE accepted");
    CHECK(rcmsg_allreduce(d, d + 2, 1, RCMSG_DATATYPE_COUNT, RCMSG_SUM, world) ==
              RCMSG_ERR_INVALID_PARAM,
          "unknown datatype accepted");
    CHECK(rcmsg_allreduce(d, d + 2, 1, RCMSG_DOUBLE, (rcmsg_op_t)99, world) ==
              RCMSG_ERR_INVALID_PARAM,
          "unknown op accepted");
    CHECK(rcmsg_bcast(d, 1, RCMSG_DOUBLE, size, world) == RCMSG_ERR_INVALID_PARAM,
          "root out of range accepted");
    CHECK(rcmsg_bcast(NULL, 1, RCMSG_DOUBLE, 0, world) == RCMSG_ERR_INVALID_PARAM,
          "NULL buffer accepted");
    CHECK(rcmsg_bcast(RCMSG_IN_PLACE, 1, RCMSG_DOUBLE, 0, world) == RCMSG_ERR_INVALID_PARAM,
          "RCMSG_IN_PLACE accepted by bcast");
    CHECK(rcmsg_allgather(d, d, SIZE_MAX / 2, RCMSG_DOUBLE, world) == RCMSG_ERR_INVALID_PARAM,
          "overflowing count accepted");
    CHECK(rcmsg_barrier(NULL) == RCMSG_ERR_INVALID_PARAM, "NULL communicator accepted");
    if (rank == 0) {
        printf("ok: bad arguments refused\n");
    }
}

/* Ranks that disagree on the count (MPICH's errors/coll/allreducelength): rank 0 says short
 * where the others say long, then the reverse, blocking and nonblocking. Each rank returns,
 * RCMSG_OK or RCMSG_ERR_INVALID_PARAM, and some rank reports it: a rank that meets a message
 * of the wrong size runs the algorithm on (the others wait for its later messages; it stopped
 * there once, and they hung). The next collective is right. */
static void count_mismatch(void)
{
    enum { LONG = 10 };
    int32_t in[LONG], out[LONG];
    int bad = 0, sum = 0;

    for (int round = 0; round < 4; round++) {
        size_t n = (rank == 0) == (round % 2 == 0) ? 1 : LONG;
        rcmsg_request_t req;
        rcmsg_status_t st;

        for (int i = 0; i < LONG; i++) {
            in[i] = rank + 1;
        }
        if (round < 2) {
            st = rcmsg_allreduce(in, out, n, RCMSG_INT32, RCMSG_SUM, world);
        } else {
            st = rcmsg_iallreduce(in, out, n, RCMSG_INT32, RCMSG_SUM, world, &req);
            if (st == RCMSG_OK) {
                st = rcmsg_wait(&req, NULL);
            }
        }
        CHECK(st == RCMSG_OK || st == RCMSG_ERR_INVALID_PARAM, "mismatched %sallreduce: %s",
              round < 2 ? "" : "i", rcmsg_status_name(st));
        bad += st != RCMSG_OK; /* back to back, as MPICH's test: no call between them */
    }
    CHECK(rcmsg_allreduce(&bad, &sum, 1, RCMSG_INT32, RCMSG_SUM, world) == RCMSG_OK,
          "the allreduce after the mismatched ones failed");
    CHECK(sum >= 4, "only %d mismatched calls reported, on all ranks together (4 calls)", sum);
    if (rank == 0) {
        printf("ok: allreduce and iallreduce with counts that differ between ranks: every rank "
               "returned, the mismatch reported, the next call right\n");
    }
}

/* Edges: the same buffer twice to alltoall, a count that differs on one rank, and taking back
 * a posted receive (what a collective does when its send cannot be posted) on p2p. */
static void edges(rcmsg_comm_t p2p)
{
    enum { N = 5 };
    int *buf = malloc(sizeof(int) * N * (size_t)size), x = 0;
    rcmsg_comm_t pair = RCMSG_COMM_NULL;
    rcmsg_request_t req;

    for (int j = 0; j < size * N; j++) {
        buf[j] = rank * 1000 + j; /* block j / N goes to rank j / N */
    }
    CHECK(rcmsg_alltoall(buf, buf, N, RCMSG_INT32, world) == RCMSG_OK, "aliased alltoall failed");
    for (int j = 0; j < size * N; j++) {
        int from = j / N, k = j % N;
        CHECK(buf[j] == from * 1000 + rank * N + k, "aliased alltoall: element %d is %d", j,
              buf[j]);
    }
    free(buf);
    if (rank == 0) {
        printf("ok: alltoall with the same buffer passed twice\n");
    }

    /* ranks 0 and 1: rank 1 says 8 elements where the root broadcasts 7 */
    rcmsg_comm_split(world, rank < 2 ? 0 : RCMSG_UNDEFINED, rank, &pair);
    if (pair != RCMSG_COMM_NULL && rcmsg_comm_size(pair) == 2) {
        double d[8] = {0};
        rcmsg_status_t s = rcmsg_bcast(d, rank == 1 ? 8 : 7, RCMSG_DOUBLE, 0, pair);

        CHECK(s == (rank == 1 ? RCMSG_ERR_INVALID_PARAM : RCMSG_OK),
              "mismatched bcast count returned %s", rcmsg_status_name(s));
        /* and too much data: rank 1 says 6 where the root broadcasts 7 (rcmsg.h: the receiver
         * fails with RCMSG_ERR_INVALID_PARAM, as for too little, not RCMSG_ERR_TRUNCATED) */
        s = rcmsg_bcast(d, rank == 1 ? 6 : 7, RCMSG_DOUBLE, 0, pair);
        CHECK(s == (rank == 1 ? RCMSG_ERR_INVALID_PARAM : RCMSG_OK),
              "bcast with a smaller count on the receiver returned %s", rcmsg_status_name(s));
        if (rank == 0) {
            printf("ok: a count that differs on the receiver (larger or smaller) is reported "
                   "there as RCMSG_ERR_INVALID_PARAM\n");
        }
    }
    if (pair != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&pair);
    }

    CHECK(rcmsg_irecv(&x, sizeof(x), rank, 4242, p2p, &req) == RCMSG_OK, "irecv failed");
    CHECK(rcmsg_pml_cancel_recv(&req) == RCMSG_OK && req == RCMSG_REQUEST_NULL,
          "a posted receive could not be taken back");
    x = 7;
    CHECK(rcmsg_isend(&x, sizeof(x), rank, 4242, p2p, &req) == RCMSG_OK, "isend failed");
    {
        int y = 0;
        rcmsg_recv(&y, sizeof(y), rank, 4242, p2p, NULL);
        rcmsg_wait(&req, NULL);
        CHECK(y == 7, "after the cancel, the message went elsewhere (got %d)", y);
    }
    if (rank == 0) {
        printf("ok: a posted receive is taken back\n");
    }
}

static int parse_colls(const char *arg, int *colls)
{
    char buf[512], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", arg);
    memset(colls, 0, sizeof(int) * RCMSG_COLL_COUNT);
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int c = 0; c < RCMSG_COLL_COUNT; c++) {
            if (strcmp(t, rcmsg_coll_name(c)) == 0) {
                colls[c] = found = 1;
            }
        }
        if (!found) {
            fprintf(stderr, "coll_test: unknown collective '%s'\n", t);
            return -1;
        }
    }
    return 0;
}

static int parse_sizes(const char *arg, size_spec_t *sizes, int max)
{
    char buf[512], *save = NULL;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", arg);
    for (char *t = strtok_r(buf, ",", &save); t != NULL && n < max;
         t = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long v = strtoull(t, &end, 10);

        sizes[n].bytes = *end == 'k' || *end == 'm';
        sizes[n].v = (size_t)v * (*end == 'k' ? 1024 : *end == 'm' ? 1024 * 1024 : 1);
        if (end == t || (*end != '\0' && end[1] != '\0')) {
            fprintf(stderr, "coll_test: bad size '%s'\n", t);
            return -1;
        }
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    int colls[RCMSG_COLL_COUNT], full_ops = 1, nsizes, steady_only = 0;
    size_spec_t sizes[16];
    const char *algs = "all", *expects[16];
    int nexpect = 0;
    rcmsg_comm_t split = RCMSG_COMM_NULL, dup = RCMSG_COMM_NULL;
    rcmsg_request_t user = RCMSG_REQUEST_NULL;
    int user_msg = -1, flag = 0;
    time_t t0 = time(NULL);

    for (int c = 0; c < RCMSG_COLL_COUNT; c++) {
        colls[c] = 1;
    }
    nsizes = parse_sizes("0,1,7,1k,64k,1m", sizes, 16);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--colls") == 0 && i + 1 < argc) {
            if (parse_colls(argv[++i], colls) != 0) {
                return 2;
            }
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = parse_sizes(argv[++i], sizes, 16);
            if (nsizes < 0) {
                return 2;
            }
        } else if (strcmp(argv[i], "--algs") == 0 && i + 1 < argc) {
            algs = argv[++i];
        } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            full_ops = strcmp(argv[++i], "full") == 0;
        } else if (strcmp(argv[i], "--steady-only") == 0) {
            steady_only = 1;
        } else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc && nexpect < 16) {
            expects[nexpect++] = argv[++i];
        } else {
            fprintf(stderr, "coll_test: unknown or incomplete argument '%s' (see the source)\n",
                    argv[i]);
            return 2;
        }
    }
    if (strcmp(algs, "all") != 0 && strcmp(algs, "auto") != 0 && strcmp(algs, "env") != 0) {
        fprintf(stderr, "coll_test: --algs takes all, auto or env\n");
        return 2;
    }
    if (rcmsg_init() != RCMSG_OK) {
        fprintf(stderr, "coll_test: rcmsg_init failed\n");
        return 1;
    }
    world = rcmsg_comm_world();
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (steady_only) {
        steady(world);
        printf("rank %d of %d: %lu collective calls, %ld s, %d failure(s)\n", rank, size, calls,
               (long)(time(NULL) - t0), failures);
        fflush(stdout);
        rcmsg_finalize();
        return failures == 0 ? 0 : 1;
    }

    /* a user receive that matches anything: no collective message may complete it */
    rcmsg_irecv(&user_msg, sizeof(user_msg), RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, world, &user);

    matrix(world, colls, sizes, nsizes, algs, full_ops);
    if (strcmp(algs, "env") != 0) {
        size_spec_t sub_sizes[2] = {{7, 0}, {1024, 1}};

        /* any communicator: a split into two halves (ranks reversed) and a dup */
        rcmsg_comm_split(world, rank % 2, size - rank, &split);
        rcmsg_comm_dup(world, &dup);
        matrix(split, colls, sub_sizes, 2, "all", 0);
        matrix(dup, colls, sub_sizes, 2, "auto", 0);
        if (rank == 0) {
            printf("ok: the same on a split (color rank %% 2, reversed) and a dup\n");
        }
        fp_bitwise(dup);
        steady(world);
        reduce_root_scratch(world);
        bad_args();
        edges(dup);
        if (size >= 2) {
            count_mismatch();
        }
    }

    {
        rcmsg_msg_status_t st;

        rcmsg_test(&user, &flag, &st);
        CHECK(!flag,
              "a collective message matched a user receive posted with wildcards: source %d, "
              "tag 0x%x, %zu bytes",
              st.source, st.tag, st.count);
        rcmsg_barrier(world); /* every rank has looked before any user message is sent */
    }
    {
        int v = rank; /* now a real user message, with a tag collectives use internally */
        rcmsg_send(&v, sizeof(v), (rank + 1) % size, 0x7fff0003, world);
        rcmsg_wait(&user, NULL);
        CHECK(user_msg == (rank - 1 + size) % size, "the user message got %d", user_msg);
    }

    for (int i = 0; i < nexpect; i++) {
        char name[64];
        const char *eq = strchr(expects[i], '=');
        int c;

        if (eq == NULL || (size_t)(eq - expects[i]) >= sizeof(name)) {
            CHECK(0, "bad --expect '%s'", expects[i]);
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(eq - expects[i]), expects[i]);
        for (c = 0; c < RCMSG_COLL_COUNT && strcmp(name, rcmsg_coll_name(c)) != 0; c++) {
        }
        CHECK(c < RCMSG_COLL_COUNT &&
                  strcmp(rcmsg_coll_algorithm_name(c, rcmsg_coll_algorithm_last(c)), eq + 1) == 0,
              "%s ran %s, not %s", name,
              c < RCMSG_COLL_COUNT ? rcmsg_coll_algorithm_name(c, rcmsg_coll_algorithm_last(c))
                                   : "?",
              eq + 1);
    }
    if (split != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&split);
    }
    if (dup != RCMSG_COMM_NULL) {
        rcmsg_comm_free(&dup);
    }
    printf("rank %d of %d: %lu collective calls, %ld s, %d failure(s)\n", rank, size, calls,
           (long)(time(NULL) - t0), failures);
    fflush(stdout);
    rcmsg_finalize();
    return failures == 0 ? 0 : 1;
}
