/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-4.0's large-count bindings (the _c calls, MPI_Count counts and MPI_Aint displacements),
 * data checked, on any number of ranks: every point-to-point one (each send mode, blocking,
 * nonblocking and persistent; Sendrecv(_replace), Isendrecv(_replace), Mrecv / Imrecv,
 * Get_count_c, Get_elements_c) around a ring, every collective one (blocking and nonblocking;
 * roots, MPI_IN_PLACE with the counts it makes not significant (-1, NULL arrays), non-roots'
 * NULL arrays, Reduce_local_c; nonblocking v and w forms whose arrays are overwritten before
 * the wait; Gatherv_c and Alltoallv_c over an intercommunicator, and there every rooted call,
 * blocking and nonblocking, with each count not significant -1 at MPI_ROOT, MPI_PROC_NULL and
 * the leaves); the errors: a negative count (MPI_ERR_COUNT), a count past what the call can
 * carry (a collective's: INT_MAX, a displacement past INT_MAX: MPI_ERR_ARG; a point-to-point's:
 * bytes past SIZE_MAX / 2, on Send_c / Recv_c's fast path too), an invalid root, the error
 * strings naming the _c call (MPI_Error_string), never cut; Get_count's int form gives
 * MPI_UNDEFINED past INT_MAX, the _c form the count. Then, with at least 2 ranks and the memory for
 * it, one message of 2^31 + 16 bytes (MPI_BYTE: a count past INT_MAX) from rank 0 to rank 1, every
 * byte checked; without the memory that part is skipped and says so (so is the
 * intercommunicator phase at 1 rank: "SKIP (this phase)", not "ok").
 */
#include "mpi_test.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 29 /* ints per message or block */

static int to, from;

static int val(int r, int i, int k)
{
    return r * 1009 + i * 7 + k * 100003;
}

static void fill(int *p, int r, int k)
{
    for (int i = 0; i < N; i++) {
        p[i] = val(r, i, k);
    }
}

/* a message of round k from rank from arrived in p (count and source in st if not NULL) */
static void check_msg(const int *p, int k, const MPI_Status *st, const char *what)
{
    int bad = 0;

    for (int i = 0; i < N; i++) {
        bad += p[i] != val(from, i, k);
    }
    CHECK(bad == 0, "%s: %d of %d ints wrong", what, bad, N);
    if (st != NULL) {
        MPI_Count n = -1, e = -1;

        OK(MPI_Get_count_c(st, MPI_INT, &n));
        OK(MPI_Get_elements_c(st, MPI_INT, &e));
        CHECK(n == N && e == N && st->MPI_SOURCE == from, "%s: count %lld elements %lld source %d",
              what, n, e, st->MPI_SOURCE);
    }
}

static void test_p2p_blocking(void)
{
    int s[N], r[N];
    MPI_Status st;
    MPI_Request req;
    MPI_Count c = N;
    int bsize = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *battach = malloc(bsize), *bdetach;

    /* Send_c, Ssend_c, Bsend_c (an Irecv_c posted first: a ring of blocking sends) */
    OK(MPI_Buffer_attach(battach, bsize));
    for (int k = 0; k < 3; k++) {
        memset(r, 0, sizeof(r));
        OK(MPI_Irecv_c(r, c, MPI_INT, from, k, MPI_COMM_WORLD, &req));
        fill(s, me, k);
        OK(k == 0   ? MPI_Send_c(s, c, MPI_INT, to, k, MPI_COMM_WORLD)
           : k == 1 ? MPI_Ssend_c(s, c, MPI_INT, to, k, MPI_COMM_WORLD)
                    : MPI_Bsend_c(s, c, MPI_INT, to, k, MPI_COMM_WORLD));
        OK(MPI_Wait(&req, &st));
        check_msg(r, k, &st, k == 0 ? "Send_c" : k == 1 ? "Ssend_c" : "Bsend_c");
    }
    OK(MPI_Buffer_detach(&bdetach, &bsize));
    free(battach);
    /* Recv_c of an Isend_c; Rsend_c to a receive posted before a barrier */
    fill(s, me, 3);
    OK(MPI_Isend_c(s, c, MPI_INT, to, 3, MPI_COMM_WORLD, &req));
    OK(MPI_Recv_c(r, c, MPI_INT, from, 3, MPI_COMM_WORLD, &st));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_msg(r, 3, &st, "Recv_c");
    OK(MPI_Irecv_c(r, c, MPI_INT, from, 4, MPI_COMM_WORLD, &req));
    test_barrier(MPI_COMM_WORLD);
    fill(s, me, 4);
    OK(MPI_Rsend_c(s, c, MPI_INT, to, 4, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, &st));
    check_msg(r, 4, &st, "Rsend_c");
    /* Sendrecv_c, Sendrecv_replace_c */
    fill(s, me, 5);
    OK(MPI_Sendrecv_c(s, c, MPI_INT, to, 5, r, c, MPI_INT, from, 5, MPI_COMM_WORLD, &st));
    check_msg(r, 5, &st, "Sendrecv_c");
    fill(r, me, 6);
    OK(MPI_Sendrecv_replace_c(r, c, MPI_INT, to, 6, from, 6, MPI_COMM_WORLD, &st));
    check_msg(r, 6, &st, "Sendrecv_replace_c");
}

static void test_p2p_nonblocking(void)
{
    int s[4][N], r[4][N];
    MPI_Request req[8];
    MPI_Status st[8];
    MPI_Message msg;
    MPI_Count c = N;
    int bsize = 2 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD), flag = 0;
    void *battach = malloc(bsize), *bdetach;

    /* Isend_c, Issend_c, Ibsend_c, Irsend_c (its receive posted before a barrier) */
    OK(MPI_Buffer_attach(battach, bsize));
    for (int k = 0; k < 4; k++) {
        OK(MPI_Irecv_c(r[k], c, MPI_INT, from, 10 + k, MPI_COMM_WORLD, &req[k]));
    }
    test_barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++) {
        fill(s[k], me, 10 + k);
    }
    OK(MPI_Isend_c(s[0], c, MPI_INT, to, 10, MPI_COMM_WORLD, &req[4]));
    OK(MPI_Issend_c(s[1], c, MPI_INT, to, 11, MPI_COMM_WORLD, &req[5]));
    OK(MPI_Ibsend_c(s[2], c, MPI_INT, to, 12, MPI_COMM_WORLD, &req[6]));
    OK(MPI_Irsend_c(s[3], c, MPI_INT, to, 13, MPI_COMM_WORLD, &req[7]));
    OK(MPI_Waitall(8, req, st));
    for (int k = 0; k < 4; k++) {
        check_msg(r[k], 10 + k, &st[k], "Isend_c / Issend_c / Ibsend_c / Irsend_c");
    }
    OK(MPI_Buffer_detach(&bdetach, &bsize));
    free(battach);
    /* Isendrecv_c, Isendrecv_replace_c */
    fill(s[0], me, 14);
    fill(r[1], me, 15);
    OK(MPI_Isendrecv_c(s[0], c, MPI_INT, to, 14, r[0], c, MPI_INT, from, 14, MPI_COMM_WORLD,
                       &req[0]));
    OK(MPI_Isendrecv_replace_c(r[1], c, MPI_INT, to, 15, from, 15, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Waitall(2, req, st));
    check_msg(r[0], 14, &st[0], "Isendrecv_c");
    check_msg(r[1], 15, &st[1], "Isendrecv_replace_c");
    /* Mprobe + Mrecv_c, Improbe + Imrecv_c */
    fill(s[0], me, 16);
    fill(s[1], me, 17);
    OK(MPI_Isend_c(s[0], c, MPI_INT, to, 16, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Isend_c(s[1], c, MPI_INT, to, 17, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Mprobe(from, 16, MPI_COMM_WORLD, &msg, &st[2]));
    OK(MPI_Mrecv_c(r[0], c, MPI_INT, &msg, &st[2]));
    check_msg(r[0], 16, &st[2], "Mrecv_c");
    while (!flag) {
        OK(MPI_Improbe(from, 17, MPI_COMM_WORLD, &flag, &msg, &st[3]));
    }
    OK(MPI_Imrecv_c(r[1], c, MPI_INT, &msg, &req[2]));
    OK(MPI_Waitall(3, req, st));
    check_msg(r[1], 17, &st[2], "Imrecv_c");
}

static void test_p2p_persistent(void)
{
    int s[N], r[N];
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Count c = N;
    int bsize = N * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    void *battach = malloc(bsize), *bdetach;

    OK(MPI_Buffer_attach(battach, bsize));
    OK(MPI_Recv_init_c(r, c, MPI_INT, from, 20, MPI_COMM_WORLD, &req[0]));
    for (int k = 0; k < 4; k++) {
        if (k == 0) {
            OK(MPI_Send_init_c(s, c, MPI_INT, to, 20, MPI_COMM_WORLD, &req[1]));
        } else if (k == 1) {
            OK(MPI_Ssend_init_c(s, c, MPI_INT, to, 20, MPI_COMM_WORLD, &req[1]));
        } else if (k == 2) {
            OK(MPI_Bsend_init_c(s, c, MPI_INT, to, 20, MPI_COMM_WORLD, &req[1]));
        } else {
            OK(MPI_Rsend_init_c(s, c, MPI_INT, to, 20, MPI_COMM_WORLD, &req[1]));
        }
        memset(r, 0, sizeof(r));
        OK(MPI_Start(&req[0]));
        test_barrier(MPI_COMM_WORLD); /* (every receive started: Rsend_init_c's start is legal) */
        fill(s, me, 20 + k);
        OK(MPI_Start(&req[1]));
        OK(MPI_Waitall(2, req, st));
        check_msg(r, 20 + k, &st[0], "Send_init_c / Ssend_init_c / Bsend_init_c / Rsend_init_c");
        OK(MPI_Request_free(&req[1]));
    }
    OK(MPI_Request_free(&req[0]));
    OK(MPI_Buffer_detach(&bdetach, &bsize));
    free(battach);
}

/* ---- collectives --------------------------------------------------------------------------- */
static void test_rooted(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp)
{
    int root = np - 1, bad = 0;

    /* Bcast_c; Gather_c, Gatherv_c (MPI_IN_PLACE at the root); Scatter_c, Scatterv_c */
    fill(rb, root == me ? 7 : 0, 30);
    OK(MPI_Bcast_c(rb, N, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad += rb[i] != val(7, i, 30);
    }
    CHECK(bad == 0, "Bcast_c: %d ints wrong", bad);
    for (int v = 0; v < 2; v++) {
        memset(rb, 0, np * N * sizeof(int));
        fill(me == root ? rb + me * N : sb, me, 31 + v);
        OK(v == 0 ? MPI_Gather_c(me == root ? MPI_IN_PLACE : sb, N, MPI_INT, rb, N, MPI_INT, root,
                                 MPI_COMM_WORLD)
                  : MPI_Gatherv_c(me == root ? MPI_IN_PLACE : sb, N, MPI_INT, rb, cnt, dsp, MPI_INT,
                                  root, MPI_COMM_WORLD));
        bad = 0;
        for (int r = 0; me == root && r < np; r++) {
            for (int i = 0; i < N; i++) {
                bad += rb[r * N + i] != val(r, i, 31 + v);
            }
        }
        CHECK(bad == 0, "%s: %d ints wrong", v == 0 ? "Gather_c" : "Gatherv_c", bad);
        for (int r = 0; me == root && r < np; r++) {
            fill(sb + r * N, r + 50, 33 + v);
        }
        memset(rb, 0, N * sizeof(int));
        OK(v == 0 ? MPI_Scatter_c(sb, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD)
                  : MPI_Scatterv_c(sb, cnt, dsp, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD));
        bad = 0;
        for (int i = 0; i < N; i++) {
            bad += rb[i] != val(me + 50, i, 33 + v);
        }
        CHECK(bad == 0, "%s: %d ints wrong", v == 0 ? "Scatter_c" : "Scatterv_c", bad);
    }
}

/* every rank's block r of rb holds what rank r sent it in round k (sent: val(r, i + to * 7, k)) */
static void check_blocks(const int *rb, int k, bool to_me, const char *what)
{
    int bad = 0;

    for (int r = 0; r < np; r++) {
        for (int i = 0; i < N; i++) {
            bad += rb[r * N + i] != val(r, i + (to_me ? me : 0) * 7, k);
        }
    }
    CHECK(bad == 0, "%s: %d ints wrong", what, bad);
}

static void test_all(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp)
{
    MPI_Datatype types[64];

    for (int r = 0; r < np; r++) {
        types[r] = MPI_INT;
    }
    for (int v = 0; v < 2; v++) {
        memset(rb, 0, np * N * sizeof(int));
        fill(sb, me, 40 + v);
        OK(v == 0 ? MPI_Allgather_c(sb, N, MPI_INT, rb, N, MPI_INT, MPI_COMM_WORLD)
                  : MPI_Allgatherv_c(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
        check_blocks(rb, 40 + v, false, v == 0 ? "Allgather_c" : "Allgatherv_c");
    }
    for (int v = 0; v < 3; v++) {
        memset(rb, 0, np * N * sizeof(int));
        for (int r = 0; r < np; r++) {
            for (int i = 0; i < N; i++) {
                sb[r * N + i] = val(me, i + r * 7, 42 + v);
            }
        }
        if (v == 0) {
            OK(MPI_Alltoall_c(sb, N, MPI_INT, rb, N, MPI_INT, MPI_COMM_WORLD));
        } else if (v == 1) {
            OK(MPI_Alltoallv_c(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
        } else {
            MPI_Aint bytes[64];

            for (int r = 0; r < np; r++) {
                bytes[r] = dsp[r] * (MPI_Aint)sizeof(int);
            }
            OK(MPI_Alltoallw_c(sb, cnt, bytes, types, rb, cnt, bytes, types, MPI_COMM_WORLD));
        }
        check_blocks(rb, 42 + v, true,
                     v == 0   ? "Alltoall_c"
                     : v == 1 ? "Alltoallv_c"
                              : "Alltoallw_c");
    }
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

static void test_reductions(int *sb, int *rb, MPI_Count *cnt)
{
    int bad[7] = {0}, root = 0, x[N];

    fill(sb, me, 50);
    OK(MPI_Reduce_c(sb, rb, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    for (int i = 0; me == root && i < N; i++) {
        bad[0] += rb[i] != sum(0, np, i, 50);
    }
    OK(MPI_Allreduce_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad[1] += rb[i] != sum(0, np, i, 50);
    }
    OK(MPI_Scan_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad[2] += rb[i] != sum(0, me + 1, i, 50);
    }
    OK(MPI_Exscan_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; me > 0 && i < N; i++) {
        bad[3] += rb[i] != sum(0, me, i, 50);
    }
    for (int r = 0; r < np; r++) {
        fill(sb + r * N, me, 51 + r);
    }
    OK(MPI_Reduce_scatter_block_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad[4] += rb[i] != sum(0, np, i, 51 + me);
    }
    OK(MPI_Reduce_scatter_c(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad[5] += rb[i] != sum(0, np, i, 51 + me);
    }
    fill(x, 1, 52);
    fill(rb, 2, 52);
    OK(MPI_Reduce_local_c(x, rb, N, MPI_INT, MPI_SUM));
    for (int i = 0; i < N; i++) {
        bad[6] += rb[i] != sum(1, 3, i, 52);
    }
    for (int j = 0; j < 7; j++) {
        CHECK(bad[j] == 0, "%s: %d ints wrong",
              (const char *[]){"Reduce_c", "Allreduce_c", "Scan_c", "Exscan_c",
                               "Reduce_scatter_block_c", "Reduce_scatter_c", "Reduce_local_c"}[j],
              bad[j]);
    }
}

/* the nonblocking forms of one count, all started, then completed together */
static void test_nonblocking(int *sb, int *rb)
{
    int root = np / 2, *b = rb + 2 * np * N, *s2 = sb + 2 * np * N;
    int bc[N], red[5][N], sc[N];
    MPI_Request req[10];
    int bad = 0;

    fill(bc, root == me ? 8 : 0, 60);
    fill(sb, me, 61);
    for (int r = 0; r < np; r++) {
        fill(s2 + r * N, me, 62 + r);
    }
    OK(MPI_Ibcast_c(bc, N, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Igather_c(sb, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Iscatter_c(s2, N, MPI_INT, sc, N, MPI_INT, root, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Iallgather_c(sb, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD, &req[3]));
    OK(MPI_Ialltoall_c(s2, N, MPI_INT, b + np * N, N, MPI_INT, MPI_COMM_WORLD, &req[4]));
    OK(MPI_Ireduce_c(sb, red[0], N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req[5]));
    OK(MPI_Iallreduce_c(sb, red[1], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[6]));
    OK(MPI_Ireduce_scatter_block_c(s2, red[2], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[7]));
    OK(MPI_Iscan_c(sb, red[3], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[8]));
    OK(MPI_Iexscan_c(sb, red[4], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[9]));
    OK(MPI_Waitall(10, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        bad += bc[i] != val(8, i, 60);
        bad += sc[i] != val(root, i, 62 + me);
        bad += red[1][i] != sum(0, np, i, 61);
        bad += red[2][i] != sum(0, np, i, 62 + me);
        bad += red[3][i] != sum(0, me + 1, i, 61);
        bad += me > 0 && red[4][i] != sum(0, me, i, 61);
        bad += me == root && red[0][i] != sum(0, np, i, 61);
        for (int r = 0; r < np; r++) {
            bad += me == root && rb[r * N + i] != val(r, i, 61);
            bad += b[r * N + i] != val(r, i, 61);
            bad += b[np * N + r * N + i] != val(r, i, 62 + me);
        }
    }
    CHECK(bad == 0, "Ibcast_c ... Iexscan_c: %d ints wrong", bad);
}

/* the nonblocking v and w forms (their int arrays are the library's own copies: freed when
 * the call returns, as the calls copy them), all started, then completed together */
static void test_nonblocking_v(int *sb, int *rb, MPI_Count *cnt_in, MPI_Aint *dsp_in)
{
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    int root = 0, *ag = rb + np * N, *av = rb + 2 * np * N, *aw = rb + 3 * np * N;
    int sc[N], rs[N], bad = 0;
    int *s2 = calloc((size_t)np * N, sizeof(int));
    MPI_Datatype types[64];
    MPI_Aint bytes[64];
    MPI_Request req[6];

    memcpy(cnt, cnt_in, (size_t)np * sizeof(cnt[0]));
    memcpy(dsp, dsp_in, (size_t)np * sizeof(dsp[0]));
    for (int r = 0; r < np; r++) {
        types[r] = MPI_INT;
        bytes[r] = dsp[r] * (MPI_Aint)sizeof(int);
        for (int i = 0; i < N; i++) {
            s2[r * N + i] = val(me, i + r * 7, 81);
        }
    }
    fill(sb, me, 80);
    OK(MPI_Igatherv_c(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Iscatterv_c(s2, cnt, dsp, MPI_INT, sc, N, MPI_INT, root, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Iallgatherv_c(sb, N, MPI_INT, ag, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Ialltoallv_c(s2, cnt, dsp, MPI_INT, av, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &req[3]));
    OK(MPI_Ialltoallw_c(s2, cnt, bytes, types, aw, cnt, bytes, types, MPI_COMM_WORLD, &req[4]));
    OK(MPI_Ireduce_scatter_c(s2, rs, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[5]));
    for (int r = 0; r < np; r++) { /* the arrays are the caller's again once the calls return */
        cnt[r] = -7;
        dsp[r] = bytes[r] = -1234567;
        types[r] = MPI_DATATYPE_NULL;
    }
    OK(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
        int all = 0;

        bad += sc[i] != val(root, i + me * 7, 81);
        for (int r = 0; r < np; r++) {
            all += val(r, i + me * 7, 81);
            bad += me == root && rb[r * N + i] != val(r, i, 80);
            bad += ag[r * N + i] != val(r, i, 80);
            bad += av[r * N + i] != val(r, i + me * 7, 81);
            bad += aw[r * N + i] != val(r, i + me * 7, 81);
        }
        bad += rs[i] != all;
    }
    CHECK(bad == 0,
          "Igatherv_c ... Ireduce_scatter_c (arrays overwritten before the wait): %d "
          "ints wrong",
          bad);
    free(s2);
}

/* MPI_IN_PLACE with the counts it makes not significant (-1, NULL arrays, MPI_DATATYPE_NULL):
 * Scatter_c at the root, Allgather_c, Allgatherv_c, Alltoallv_c, Alltoallw_c; and the
 * non-roots' NULL arrays of Gatherv_c and Scatterv_c */
static void test_in_place(int *sb, int *rb, MPI_Count *cnt, MPI_Aint *dsp)
{
    int root = 0, bad = 0;
    MPI_Datatype types[64];
    MPI_Aint bytes[64];

    for (int r = 0; r < np; r++) {
        types[r] = MPI_INT;
        bytes[r] = dsp[r] * (MPI_Aint)sizeof(int);
        fill(sb + r * N, r + 20, 90);
    }
    fill(rb, me == root ? 5 : 0, 91);
    OK(MPI_Scatter_c(sb, N, MPI_INT, me == root ? MPI_IN_PLACE : rb, me == root ? -1 : N, MPI_INT,
                     root, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad += rb[i] != (me == root ? val(5, i, 91) : val(me + 20, i, 90));
    }
    CHECK(bad == 0, "Scatter_c (MPI_IN_PLACE at the root, recvcount -1): %d ints wrong", bad);
    for (int v = 0; v < 2; v++) {
        memset(rb, 0, np * N * sizeof(int));
        fill(rb + me * N, me, 92 + v);
        OK(v == 0 ? MPI_Allgather_c(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rb, N, MPI_INT,
                                    MPI_COMM_WORLD)
                  : MPI_Allgatherv_c(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, rb, cnt, dsp, MPI_INT,
                                     MPI_COMM_WORLD));
        check_blocks(rb, 92 + v, false,
                     v == 0 ? "Allgather_c (MPI_IN_PLACE, sendcount -1)"
                            : "Allgatherv_c (MPI_IN_PLACE, sendcount -1)");
    }
    for (int v = 0; v < 2; v++) {
        for (int r = 0; r < np; r++) {
            for (int i = 0; i < N; i++) {
                rb[r * N + i] = val(me, i + r * 7, 94 + v);
            }
        }
        OK(v == 0 ? MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, cnt, dsp,
                                    MPI_INT, MPI_COMM_WORLD)
                  : MPI_Alltoallw_c(MPI_IN_PLACE, NULL, NULL, NULL, rb, cnt, bytes, types,
                                    MPI_COMM_WORLD));
        check_blocks(rb, 94 + v, true,
                     v == 0 ? "Alltoallv_c (MPI_IN_PLACE, NULL send arrays)"
                            : "Alltoallw_c (MPI_IN_PLACE, NULL send arrays)");
    }
    /* Gatherv_c, Scatterv_c: NULL arrays off the root */
    memset(rb, 0, np * N * sizeof(int));
    fill(sb, me, 96);
    OK(MPI_Gatherv_c(sb, N, MPI_INT, rb, me == root ? cnt : NULL, me == root ? dsp : NULL, MPI_INT,
                     root, MPI_COMM_WORLD));
    bad = 0;
    for (int r = 0; me == root && r < np; r++) {
        for (int i = 0; i < N; i++) {
            bad += rb[r * N + i] != val(r, i, 96);
        }
    }
    for (int r = 0; me == root && r < np; r++) {
        fill(sb + r * N, r + 40, 97);
    }
    memset(rb, 0, N * sizeof(int));
    OK(MPI_Scatterv_c(sb, me == root ? cnt : NULL, me == root ? dsp : NULL, MPI_INT, rb, N, MPI_INT,
                      root, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        bad += rb[i] != val(me + 40, i, 97);
    }
    CHECK(bad == 0, "Gatherv_c / Scatterv_c (NULL arrays off the root): %d ints wrong", bad);
}

static void test_coll(void)
{
    int *sb = calloc(4 * np * N, sizeof(int)), *rb = calloc(4 * np * N, sizeof(int));
    MPI_Count cnt[64];
    MPI_Aint dsp[64];

    for (int r = 0; r < np; r++) {
        cnt[r] = N;
        dsp[r] = (MPI_Aint)r * N;
    }
    test_rooted(sb, rb, cnt, dsp);
    test_all(sb, rb, cnt, dsp);
    test_reductions(sb, rb, cnt);
    test_nonblocking(sb, rb);
    test_nonblocking_v(sb, rb, cnt, dsp);
    test_in_place(sb, rb, cnt, dsp);
    free(sb);
    free(rb);
}

/* a blocking call's result, or a nonblocking one's (req not NULL) once waited for */
static int done(int err, MPI_Request *req)
{
    return err != MPI_SUCCESS || req == NULL ? err : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* the rooted calls over an intercommunicator (root: 0 in the odd group, MPI_ROOT at the even
 * group's first, MPI_PROC_NULL at the other even ranks), blocking and nonblocking, with every
 * count MPI says is not significant -1 and every such array NULL: MPI_ROOT's leaf-side counts,
 * MPI_PROC_NULL's all, a leaf's root-side ones; the data checked */
static void test_inter_rooted(MPI_Comm inter, int lrank, int rsize, int *sb, int *rb,
                              MPI_Count *cnt, MPI_Aint *dsp)
{
    int root = me % 2 == 1 ? 0 : lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, bad = 0;
    bool at_root = root == MPI_ROOT, leaf = root >= 0;
    MPI_Count rootc = at_root ? N : -1, leafc = leaf ? N : -1, allc = at_root || leaf ? N : -1;
    MPI_Count *rcnt = at_root ? cnt : NULL;
    MPI_Aint *rdsp = at_root ? dsp : NULL;
    MPI_Request q, *req;

    for (int nb = 0; nb < 2; nb++) {
        req = nb ? &q : NULL;
        for (int v = 0; v < 2; v++) { /* Scatter(v)_c, then Gather(v)_c */
            for (int r = 0; at_root && r < rsize; r++) {
                for (int i = 0; i < N; i++) {
                    sb[r * N + i] = val(0, i + r * 7, 60 + v);
                }
            }
            memset(rb, 0, (size_t)rsize * N * sizeof(int));
            OK(done(
                v == 0
                    ? (nb ? MPI_Iscatter_c(sb, rootc, MPI_INT, rb, leafc, MPI_INT, root, inter, &q)
                          : MPI_Scatter_c(sb, rootc, MPI_INT, rb, leafc, MPI_INT, root, inter))
                    : (nb ? MPI_Iscatterv_c(sb, rcnt, rdsp, MPI_INT, rb, leafc, MPI_INT, root,
                                            inter, &q)
                          : MPI_Scatterv_c(sb, rcnt, rdsp, MPI_INT, rb, leafc, MPI_INT, root,
                                           inter)),
                req));
            for (int i = 0; leaf && i < N; i++) {
                bad += rb[i] != val(0, i + lrank * 7, 60 + v);
            }
            fill(sb, me, 62 + v);
            memset(rb, 0, (size_t)rsize * N * sizeof(int));
            OK(done(
                v == 0
                    ? (nb ? MPI_Igather_c(sb, leafc, MPI_INT, rb, rootc, MPI_INT, root, inter, &q)
                          : MPI_Gather_c(sb, leafc, MPI_INT, rb, rootc, MPI_INT, root, inter))
                    : (nb ? MPI_Igatherv_c(sb, leafc, MPI_INT, rb, rcnt, rdsp, MPI_INT, root, inter,
                                           &q)
                          : MPI_Gatherv_c(sb, leafc, MPI_INT, rb, rcnt, rdsp, MPI_INT, root,
                                          inter)),
                req));
            for (int r = 0; at_root && r < rsize; r++) {
                for (int i = 0; i < N; i++) {
                    bad += rb[r * N + i] != val(2 * r + 1, i, 62 + v);
                }
            }
        }
        /* Bcast_c, Reduce_c: only MPI_PROC_NULL's count is not significant */
        fill(rb, at_root ? 0 : 99, 64);
        OK(done(nb ? MPI_Ibcast_c(rb, allc, MPI_INT, root, inter, &q)
                   : MPI_Bcast_c(rb, allc, MPI_INT, root, inter),
                req));
        for (int i = 0; leaf && i < N; i++) {
            bad += rb[i] != val(0, i, 64);
        }
        fill(sb, me, 65);
        memset(rb, 0, N * sizeof(int));
        OK(done(nb ? MPI_Ireduce_c(sb, rb, allc, MPI_INT, MPI_SUM, root, inter, &q)
                   : MPI_Reduce_c(sb, rb, allc, MPI_INT, MPI_SUM, root, inter),
                req));
        for (int i = 0; at_root && i < N; i++) {
            int all = 0;

            for (int r = 0; r < rsize; r++) {
                all += val(2 * r + 1, i, 65);
            }
            bad += rb[i] != all;
        }
    }
    CHECK(bad == 0,
          "(I)Scatter(v)_c, (I)Gather(v)_c, (I)Bcast_c, (I)Reduce_c over an intercommunicator, "
          "counts not significant -1: %d ints wrong",
          bad);
}

/* over an intercommunicator of the even and the odd ranks: Gatherv_c to MPI_ROOT (the even
 * group's first), Alltoallv_c between the groups (remote-group counts and displacements), the
 * rooted calls' counts that are not significant (test_inter_rooted); false at 1 rank */
static bool test_inter(void)
{
    MPI_Comm local, inter;
    int lrank, rsize, bad = 0, *sb, *rb;
    MPI_Count cnt[64];
    MPI_Aint dsp[64];

    if (np < 2) {
        return false; /* (no second group) */
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 77, &inter));
    OK(MPI_Comm_rank(local, &lrank));
    OK(MPI_Comm_remote_size(inter, &rsize));
    sb = calloc((size_t)rsize * N, sizeof(int));
    rb = calloc((size_t)rsize * N, sizeof(int));
    for (int r = 0; r < rsize; r++) {
        cnt[r] = N;
        dsp[r] = (MPI_Aint)r * N;
    }
    /* Gatherv_c: the odd ranks send, the even group's rank 0 is the root */
    fill(sb, me, 70);
    OK(MPI_Gatherv_c(sb, N, MPI_INT, rb, cnt, dsp, MPI_INT,
                     me % 2 == 1  ? 0
                     : lrank == 0 ? MPI_ROOT
                                  : MPI_PROC_NULL,
                     inter));
    for (int r = 0; me == 0 && r < rsize; r++) {
        for (int i = 0; i < N; i++) {
            bad += rb[r * N + i] != val(2 * r + 1, i, 70);
        }
    }
    /* Alltoallv_c: block r of a rank's send buffer goes to remote rank r */
    for (int r = 0; r < rsize; r++) {
        for (int i = 0; i < N; i++) {
            sb[r * N + i] = val(me, i + r * 7, 71);
        }
    }
    OK(MPI_Alltoallv_c(sb, cnt, dsp, MPI_INT, rb, cnt, dsp, MPI_INT, inter));
    for (int r = 0; r < rsize; r++) {
        for (int i = 0; i < N; i++) {
            bad += rb[r * N + i] != val(2 * r + (me % 2 == 0 ? 1 : 0), i + lrank * 7, 71);
        }
    }
    CHECK(bad == 0, "Gatherv_c / Alltoallv_c over an intercommunicator: %d ints wrong", bad);
    test_inter_rooted(inter, lrank, rsize, sb, rb, cnt, dsp);
    free(sb);
    free(rb);
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
    return true;
}

/* ---- errors -------------------------------------------------------------------------------- */
/* the error string of code names the call name (and not only as the start of a longer name) */
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

/* the fast path of Send_c / Recv_c (contiguous data) refuses bytes past SIZE_MAX / 2 as the slow
 * path does: a type of 2^40 bytes times 2^24 (2^64: 0 once wrapped) is MPI_ERR_COUNT, not a
 * message of 0 bytes */
static void test_fast_path_bytes(void)
{
    MPI_Datatype mib, tib;
    int x = 0;

    OK(MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib));
    OK(MPI_Type_contiguous(1 << 20, mib, &tib));
    OK(MPI_Type_commit(&tib));
    FAILS_NAMED(MPI_Send_c(&x, (MPI_Count)1 << 24, tib, to, 0, MPI_COMM_WORLD), MPI_ERR_COUNT,
                "MPI_Send_c");
    FAILS_NAMED(MPI_Recv_c(&x, (MPI_Count)1 << 24, tib, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                MPI_ERR_COUNT, "MPI_Recv_c");
    FAILS_NAMED(MPI_Isend_c(&x, (MPI_Count)1 << 24, tib, to, 0, MPI_COMM_WORLD, &(MPI_Request){0}),
                MPI_ERR_COUNT, "MPI_Isend_c");
    FAILS_NAMED(MPI_Send(&x, 1 << 24, tib, to, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send");
    OK(MPI_Type_free(&tib));
    OK(MPI_Type_free(&mib));
}

static void test_errors(void)
{
    int x[N] = {0}, n = 0;
    MPI_Count big = (MPI_Count)INT_MAX + 1, c = 0;
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    MPI_Request req;
    MPI_Status st;

    FAILS_NAMED(MPI_Send_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send_c");
    FAILS(MPI_Recv_c(x, -5, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    FAILS(MPI_Isend_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    FAILS(MPI_Send_init_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    /* bytes past SIZE_MAX / 2: refused, not wrapped */
    FAILS(MPI_Send_c(x, (MPI_Count)1 << 62, MPI_INT, to, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    FAILS(MPI_Irecv_c(x, LLONG_MAX, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
    /* collectives: negative, and past INT_MAX (every rank fails alike, locally) */
    FAILS_NAMED(MPI_Bcast_c(x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast_c");
    FAILS_NAMED(MPI_Bcast_c(x, big, MPI_BYTE, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast_c");
    FAILS_NAMED(MPI_Allreduce_c(MPI_IN_PLACE, x, big, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                MPI_ERR_COUNT, "MPI_Allreduce_c");
    FAILS_NAMED(MPI_Iallgather_c(x, big, MPI_BYTE, x, 1, MPI_BYTE, MPI_COMM_WORLD, &req),
                MPI_ERR_COUNT, "MPI_Iallgather_c");
    /* an invalid root: named by the _c call (its check runs before the int call) */
    FAILS_NAMED(MPI_Bcast_c(x, 1, MPI_INT, 99, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast_c");
    FAILS_NAMED(MPI_Gather_c(x, 1, MPI_INT, x, 1, MPI_INT, -3, MPI_COMM_WORLD), MPI_ERR_ROOT,
                "MPI_Gather_c");
    FAILS_NAMED(MPI_Iscatterv_c(x, NULL, NULL, MPI_INT, x, 1, MPI_INT, np, MPI_COMM_WORLD, &req),
                MPI_ERR_ROOT, "MPI_Iscatterv_c");
    FAILS_NAMED(MPI_Ireduce_c(x, x + 1, 1, MPI_INT, MPI_SUM, np + 5, MPI_COMM_WORLD, &req),
                MPI_ERR_ROOT, "MPI_Ireduce_c");
    test_fast_path_bytes();
    for (int r = 0; r < np; r++) {
        cnt[r] = 1;
        dsp[r] = r;
    }
    cnt[np - 1] = big;
    FAILS_NAMED(MPI_Alltoallv_c(x, cnt, dsp, MPI_INT, x + N / 2, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                MPI_ERR_COUNT, "MPI_Alltoallv_c");
    cnt[np - 1] = -1;
    FAILS(MPI_Allgatherv_c(x, 1, MPI_INT, x + N / 2, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
          MPI_ERR_COUNT);
    cnt[np - 1] = 1;
    dsp[np - 1] = (MPI_Aint)INT_MAX + 8;
    FAILS(MPI_Allgatherv_c(x, 1, MPI_INT, x + N / 2, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
          MPI_ERR_ARG);
    /* a status of 2^31 + 16 bytes: Get_count says MPI_UNDEFINED, Get_count_c the count */
    OK(MPI_Status_set_elements_x(&st, MPI_BYTE, big + 16));
    OK(MPI_Get_count(&st, MPI_BYTE, &n));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(n == MPI_UNDEFINED && c == big + 16, "Get_count %d, Get_count_c %lld", n, c);
    OK(MPI_Get_elements_c(&st, MPI_BYTE, &c));
    CHECK(c == big + 16, "Get_elements_c %lld", c);
}

/* ---- one message past INT_MAX -------------------------------------------------------------- */
static bool test_large(void)
{
    const MPI_Count n = ((MPI_Count)1 << 31) + 16;
    const long long need = 3 * n; /* a buffer on each of 2 ranks, and a margin */
    long long avail = mem_available();
    int go = np >= 2 && avail >= need;
    unsigned char *buf = NULL;
    size_t bad = 0;

    OK(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!go) {
        if (me == 0) {
            printf("SKIP (this part): a message of %lld bytes needs 2 ranks and %lld bytes of "
                   "available memory (%d ranks, %lld available)\n",
                   n, need, np, avail);
        }
        return false;
    }
    if (me <= 1 && (buf = malloc((size_t)n)) == NULL) {
        CHECK(0, "no memory for %lld bytes", n);
        return true;
    }
    if (me == 0) {
        for (size_t i = 0; i < (size_t)n; i++) {
            buf[i] = byte_at(i);
        }
        OK(MPI_Send_c(buf, n, MPI_BYTE, 1, 99, MPI_COMM_WORLD));
    } else if (me == 1) {
        MPI_Status st;
        MPI_Count got = -1;
        int got_int = 0;

        memset(buf, 0, (size_t)n);
        OK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 99, MPI_COMM_WORLD, &st));
        for (size_t i = 0; i < (size_t)n; i++) {
            bad += buf[i] != byte_at(i);
        }
        OK(MPI_Get_count_c(&st, MPI_BYTE, &got));
        OK(MPI_Get_count(&st, MPI_BYTE, &got_int));
        CHECK(bad == 0 && got == n && got_int == MPI_UNDEFINED,
              "%zu of %lld bytes wrong, Get_count_c %lld, Get_count %d", bad, n, got, got_int);
    }
    free(buf);
    return true;
}

/* the end of a phase that ran ("ok: name"), or of one that could not run here ("SKIP (this
 * phase): name"): counted alike */
static void phase_if(bool ran, const char *name)
{
    if (ran) {
        phase(name);
        return;
    }
    test_barrier(MPI_COMM_WORLD);
    phases++;
    if (me == 0) {
        printf("SKIP (this phase): %s\n", name);
        fflush(stdout);
    }
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
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    phases_expected = 7;
    test_p2p_blocking();
    phase("Send_c, Ssend_c, Bsend_c, Rsend_c, Recv_c, Sendrecv_c, Sendrecv_replace_c");
    test_p2p_nonblocking();
    phase("Isend_c ... Irecv_c, Isendrecv(_replace)_c, Mrecv_c, Imrecv_c");
    test_p2p_persistent();
    phase("Send_init_c, Ssend_init_c, Bsend_init_c, Rsend_init_c, Recv_init_c");
    test_coll();
    phase("collectives (blocking and nonblocking), Reduce_local_c");
    phase_if(test_inter(), "Gatherv_c, Alltoallv_c, the rooted calls' counts that are not "
                           "significant over an intercommunicator (2 ranks or more)");
    test_errors();
    phase("errors: negative counts, counts past the limits, Get_count past INT_MAX");
    phase_if(test_large(), "a message of 2^31 + 16 bytes (2 ranks or more, and the memory)");
    MPI_Finalize();
    return summary();
}
