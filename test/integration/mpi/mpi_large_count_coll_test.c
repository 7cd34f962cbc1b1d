/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-4.0's large-count (_c) forms of the persistent and the neighborhood collectives, data
 * checked, on any number of ranks: every persistent one (Bcast_init_c ... Alltoallw_init_c,
 * the reductions', the v and w forms') started twice with new data each time, the rooted
 * ones with the non-roots' counts that are not significant past INT_MAX (accepted, not
 * checked: MPI says they are not read); every neighborhood one (Neighbor_allgather(v)_c,
 * Neighbor_alltoall(v, w)_c) blocking, nonblocking and persistent (started twice) on a
 * periodic ring (Cart_create) and on a distributed graph (Dist_graph_create_adjacent; its
 * neighbors repeat on 1 and 2 ranks); the errors: a count past INT_MAX refused with
 * MPI_ERR_COUNT, the error string naming the _c call (never cut), persistent and
 * neighborhood, and so do the errors the int forms they run find (a datatype, an operation,
 * no topology), blocking, nonblocking and persistent; an init refused
 * on the root alone (its own count) while the others' succeed, the communicator's next collective
 * still in step.
 */
#include "mpi_test.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define N    7  /* ints per block */
#define MAXP 64 /* ranks, and neighbors */

static const MPI_Count big = (MPI_Count)INT_MAX + 1;

static int val(int r, int i, int k)
{
    return r * 1009 + i * 7 + k * 100003;
}

/* the sum over ranks lo..hi-1 of val(r, i, k) */
static int sum(int lo, int hi, int i, int k)
{
    int s = 0;

    for (int r = lo; r < hi; r++) {
        s += val(r, i, k);
    }
    return s;
}

static void names(int code, const char *name)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    const char *at;
    char next;

    MPI_Error_string(code, s, &len);
    at = strstr(s, name);
    next = at == NULL ? '_' : at[strlen(name)];
    CHECK(next != '_' && !isalnum((unsigned char)next), "error string \"%s\" does not name %s", s,
          name);
}

/* a call that fails with class cls, its error string naming name */
#define FAILS_NAMED(call, cls, name)                                                               \
    do {                                                                                           \
        int c_ = (call);                                                                           \
        FAILS(c_, cls);                                                                            \
        names(c_, name);                                                                           \
    } while (0)

/* a persistent request started and completed, then (last) freed */
static void run(MPI_Request *req, bool last)
{
    OK(MPI_Start(req));
    OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (last) {
        OK(MPI_Request_free(req));
    }
}

/* n ints of p against val(r, i + off, k) (r: the block's rank, n / N blocks) */
static int wrong(const int *p, int nblocks, const int *ranks, int off_mul, int k)
{
    int bad = 0;

    for (int b = 0; b < nblocks; b++) {
        int r = ranks == NULL ? b : ranks[b];

        for (int i = 0; i < N; i++) {
            bad += p[b * N + i] != val(r, i + off_mul * 7, k);
        }
    }
    return bad;
}

/* ---- the persistent ones ------------------------------------------------------------------ */
static void test_pers_rooted(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp, MPI_Count *bigcnt)
{
    int root = np - 1, is_root = me == root;
    MPI_Request req[5];

    OK(MPI_Bcast_init_c(rb, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    /* the non-roots' receive counts are not significant: past INT_MAX, accepted */
    OK(MPI_Gather_init_c(sb, N, MPI_INT, rb, is_root ? N : big, MPI_INT, root, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]));
    OK(MPI_Gatherv_init_c(sb, N, MPI_INT, rb, is_root ? cnt : bigcnt, dsp, MPI_INT, root,
                          MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
    OK(MPI_Scatter_init_c(sb, is_root ? N : big, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &req[3]));
    OK(MPI_Scatterv_init_c(sb, is_root ? cnt : bigcnt, dsp, MPI_INT, rb, N, MPI_INT, root,
                           MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]));
    for (int k = 0; k < 2; k++) {
        bool last = k == 1;

        for (int i = 0; i < N; i++) {
            rb[i] = is_root ? val(7, i, 60 + k) : 0;
        }
        run(&req[0], last);
        CHECK(wrong(rb, 1, (int[]){7}, 0, 60 + k) == 0, "Bcast_init_c, start %d", k);
        for (int v = 0; v < 2; v++) {
            memset(rb, 0, (size_t)np * N * sizeof(int));
            for (int i = 0; i < N; i++) {
                sb[i] = val(me, i, 61 + k + v);
            }
            run(&req[1 + v], last);
            CHECK(!is_root || wrong(rb, np, NULL, 0, 61 + k + v) == 0, "%s, start %d",
                  v == 0 ? "Gather_init_c" : "Gatherv_init_c", k);
        }
        for (int v = 0; v < 2; v++) {
            for (int r = 0; is_root && r < np; r++) {
                for (int i = 0; i < N; i++) {
                    sb[r * N + i] = val(r + 50, i, 63 + k + v);
                }
            }
            memset(rb, 0, N * sizeof(int));
            run(&req[3 + v], last);
            CHECK(wrong(rb, 1, (int[]){me + 50}, 0, 63 + k + v) == 0, "%s, start %d",
                  v == 0 ? "Scatter_init_c" : "Scatterv_init_c", k);
        }
    }
}

static void test_pers_all(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp)
{
    MPI_Datatype types[MAXP];
    MPI_Aint bytes[MAXP];
    MPI_Request req[5];
    static const char *const what[] = {"Allgather_init_c", "Allgatherv_init_c", "Alltoall_init_c",
                                       "Alltoallv_init_c", "Alltoallw_init_c"};

    for (int r = 0; r < np; r++) {
        types[r] = MPI_INT;
        bytes[r] = dsp[r] * (MPI_Aint)sizeof(int);
    }
    OK(MPI_Allgather_init_c(sb, N, MPI_INT, rb, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &req[0]));
    OK(MPI_Allgatherv_init_c(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &req[1]));
    OK(MPI_Alltoall_init_c(sb, N, MPI_INT, rb, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
    OK(MPI_Alltoallv_init_c(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[3]));
    OK(MPI_Alltoallw_init_c(sb, cnt, bytes, types, rb, cnt, bytes, types, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &req[4]));
    for (int k = 0; k < 2; k++) {
        for (int v = 0; v < 5; v++) {
            bool a2a = v >= 2;

            memset(rb, 0, (size_t)np * N * sizeof(int));
            for (int r = 0; r < (a2a ? np : 1); r++) {
                for (int i = 0; i < N; i++) {
                    sb[r * N + i] = val(me, i + (a2a ? r : 0) * 7, 70 + k + v);
                }
            }
            run(&req[v], k == 1);
            CHECK(wrong(rb, np, NULL, a2a ? me : 0, 70 + k + v) == 0, "%s, start %d", what[v], k);
        }
    }
}

static void test_pers_red(int *sb, int *rb, MPI_Count *cnt)
{
    int root = np - 1, bad;
    MPI_Request req[6];
    static const char *const what[] = {
        "Reduce_init_c",         "Allreduce_init_c", "Reduce_scatter_block_init_c",
        "Reduce_scatter_init_c", "Scan_init_c",      "Exscan_init_c"};

    OK(MPI_Reduce_init_c(sb, rb, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[0]));
    OK(MPI_Allreduce_init_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    OK(MPI_Reduce_scatter_block_init_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       &req[2]));
    OK(MPI_Reduce_scatter_init_c(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &req[3]));
    OK(MPI_Scan_init_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]));
    OK(MPI_Exscan_init_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[5]));
    for (int k = 0; k < 2; k++) {
        for (int v = 0; v < 6; v++) {
            int kk = 80 + 2 * v + k;
            bool scatter = v == 2 || v == 3;

            for (int i = 0; i < np * N; i++) {
                sb[i] = val(me, i, kk);
            }
            memset(rb, 0, (size_t)np * N * sizeof(int));
            run(&req[v], k == 1);
            bad = 0;
            for (int i = 0; i < N; i++) {
                int want = scatter  ? sum(0, np, me * N + i, kk)
                           : v == 4 ? sum(0, me + 1, i, kk)
                           : v == 5 ? sum(0, me, i, kk)
                                    : sum(0, np, i, kk);

                bad += (v != 0 || me == root) && (v != 5 || me > 0) && rb[i] != want;
            }
            CHECK(bad == 0, "%s, start %d: %d ints wrong", what[v], k, bad);
        }
    }
}

/* ---- the neighborhood ones ----------------------------------------------------------------- */
/* comm's neighbors: what rank srcs[j] sent to this one (val(src, i + me * 7, k)) lands in
 * receive block j (at displacement rd[j] blocks); block j of the send side goes to dsts[j] */
static void test_nbr(MPI_Comm comm, const char *topo, int *sb, int *rb)
{
    int ns, nd, srcs[MAXP], dsts[MAXP], w;
    MPI_Count cnt[MAXP];
    MPI_Aint sd[MAXP], rd[MAXP], sbytes[MAXP], rbytes[MAXP];
    MPI_Datatype types[MAXP];
    MPI_Request req[5];
    static const char *const what[] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                       "alltoallw"};
    static const char *const forms[] = {"MPI_Neighbor_%s_c on a %s: %d ints wrong",
                                        "MPI_Ineighbor_%s_c on a %s: %d ints wrong",
                                        "MPI_Neighbor_%s_init_c on a %s, start 1: %d ints wrong",
                                        "MPI_Neighbor_%s_init_c on a %s, start 2: %d ints wrong"};

    OK(MPI_Topo_test(comm, &w));
    if (w == MPI_CART) {
        ns = nd = 2;
        OK(MPI_Cart_shift(comm, 0, 1, &srcs[0], &srcs[1]));
        dsts[0] = srcs[0], dsts[1] = srcs[1];
    } else {
        OK(MPI_Dist_graph_neighbors_count(comm, &ns, &nd, &w));
        OK(MPI_Dist_graph_neighbors(comm, ns, srcs, MPI_UNWEIGHTED, nd, dsts, MPI_UNWEIGHTED));
    }
    for (int j = 0; j < MAXP; j++) {
        cnt[j] = N;
        sd[j] = (MPI_Aint)(nd - 1 - j) * N; /* (blocks in reverse order) */
        rd[j] = (MPI_Aint)(ns - 1 - j) * N;
        sbytes[j] = sd[j] * (MPI_Aint)sizeof(int);
        rbytes[j] = rd[j] * (MPI_Aint)sizeof(int);
        types[j] = MPI_INT;
    }
    OK(MPI_Neighbor_allgather_init_c(sb, N, MPI_INT, rb, N, MPI_INT, comm, MPI_INFO_NULL, &req[0]));
    OK(MPI_Neighbor_allgatherv_init_c(sb, N, MPI_INT, rb, cnt, rd, MPI_INT, comm, MPI_INFO_NULL,
                                      &req[1]));
    OK(MPI_Neighbor_alltoall_init_c(sb, N, MPI_INT, rb, N, MPI_INT, comm, MPI_INFO_NULL, &req[2]));
    OK(MPI_Neighbor_alltoallv_init_c(sb, cnt, sd, MPI_INT, rb, cnt, rd, MPI_INT, comm,
                                     MPI_INFO_NULL, &req[3]));
    OK(MPI_Neighbor_alltoallw_init_c(sb, cnt, sbytes, types, rb, cnt, rbytes, types, comm,
                                     MPI_INFO_NULL, &req[4]));
    /* form 0 blocking, 1 nonblocking, 2 and 3 the persistent ones' two starts */
    for (int form = 0; form < 4; form++) {
        for (int v = 0; v < 5; v++) {
            int k = 100 + form * 5 + v, bad = 0;
            bool a2a = v >= 2, vd = v == 1 || v == 3 || v == 4;
            MPI_Request r = MPI_REQUEST_NULL;

            for (int j = 0; j < (a2a ? nd : 1); j++) {
                int at = vd && a2a ? (int)sd[j] : j * N;

                for (int i = 0; i < N; i++) {
                    sb[at + i] = val(me, i + (a2a ? dsts[j] : 0) * 7, k);
                }
            }
            memset(rb, 0, (size_t)MAXP * N * sizeof(int));
            if (form >= 2) {
                run(&req[v], form == 3);
            } else if (v == 0) {
                OK(form == 0 ? MPI_Neighbor_allgather_c(sb, N, MPI_INT, rb, N, MPI_INT, comm)
                             : MPI_Ineighbor_allgather_c(sb, N, MPI_INT, rb, N, MPI_INT, comm, &r));
            } else if (v == 1) {
                OK(form == 0 ? MPI_Neighbor_allgatherv_c(sb, N, MPI_INT, rb, cnt, rd, MPI_INT, comm)
                             : MPI_Ineighbor_allgatherv_c(sb, N, MPI_INT, rb, cnt, rd, MPI_INT,
                                                          comm, &r));
            } else if (v == 2) {
                OK(form == 0 ? MPI_Neighbor_alltoall_c(sb, N, MPI_INT, rb, N, MPI_INT, comm)
                             : MPI_Ineighbor_alltoall_c(sb, N, MPI_INT, rb, N, MPI_INT, comm, &r));
            } else if (v == 3) {
                OK(form == 0
                       ? MPI_Neighbor_alltoallv_c(sb, cnt, sd, MPI_INT, rb, cnt, rd, MPI_INT, comm)
                       : MPI_Ineighbor_alltoallv_c(sb, cnt, sd, MPI_INT, rb, cnt, rd, MPI_INT, comm,
                                                   &r));
            } else {
                OK(form == 0 ? MPI_Neighbor_alltoallw_c(sb, cnt, sbytes, types, rb, cnt, rbytes,
                                                        types, comm)
                             : MPI_Ineighbor_alltoallw_c(sb, cnt, sbytes, types, rb, cnt, rbytes,
                                                         types, comm, &r));
            }
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            for (int j = 0; j < ns; j++) {
                int at = vd ? (int)rd[j] : j * N;

                for (int i = 0; i < N; i++) {
                    bad += rb[at + i] != val(srcs[j], i + (a2a ? me : 0) * 7, k);
                }
            }
            CHECK(bad == 0, forms[form], what[v], topo, bad);
        }
    }
}

static void test_neighbors(int *sb, int *rb)
{
    MPI_Comm cart, dist;
    int srcs[3], dsts[3];

    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, (int[]){1}, 0, &cart));
    test_nbr(cart, "periodic ring", sb, rb);
    for (int j = 0; j < 3; j++) {
        dsts[j] = (me + j + 1) % np;
        srcs[j] = (me - j - 1 + 3 * np) % np;
    }
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, srcs, MPI_UNWEIGHTED, 3, dsts,
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
    test_nbr(dist, "distributed graph", sb, rb);
    OK(MPI_Comm_free(&cart));
    OK(MPI_Comm_free(&dist));
}

/* ---- errors -------------------------------------------------------------------------------- */
static void test_errors(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm cart;
    MPI_Count ncnt[2] = {N, big};
    MPI_Aint ndsp[2] = {0, N};
    int x = 0, y = 0;

    /* every rank fails alike, locally */
    FAILS_NAMED(
        MPI_Allreduce_init_c(sb, rb, big, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
        MPI_ERR_COUNT, "MPI_Allreduce_init_c");
    FAILS_NAMED(MPI_Bcast_init_c(rb, big, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
                MPI_ERR_COUNT, "MPI_Bcast_init_c");
    cnt[np - 1] = big;
    FAILS_NAMED(MPI_Alltoallv_init_c(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &req),
                MPI_ERR_COUNT, "MPI_Alltoallv_init_c");
    FAILS_NAMED(MPI_Reduce_scatter_init_c(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &req),
                MPI_ERR_COUNT, "MPI_Reduce_scatter_init_c");
    cnt[np - 1] = N;
    /* an error the int form finds (a datatype, an operation, no topology): named by the _c
     * call too, blocking, nonblocking and persistent; the int call's own name after it */
    FAILS_NAMED(MPI_Gatherv_c(sb, 1, MPI_DATATYPE_NULL, rb, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD),
                MPI_ERR_TYPE, "MPI_Gatherv_c");
    FAILS_NAMED(MPI_Iallreduce_c(sb, rb, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), MPI_ERR_OP,
                "MPI_Iallreduce_c");
    FAILS_NAMED(MPI_Iallreduce(sb, rb, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), MPI_ERR_OP,
                "MPI_Iallreduce");
    FAILS_NAMED(MPI_Reduce_local_c(sb, rb, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE,
                "MPI_Reduce_local_c");
    FAILS_NAMED(MPI_Gather_init_c(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, 0, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req),
                MPI_ERR_TYPE, "MPI_Gather_init_c");
    FAILS_NAMED(MPI_Neighbor_alltoall_c(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD),
                MPI_ERR_TOPOLOGY, "MPI_Neighbor_alltoall_c");
    FAILS_NAMED(MPI_Neighbor_allgather_init_c(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD,
                                              MPI_INFO_NULL, &req),
                MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather_init_c");
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, (int[]){1}, 0, &cart));
    FAILS_NAMED(MPI_Neighbor_allgather_c(sb, big, MPI_INT, rb, N, MPI_INT, cart), MPI_ERR_COUNT,
                "MPI_Neighbor_allgather_c");
    FAILS_NAMED(MPI_Ineighbor_alltoall_c(sb, N, MPI_INT, rb, big, MPI_INT, cart, &req),
                MPI_ERR_COUNT, "MPI_Ineighbor_alltoall_c");
    FAILS_NAMED(MPI_Neighbor_alltoallv_c(sb, ncnt, ndsp, MPI_INT, rb, ncnt, ndsp, MPI_INT, cart),
                MPI_ERR_COUNT, "MPI_Neighbor_alltoallv_c");
    FAILS_NAMED(MPI_Neighbor_alltoallw_init_c(sb, ncnt, ndsp, (MPI_Datatype[]){MPI_INT, MPI_INT},
                                              rb, ncnt, ndsp, (MPI_Datatype[]){MPI_INT, MPI_INT},
                                              cart, MPI_INFO_NULL, &req),
                MPI_ERR_COUNT, "MPI_Neighbor_alltoallw_init_c");
    ndsp[1] = (MPI_Aint)INT_MAX + 8; /* a v form's displacement past INT_MAX: MPI_ERR_ARG */
    ncnt[1] = N;
    FAILS_NAMED(MPI_Ineighbor_allgatherv_c(sb, N, MPI_INT, rb, ncnt, ndsp, MPI_INT, cart, &req),
                MPI_ERR_ARG, "MPI_Ineighbor_allgatherv_c");
    /* a count past INT_MAX where MPI says it is not significant (a non-root's): accepted */
    for (int r = 0; r < np; r++) {
        cnt[r] = me == 0 ? N : big;
    }
    OK(MPI_Igatherv_c(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Neighbor_allgather_c(&x, 1, MPI_INT, rb, 1, MPI_INT, cart));
    OK(MPI_Comm_free(&cart));
    /* the root alone refuses its init (its receive count): the others' inits succeed and are
     * freed unstarted, and the next collective runs in step */
    if (np > 1) {
        int root = np - 1, e;

        e = MPI_Gather_init_c(sb, 1, MPI_INT, rb, me == root ? big : 1, MPI_INT, root,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        if (me == root) {
            FAILS_NAMED(e, MPI_ERR_COUNT, "MPI_Gather_init_c");
        } else {
            OK(e);
            OK(MPI_Request_free(&req));
        }
    }
    x = me + 1;
    OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == np * (np + 1) / 2, "Allreduce after the refused init: %d", y);
}

int main(int argc, char **argv)
{
    int *sb, *rb;
    MPI_Count cnt[MAXP], bigcnt[MAXP];
    MPI_Aint dsp[MAXP];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (np > MAXP) {
        printf("SKIP: at most %d ranks (the test's arrays)\n", MAXP);
        MPI_Finalize();
        return 77;
    }
    sb = calloc((size_t)MAXP * N, sizeof(int));
    rb = calloc((size_t)MAXP * N, sizeof(int));
    for (int r = 0; r < np; r++) {
        cnt[r] = N;
        bigcnt[r] = big;
        dsp[r] = (MPI_Aint)r * N;
    }
    phases_expected = 5;
    test_pers_rooted(sb, rb, cnt, dsp, bigcnt);
    phase("Bcast_init_c, Gather(v)_init_c, Scatter(v)_init_c (started twice; non-roots' counts "
          "past INT_MAX not read)");
    test_pers_all(sb, rb, cnt, dsp);
    phase("Allgather(v)_init_c, Alltoall(v, w)_init_c (started twice)");
    test_pers_red(sb, rb, cnt);
    phase("Reduce_init_c, Allreduce_init_c, Reduce_scatter(_block)_init_c, Scan_init_c, "
          "Exscan_init_c (started twice)");
    test_neighbors(sb, rb);
    phase("Neighbor_*_c, Ineighbor_*_c, Neighbor_*_init_c on a periodic ring and a distributed "
          "graph");
    test_errors(sb, rb, cnt, dsp);
    phase("errors: counts past INT_MAX named by the _c call; a root's init refused alone");
    free(sb);
    free(rb);
    MPI_Finalize();
    return summary();
}
