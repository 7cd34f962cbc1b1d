/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators, data checked, on 2 to 8 ranks (1 rank: nothing to pair, it says so):
 * the evens and the odds of the world as the two groups (their leaders' world ranks 0 and 1),
 * then, with 3 ranks or more, groups of ranks % 3 == 0 and == 1 while the third group takes
 * no part (an intercommunicator is collective over its two groups only).
 * Point-to-point names remote ranks (and status sources are remote ranks), Comm_dup keeps the
 * layout, Intercomm_merge orders the groups by high, Comm_remote_size/group, Comm_test_inter.
 * Every blocking collective MPI defines over an intercommunicator, with each group as the root's
 * side for the rooted ones (MPI_ROOT / MPI_PROC_NULL), noncontiguous types, uneven v counts with
 * gaps left untouched, a non-commutative op checked for rank order (Allreduce, Reduce,
 * Reduce_scatter); Scan and Exscan refused (MPI_ERR_COMM). Every nonblocking collective over
 * an intercommunicator, data checked, several outstanding at once (and an Ibarrier on a second
 * intercommunicator) with point-to-point traffic across, both groups as the root's side, a
 * vector type and a non-commutative op; Ibarrier held back by one rank of either group; Iscan
 * refused (MPI_ERR_COMM), MPI_IN_PLACE refused (MPI_ERR_BUFFER). Comm_compare weighs both groups:
 * IDENT, CONGRUENT (a dup), SIMILAR (one group reordered), UNEQUAL (one group cut, or an
 * intracommunicator). Comm_disconnect of the duplicate and of each group's communicator;
 * Comm_get_parent (MPI_COMM_NULL).
 */
#include "mpi_test.h"

#include <stdlib.h>

/* world rank of rank r of the group of color col among ncolors (ranks % ncolors == col) */
static int world_of(int col, int ncolors, int r)
{
    return r * ncolors + col;
}

static int group_size(int col, int ncolors)
{
    return (np - col + ncolors - 1) / ncolors;
}

/* every local rank sends its world rank to every remote rank, received with ANY_SOURCE: the
 * status source is the remote rank */
static void check_p2p(MPI_Comm ic, int col, int rcol, int ncolors)
{
    int lr, ls, rs, got[8], *buf = malloc(8 * sizeof(int));
    MPI_Request reqs[8];
    MPI_Status st;

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    CHECK(ls == group_size(col, ncolors) && rs == group_size(rcol, ncolors), "sizes %d %d", ls, rs);
    for (int r = 0; r < rs; r++) {
        buf[r] = me;
        OK(MPI_Isend(&buf[r], 1, MPI_INT, r, 1, ic, &reqs[r]));
    }
    for (int i = 0; i < rs; i++) {
        int v = -1;
        OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rs && st.MPI_TAG == 1 &&
                  v == world_of(rcol, ncolors, st.MPI_SOURCE),
              "from source %d tag %d: %d", st.MPI_SOURCE, st.MPI_TAG, v);
        got[i] = st.MPI_SOURCE;
    }
    OK(MPI_Waitall(rs, reqs, MPI_STATUSES_IGNORE));
    (void)got;
    /* a probe and a named source, a noncontiguous type across */
    {
        int v[6] = {0}, w[6] = {0}, from = -1;
        MPI_Datatype vec;

        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (int i = 0; i < 6; i++) {
            v[i] = me * 100 + i;
        }
        /* the rank 0s swap a vector; rank 0 sends to the last remote rank, which probes */
        if (lr == 0) {
            OK(MPI_Sendrecv(v, 1, vec, 0, 9, w, 1, vec, 0, 9, ic, &st));
            from = world_of(rcol, ncolors, 0);
            CHECK(st.MPI_SOURCE == 0 && w[0] == from * 100 && w[2] == from * 100 + 2 &&
                      w[4] == from * 100 + 4 && w[1] == 0,
                  "vector across: source %d, %d %d %d %d", st.MPI_SOURCE, w[0], w[1], w[2], w[4]);
            OK(MPI_Send(v, 2, MPI_INT, rs - 1, 10, ic));
        }
        if (lr == ls - 1) {
            int flag = 0;
            do {
                OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, &st));
            } while (!flag);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 10, "Iprobe source %d tag %d", st.MPI_SOURCE,
                  st.MPI_TAG);
            OK(MPI_Recv(w, 2, MPI_INT, 0, 10, ic, &st));
            CHECK(w[0] == world_of(rcol, ncolors, 0) * 100, "probed message %d", w[0]);
        }
        MPI_Type_free(&vec);
    }
    /* bad peer: a rank of the local group beyond the remote group's size */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    FAILS(MPI_Send(buf, 0, MPI_INT, rs, 0, ic), MPI_ERR_RANK);
    free(buf);
}

static void check_queries(MPI_Comm ic, int col, int rcol, int ncolors)
{
    int flag = 0, n, res;
    MPI_Group g;

    OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "test_inter false");
    OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "test_inter of the world true");
    OK(MPI_Comm_remote_group(ic, &g));
    MPI_Group_size(g, &n);
    CHECK(n == group_size(rcol, ncolors), "remote group size %d", n);
    {
        MPI_Group wg;
        int in[8], out[8];
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int i = 0; i < n; i++) {
            in[i] = i;
        }
        MPI_Group_translate_ranks(g, n, in, wg, out);
        for (int i = 0; i < n; i++) {
            CHECK(out[i] == world_of(rcol, ncolors, i), "remote rank %d is world %d", i, out[i]);
        }
        MPI_Group_free(&wg);
    }
    MPI_Group_free(&g);
    OK(MPI_Comm_group(ic, &g));
    MPI_Group_size(g, &n);
    MPI_Group_rank(g, &res);
    CHECK(n == group_size(col, ncolors) && res == me / ncolors, "local group %d %d", n, res);
    MPI_Group_free(&g);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    FAILS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* merge: first says whether this group comes first (the group with high = 0, or the evens) */
static void check_merge(MPI_Comm ic, int col, int rcol, int ncolors, int high, int first)
{
    MPI_Comm m;
    int r, n, lr, all[16], wme = me;
    int fcol = first ? col : rcol, scol = first ? rcol : col, fsize = group_size(fcol, ncolors);

    OK(MPI_Intercomm_merge(ic, high, &m));
    MPI_Comm_rank(m, &r);
    MPI_Comm_size(m, &n);
    MPI_Comm_rank(ic, &lr);
    CHECK(n == group_size(col, ncolors) + group_size(rcol, ncolors), "merged size %d", n);
    CHECK(r == (first ? 0 : fsize) + lr, "merged rank %d (high %d, first %d)", r, high, first);
    /* a ring over the merged one: every rank's world rank, in merged order */
    for (int i = 0; i < n; i++) {
        all[i] = -1;
    }
    all[r] = wme;
    for (int step = 0; step < n - 1; step++) {
        int src = (r - step - 1 + n) % n, prev = (r - step + n) % n;
        OK(MPI_Sendrecv(&all[prev], 1, MPI_INT, (r + 1) % n, 4, &all[src], 1, MPI_INT,
                        (r - 1 + n) % n, 4, m, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < n; i++) {
        int w = i < fsize ? world_of(fcol, ncolors, i) : world_of(scol, ncolors, i - fsize);
        CHECK(all[i] == w, "merged rank %d is world %d, expected %d", i, all[i], w);
    }
    MPI_Comm_free(&m);
}

/* a non-commutative op: 2x2 matrix product of int[4] (inout = in * inout) */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof(r));
    }
}

/* the blocking collectives over ic, with the evens' rank 0 and then the odds' last rank as
 * roots; data checked against the world ranks */
static void check_coll(MPI_Comm ic, int col, int rcol, int ncolors)
{
    int lr, ls, rs, v[3 * 8], w[3 * 8], x, rootgrp;
    MPI_Datatype vec;

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* ints 0 and 2 of 3 (extent 3 ints) */
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &vec);
    MPI_Type_commit(&vec);
    OK(MPI_Barrier(ic));
    for (int pass = 0; pass < 2; pass++) {
        int root = pass == 0 ? 0 : (col == 1 ? ls - 1 : rs - 1); /* in the root's group */
        int rootw = world_of(pass == 0 ? 0 : 1, ncolors, root);
        int myroot;

        rootgrp = pass == 0 ? 0 : 1;
        myroot = col == rootgrp ? (lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
        /* Bcast of a vector: ints 0 and 2 carry, 1 stays */
        for (int i = 0; i < 3; i++) {
            v[i] = myroot == MPI_ROOT ? me * 10 + i : -1;
        }
        OK(MPI_Bcast(v, 1, vec, myroot, ic));
        if (col != rootgrp) {
            CHECK(v[0] == rootw * 10 && v[1] == -1 && v[2] == rootw * 10 + 2,
                  "Bcast from %d: %d %d %d", rootw, v[0], v[1], v[2]);
        }
        /* Gather: the root gets every remote rank's world rank */
        x = me;
        for (int i = 0; i < 8; i++) {
            w[i] = -1;
        }
        OK(MPI_Gather(&x, 1, MPI_INT, w, 1, MPI_INT, myroot, ic));
        for (int i = 0; myroot == MPI_ROOT && i < rs; i++) {
            CHECK(w[i] == world_of(rcol, ncolors, i), "Gather block %d: %d", i, w[i]);
        }
        /* Scatter: remote rank i gets root's 100 * world + i */
        for (int i = 0; i < 8; i++) {
            v[i] = me * 100 + i;
        }
        x = -1;
        OK(MPI_Scatter(v, 1, MPI_INT, &x, 1, MPI_INT, myroot, ic));
        if (col != rootgrp) {
            CHECK(x == rootw * 100 + lr, "Scatter: %d", x);
        }
    }
    /* Allgather of a vector into ints: every remote rank's (world, world + 2) */
    v[0] = me, v[1] = -7, v[2] = me + 2;
    OK(MPI_Allgather(v, 1, vec, w, 2, MPI_INT, ic));
    for (int i = 0; i < rs; i++) {
        int rw = world_of(rcol, ncolors, i);
        CHECK(w[2 * i] == rw && w[2 * i + 1] == rw + 2, "Allgather block %d: %d %d", i, w[2 * i],
              w[2 * i + 1]);
    }
    /* Allreduce SUM: the sum of the remote group's world ranks */
    {
        int sum = 0, want = 0;
        x = me;
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, ic));
        for (int i = 0; i < rs; i++) {
            want += world_of(rcol, ncolors, i);
        }
        CHECK(sum == want, "Allreduce SUM %d, expected %d", sum, want);
    }
    /* Allreduce of a non-commutative op: the remote ranks' matrices in rank order */
    {
        MPI_Op op;
        MPI_Datatype m4;
        int a[4] = {1, me + 1, 0, 1}, r[4], want[4] = {1, 0, 0, 1};

        MPI_Type_contiguous(4, MPI_INT, &m4);
        MPI_Type_commit(&m4);
        MPI_Op_create(matmul, 0, &op);
        OK(MPI_Allreduce(a, r, 1, m4, op, ic));
        for (int i = 0; i < rs; i++) { /* want = want * [1 w+1; 0 1] */
            want[1] += want[0] * (world_of(rcol, ncolors, i) + 1);
            want[3] += want[2] * (world_of(rcol, ncolors, i) + 1);
        }
        CHECK(memcmp(r, want, sizeof(r)) == 0, "Allreduce matmul %d %d %d %d", r[0], r[1], r[2],
              r[3]);
        /* and shears do commute; an upper-left 2 makes order matter */
        a[0] = lr + 2;
        OK(MPI_Allreduce(a, r, 1, m4, op, ic));
        want[0] = 1, want[1] = 0, want[2] = 0, want[3] = 1;
        for (int i = 0; i < rs; i++) {
            int wa = i + 2, wb = world_of(rcol, ncolors, i) + 1; /* [wa wb; 0 1] */
            want[1] = want[0] * wb + want[1];
            want[0] = want[0] * wa;
            want[3] = want[2] * wb + want[3];
            want[2] = want[2] * wa;
        }
        CHECK(memcmp(r, want, sizeof(r)) == 0, "Allreduce in rank order %d %d %d %d", r[0], r[1],
              r[2], r[3]);
        MPI_Op_free(&op);
        MPI_Type_free(&m4);
    }
    /* a bad root: refused, naming the call */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    FAILS(MPI_Bcast(v, 1, MPI_INT, rs + 5, ic), MPI_ERR_ROOT);
    MPI_Type_free(&vec);
}

/* the product in rank order of the remote ranks' [i + 2, w + 1 + k; 0 1] (i: remote rank, w:
 * its world rank), element k of a non-commutative reduction */
static void want_matmul(int rcol, int ncolors, int rs, int k, int *want)
{
    want[0] = 1, want[1] = 0, want[2] = 0, want[3] = 1;
    for (int i = 0; i < rs; i++) {
        int wa = i + 2, wb = world_of(rcol, ncolors, i) + 1 + k;
        want[1] = want[0] * wb + want[1];
        want[0] = want[0] * wa;
        want[3] = want[2] * wb + want[3];
        want[2] = want[2] * wa;
    }
}

static void fill_matmul(int *a, int lr, int n)
{
    for (int k = 0; k < n; k++) {
        a[4 * k] = lr + 2, a[4 * k + 1] = me + 1 + k, a[4 * k + 2] = 0, a[4 * k + 3] = 1;
    }
}

/* Reduce, Gatherv, Scatterv with the evens' rank 0 and then the odds' last rank as roots */
static void check_rooted_v(MPI_Comm ic, int col, int rcol, int ncolors, MPI_Datatype vec,
                           MPI_Datatype m4, MPI_Op op)
{
    int lr, ls, rs, v[64], w[64], c[8], d[8];

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    for (int i = 0; i < 8; i++) { /* remote rank i: i + 1 ints at i * 8 */
        c[i] = i + 1, d[i] = i * 8;
    }
    for (int pass = 0; pass < 2; pass++) {
        int rootgrp = pass, root = pass == 0 ? 0 : (col == 1 ? ls - 1 : rs - 1);
        int rootw = world_of(rootgrp, ncolors, root);
        int myroot = col == rootgrp ? (lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
        int a[4 * 3], r[4 * 3], want[4];

        /* Reduce of a non-commutative op, 3 elements: the remote ranks' matrices in rank order */
        fill_matmul(a, lr, 3);
        memset(r, 0, sizeof(r));
        OK(MPI_Reduce(a, r, 3, m4, op, myroot, ic));
        for (int k = 0; myroot == MPI_ROOT && k < 3; k++) {
            want_matmul(rcol, ncolors, rs, k, want);
            CHECK(memcmp(r + 4 * k, want, sizeof(want)) == 0, "Reduce matmul [%d]: %d %d %d %d", k,
                  r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
        }
        /* Reduce SUM of a vector type: ints 0 and 2 carry, 1 stays */
        v[0] = me, v[1] = -7, v[2] = me + 2, w[0] = w[1] = w[2] = -1;
        OK(MPI_Reduce(v, w, 1, vec, MPI_SUM, myroot, ic));
        if (myroot == MPI_ROOT) {
            int s = 0;
            for (int i = 0; i < rs; i++) {
                s += world_of(rcol, ncolors, i);
            }
            CHECK(w[0] == s && w[1] == -1 && w[2] == s + 2 * rs, "Reduce vec: %d %d %d", w[0], w[1],
                  w[2]);
        }
        /* Gatherv: remote rank i's i + 1 ints at i * 8, the gaps untouched */
        for (int i = 0; i < 64; i++) {
            w[i] = -1, v[i] = me * 10 + i;
        }
        OK(MPI_Gatherv(v, lr + 1, MPI_INT, w, c, d, MPI_INT, myroot, ic));
        for (int i = 0; myroot == MPI_ROOT && i < rs; i++) {
            for (int k = 0; k < 8; k++) {
                int e = k <= i ? world_of(rcol, ncolors, i) * 10 + k : -1;
                CHECK(w[i * 8 + k] == e, "Gatherv from %d [%d]: %d, expected %d", i, k,
                      w[i * 8 + k], e);
            }
        }
        /* Scatterv: remote rank i gets the root's ints i * 8 .. i * 8 + i */
        for (int i = 0; i < 64; i++) {
            v[i] = me * 100 + i, w[i] = -1;
        }
        OK(MPI_Scatterv(v, c, d, MPI_INT, w, lr + 1, MPI_INT, myroot, ic));
        for (int k = 0; col != rootgrp && k <= lr + 1; k++) {
            int e = k <= lr ? rootw * 100 + lr * 8 + k : -1;
            CHECK(w[k] == e, "Scatterv [%d]: %d, expected %d", k, w[k], e);
        }
    }
}

/* Alltoall(v/w), Allgatherv, Reduce_scatter(_block), Allreduce of a noncontiguous type */
static void check_all_v(MPI_Comm ic, int col, int rcol, int ncolors, MPI_Datatype vec,
                        MPI_Datatype m4, MPI_Op op)
{
    int lr, ls, rs, v[64], w[64], sc[8], sd[8], rc[8], rd[8];
    MPI_Datatype st[8], rt[8];

    (void)col;
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    /* Alltoall: block j to remote rank j */
    for (int j = 0; j < 8; j++) {
        v[j] = me * 100 + j, w[j] = -1;
    }
    OK(MPI_Alltoall(v, 1, MPI_INT, w, 1, MPI_INT, ic));
    for (int i = 0; i < 8; i++) {
        int e = i < rs ? world_of(rcol, ncolors, i) * 100 + lr : -1;
        CHECK(w[i] == e, "Alltoall block %d: %d, expected %d", i, w[i], e);
    }
    /* Alltoallv: j + 1 ints to remote rank j (at j * 8), lr + 1 from each at i * 8 */
    for (int j = 0; j < 8; j++) {
        sc[j] = j + 1, sd[j] = j * 8, rc[j] = lr + 1, rd[j] = j * 8;
    }
    for (int i = 0; i < 64; i++) {
        v[i] = me * 100 + i, w[i] = -1;
    }
    OK(MPI_Alltoallv(v, sc, sd, MPI_INT, w, rc, rd, MPI_INT, ic));
    for (int i = 0; i < rs; i++) {
        for (int k = 0; k < 8; k++) {
            int e = k <= lr ? world_of(rcol, ncolors, i) * 100 + lr * 8 + k : -1;
            CHECK(w[i * 8 + k] == e, "Alltoallv from %d [%d]: %d, expected %d", i, k, w[i * 8 + k],
                  e);
        }
    }
    /* Alltoallw: 2 ints to each (byte displacements), received as one vec (ints 0 and 2) */
    for (int j = 0; j < 8; j++) {
        sc[j] = 2, sd[j] = j * 2 * (int)sizeof(int), st[j] = MPI_INT;
        rc[j] = 1, rd[j] = j * 3 * (int)sizeof(int), rt[j] = vec;
        v[2 * j] = me * 1000 + j, v[2 * j + 1] = me * 1000 + j + 500;
    }
    for (int i = 0; i < 24; i++) {
        w[i] = -1;
    }
    OK(MPI_Alltoallw(v, sc, sd, st, w, rc, rd, rt, ic));
    for (int i = 0; i < rs; i++) {
        int e = world_of(rcol, ncolors, i) * 1000 + lr;
        CHECK(w[3 * i] == e && w[3 * i + 1] == -1 && w[3 * i + 2] == e + 500,
              "Alltoallw from %d: %d %d %d", i, w[3 * i], w[3 * i + 1], w[3 * i + 2]);
    }
    /* Allgatherv: remote rank i's i + 1 ints at i * 8 */
    for (int i = 0; i < 64; i++) {
        v[i] = me * 10 + i, w[i] = -1;
    }
    for (int j = 0; j < 8; j++) {
        rc[j] = j + 1, rd[j] = j * 8;
    }
    OK(MPI_Allgatherv(v, lr + 1, MPI_INT, w, rc, rd, MPI_INT, ic));
    for (int i = 0; i < rs; i++) {
        for (int k = 0; k < 8; k++) {
            int e = k <= i ? world_of(rcol, ncolors, i) * 10 + k : -1;
            CHECK(w[i * 8 + k] == e, "Allgatherv from %d [%d]: %d", i, k, w[i * 8 + k]);
        }
    }
    /* Reduce_scatter_block SUM: ls * rs ints in each group (the same total), rs to each */
    for (int k = 0; k < ls * rs; k++) {
        v[k] = me * 100 + k;
    }
    OK(MPI_Reduce_scatter_block(v, w, rs, MPI_INT, MPI_SUM, ic));
    for (int k = 0; k < rs; k++) {
        int e = 0;
        for (int i = 0; i < rs; i++) {
            e += world_of(rcol, ncolors, i) * 100 + lr * rs + k;
        }
        CHECK(w[k] == e, "Reduce_scatter_block [%d]: %d, expected %d", k, w[k], e);
    }
    /* Reduce_scatter of a non-commutative op, uneven counts summing to ls * rs matrices */
    {
        int a[4 * 64], r[4 * 16], want[4], cnt[8], first = 0;

        for (int j = 0; j < ls; j++) {
            cnt[j] = rs - 1 + (j == 0 ? ls : 0);
            first += j < lr ? cnt[j] : 0;
        }
        fill_matmul(a, lr, ls * rs);
        OK(MPI_Reduce_scatter(a, r, cnt, m4, op, ic));
        for (int k = 0; k < cnt[lr]; k++) {
            want_matmul(rcol, ncolors, rs, first + k, want);
            CHECK(memcmp(r + 4 * k, want, sizeof(want)) == 0,
                  "Reduce_scatter matmul [%d]: %d %d %d %d", first + k, r[4 * k], r[4 * k + 1],
                  r[4 * k + 2], r[4 * k + 3]);
        }
    }
    /* Allreduce of a noncontiguous type (a vector), MAX */
    v[0] = me, v[1] = -7, v[2] = -me, w[0] = w[1] = w[2] = -1;
    OK(MPI_Allreduce(v, w, 1, vec, MPI_MAX, ic));
    CHECK(w[0] == world_of(rcol, ncolors, rs - 1) && w[1] == -1 &&
              w[2] == -world_of(rcol, ncolors, 0),
          "Allreduce vec MAX: %d %d %d", w[0], w[1], w[2]);
}

/* The types and the op of the later checks: a vector (ints 0 and 2 of 3, extent 3 ints), 4 ints
 * in a row, and the non-commutative matrix product. */
static void tools_make(MPI_Datatype *vec, MPI_Datatype *m4, MPI_Op *op)
{
    MPI_Type_vector(2, 1, 2, MPI_INT, vec);
    MPI_Type_create_resized(*vec, 0, 3 * sizeof(int), vec);
    MPI_Type_commit(vec);
    MPI_Type_contiguous(4, MPI_INT, m4);
    MPI_Type_commit(m4);
    MPI_Op_create(matmul, 0, op);
}

static void tools_free(MPI_Datatype *vec, MPI_Datatype *m4, MPI_Op *op)
{
    MPI_Op_free(op);
    MPI_Type_free(m4);
    MPI_Type_free(vec);
}

/* the collectives added after the first six */
static void check_coll2(MPI_Comm ic, int col, int rcol, int ncolors)
{
    MPI_Datatype vec, m4;
    MPI_Op op;
    int v[4] = {0}, w[4];

    tools_make(&vec, &m4, &op);
    check_rooted_v(ic, col, rcol, ncolors, vec, m4, op);
    check_all_v(ic, col, rcol, ncolors, vec, m4, op);
    /* not defined over an intercommunicator: refused, naming the call */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    FAILS(MPI_Scan(v, w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    FAILS(MPI_Exscan(v, w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    FAILS(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, 99, ic), MPI_ERR_ROOT);
    FAILS(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, w, 1, MPI_INT, ic), MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
    tools_free(&vec, &m4, &op);
}

/* Ibarrier completes nowhere before every rank of both groups has entered: the last rank of
 * one group (held) enters only once rank 0 of the other has seen its own Ibarrier stay
 * incomplete for a while; each group held in turn */
static void check_ibarrier(MPI_Comm ic, int col)
{
    int lr, ls, rs, flag;
    MPI_Request req;

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    for (int held = 0; held < 2; held++) {
        if (col == held && lr == ls - 1) {
            OK(MPI_Recv(&flag, 1, MPI_INT, 0, 78, ic, MPI_STATUS_IGNORE));
            OK(MPI_Ibarrier(ic, &req));
        } else if (col != held && lr == 0) {
            double t0 = MPI_Wtime();

            OK(MPI_Ibarrier(ic, &req));
            do {
                flag = 0;
                OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "Ibarrier complete before the remote group's last rank entered");
            } while (!flag && MPI_Wtime() - t0 < 0.02);
            OK(MPI_Send(&flag, 1, MPI_INT, rs - 1, 78, ic));
        } else {
            OK(MPI_Ibarrier(ic, &req));
        }
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
}

/* Ibcast (a vector), Igather, Iscatter, Ireduce (non-commutative) with each group as the
 * root's side, all outstanding at once with point-to-point traffic across ic */
static void check_nbc_rooted(MPI_Comm ic, int col, int rcol, int ncolors, MPI_Datatype vec,
                             MPI_Datatype m4, MPI_Op op)
{
    int lr, ls, rs;

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    for (int pass = 0; pass < 2; pass++) {
        int rootgrp = pass, root = pass == 0 ? 0 : (col == 1 ? ls - 1 : rs - 1);
        int rootw = world_of(rootgrp, ncolors, root);
        int myroot = col == rootgrp ? (lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
        int bc[3], gx = me, gw[8], sv[8], sx = -1, a[12], r[12], want[4], pin[8], pout[8];
        MPI_Request req[4 + 16];
        int n = 0;

        for (int i = 0; i < 8; i++) {
            gw[i] = -1, sv[i] = me * 100 + i, pin[i] = -1, pout[i] = me * 1000 + i;
        }
        for (int i = 0; i < rs; i++) {
            OK(MPI_Irecv(&pin[i], 1, MPI_INT, i, 77, ic, &req[n++]));
        }
        for (int i = 0; i < 3; i++) {
            bc[i] = myroot == MPI_ROOT ? me * 10 + i : -1;
        }
        OK(MPI_Ibcast(bc, 1, vec, myroot, ic, &req[n++]));
        OK(MPI_Igather(&gx, 1, MPI_INT, gw, 1, MPI_INT, myroot, ic, &req[n++]));
        OK(MPI_Iscatter(sv, 1, MPI_INT, &sx, 1, MPI_INT, myroot, ic, &req[n++]));
        fill_matmul(a, lr, 3);
        memset(r, 0, sizeof(r));
        if (pass == 1) { /* an op and a type of its own, freed while it runs (MPI: allowed) */
            MPI_Type_contiguous(4, MPI_INT, &m4);
            MPI_Type_commit(&m4);
            MPI_Op_create(matmul, 0, &op);
        }
        OK(MPI_Ireduce(a, r, 3, m4, op, myroot, ic, &req[n++]));
        if (pass == 1) {
            OK(MPI_Op_free(&op));
            OK(MPI_Type_free(&m4));
        }
        for (int i = 0; i < rs; i++) {
            OK(MPI_Isend(&pout[i], 1, MPI_INT, i, 77, ic, &req[n++]));
        }
        OK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
        for (int i = 0; i < rs; i++) {
            CHECK(pin[i] == world_of(rcol, ncolors, i) * 1000 + lr, "p2p from %d: %d", i, pin[i]);
        }
        if (col != rootgrp) {
            CHECK(bc[0] == rootw * 10 && bc[1] == -1 && bc[2] == rootw * 10 + 2,
                  "Ibcast from %d: %d %d %d", rootw, bc[0], bc[1], bc[2]);
            CHECK(sx == rootw * 100 + lr, "Iscatter: %d", sx);
        } else {
            int e = myroot == MPI_ROOT ? me * 10 : -1;

            CHECK(bc[0] == e && bc[1] == (e < 0 ? -1 : e + 1), "Ibcast at the root's group: %d %d",
                  bc[0], bc[1]);
            CHECK(sx == -1, "Iscatter wrote %d at the root's group", sx);
        }
        for (int i = 0; i < 8; i++) {
            int e = myroot == MPI_ROOT && i < rs ? world_of(rcol, ncolors, i) : -1;
            CHECK(gw[i] == e, "Igather block %d: %d, expected %d", i, gw[i], e);
        }
        for (int k = 0; k < 3; k++) {
            if (myroot == MPI_ROOT) {
                want_matmul(rcol, ncolors, rs, k, want);
            } else {
                memset(want, 0, sizeof(want));
            }
            CHECK(memcmp(r + 4 * k, want, sizeof(want)) == 0, "Ireduce matmul [%d]: %d %d %d %d", k,
                  r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
        }
    }
}

/* the results of check_nbc_all */
typedef struct {
    int ag[16], a2a[8], sum, mm[8], vmax[3], rsb[8], rsbm[4 * 8], pin[8];
} nbc_res_t;

static void check_nbc_results(const nbc_res_t *x, int lr, int rs, int rcol, int ncolors)
{
    int sum = 0, want[4];

    for (int i = 0; i < rs; i++) {
        int w = world_of(rcol, ncolors, i), e = 0;

        sum += w;
        CHECK(x->ag[2 * i] == w && x->ag[2 * i + 1] == w + 2, "Iallgather block %d: %d %d", i,
              x->ag[2 * i], x->ag[2 * i + 1]);
        CHECK(x->a2a[i] == w * 100 + lr, "Ialltoall block %d: %d", i, x->a2a[i]);
        CHECK(x->pin[i] == w * 1000 + lr, "p2p from %d: %d", i, x->pin[i]);
        for (int j = 0; j < rs; j++) {
            e += world_of(rcol, ncolors, j) * 100 + lr * rs + i;
        }
        CHECK(x->rsb[i] == e, "Ireduce_scatter_block [%d]: %d, expected %d", i, x->rsb[i], e);
        want_matmul(rcol, ncolors, rs, lr * rs + i, want);
        CHECK(memcmp(x->rsbm + 4 * i, want, sizeof(want)) == 0,
              "Ireduce_scatter_block matmul [%d]: %d %d %d %d", i, x->rsbm[4 * i],
              x->rsbm[4 * i + 1], x->rsbm[4 * i + 2], x->rsbm[4 * i + 3]);
    }
    CHECK(x->sum == sum, "Iallreduce SUM %d, expected %d", x->sum, sum);
    for (int k = 0; k < 2; k++) {
        want_matmul(rcol, ncolors, rs, k, want);
        CHECK(memcmp(x->mm + 4 * k, want, sizeof(want)) == 0, "Iallreduce matmul [%d]: %d %d %d %d",
              k, x->mm[4 * k], x->mm[4 * k + 1], x->mm[4 * k + 2], x->mm[4 * k + 3]);
    }
    CHECK(x->vmax[0] == world_of(rcol, ncolors, rs - 1) && x->vmax[1] == -1 &&
              x->vmax[2] == -world_of(rcol, ncolors, 0),
          "Iallreduce vec MAX: %d %d %d", x->vmax[0], x->vmax[1], x->vmax[2]);
}

/* Iallgather (a vector sent), Ialltoall, Iallreduce (SUM; non-commutative; a vector),
 * Ireduce_scatter_block (SUM; non-commutative) on ic and an Ibarrier on ic2, all outstanding
 * at once with point-to-point traffic across ic, completed by Testany in whatever order */
static void check_nbc_all(MPI_Comm ic, MPI_Comm ic2, int rcol, int ncolors, MPI_Datatype vec,
                          MPI_Datatype m4, MPI_Op op)
{
    int lr, ls, rs, v[3], out[8], pout[8], one, sv[64], a[4 * 2], am[4 * 64], vv[3], idx;
    int done = 0;
    nbc_res_t x;
    MPI_Request req[8 + 16];
    int n = 0;

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    memset(&x, 0xff, sizeof(x)); /* -1 everywhere */
    for (int i = 0; i < rs; i++) {
        OK(MPI_Irecv(&x.pin[i], 1, MPI_INT, i, 77, ic, &req[n++]));
    }
    OK(MPI_Ibarrier(ic2, &req[n++]));
    v[0] = me, v[1] = -7, v[2] = me + 2;
    OK(MPI_Iallgather(v, 1, vec, x.ag, 2, MPI_INT, ic, &req[n++]));
    for (int j = 0; j < 8; j++) {
        out[j] = me * 100 + j;
    }
    OK(MPI_Ialltoall(out, 1, MPI_INT, x.a2a, 1, MPI_INT, ic, &req[n++]));
    one = me;
    OK(MPI_Iallreduce(&one, &x.sum, 1, MPI_INT, MPI_SUM, ic, &req[n++]));
    fill_matmul(a, lr, 2);
    OK(MPI_Iallreduce(a, x.mm, 2, m4, op, ic, &req[n++]));
    vv[0] = me, vv[1] = -7, vv[2] = -me;
    OK(MPI_Iallreduce(vv, x.vmax, 1, vec, MPI_MAX, ic, &req[n++]));
    for (int k = 0; k < ls * rs; k++) { /* ls * rs ints in each group, rs to each rank */
        sv[k] = me * 100 + k;
    }
    OK(MPI_Ireduce_scatter_block(sv, x.rsb, rs, MPI_INT, MPI_SUM, ic, &req[n++]));
    fill_matmul(am, lr, ls * rs);
    OK(MPI_Ireduce_scatter_block(am, x.rsbm, rs, m4, op, ic, &req[n++]));
    for (int i = 0; i < rs; i++) {
        pout[i] = me * 1000 + i;
        OK(MPI_Isend(&pout[i], 1, MPI_INT, i, 77, ic, &req[n++]));
    }
    while (done < n) {
        int flag = 0;

        OK(MPI_Testany(n, req, &idx, &flag, MPI_STATUS_IGNORE));
        done += flag && idx != MPI_UNDEFINED;
    }
    check_nbc_results(&x, lr, rs, rcol, ncolors);
}

/* every nonblocking collective over an intercommunicator, and the ones refused */
static void check_nbc(MPI_Comm ic, MPI_Comm ic2, int col, int rcol, int ncolors)
{
    MPI_Datatype vec, m4;
    MPI_Op op;
    MPI_Request req = MPI_REQUEST_NULL;
    int v[4] = {0}, w[16];

    tools_make(&vec, &m4, &op);
    check_ibarrier(ic, col);
    check_nbc_rooted(ic, col, rcol, ncolors, vec, m4, op);
    check_nbc_all(ic, ic2, rcol, ncolors, vec, m4, op);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    FAILS(MPI_Iscan(v, w, 1, MPI_INT, MPI_SUM, ic, &req), MPI_ERR_COMM);
    FAILS(MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INT, w, 1, MPI_INT, ic, &req), MPI_ERR_BUFFER);
    FAILS(MPI_Iallreduce(MPI_IN_PLACE, w, 1, MPI_INT, MPI_SUM, ic, &req), MPI_ERR_BUFFER);
    FAILS(MPI_Ibcast(v, 1, MPI_INT, 99, ic, &req), MPI_ERR_ROOT);
    FAILS(MPI_Ireduce(v, w, 1, MPI_INT, MPI_SUM, -5, ic, &req), MPI_ERR_ROOT);
    CHECK(req == MPI_REQUEST_NULL, "a refused call made a request");
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
    tools_free(&vec, &m4, &op);
}

/* Comm_compare over intercommunicators: both groups count. ic: this pair's; d: its dup. */
static void check_compare(MPI_Comm ic, MPI_Comm d, MPI_Comm local, int col, int rcol, int ncolors)
{
    int res = -1, lr, n0 = group_size(0, ncolors);
    MPI_Comm rev, rc, sub, sc;

    MPI_Comm_rank(local, &lr);
    OK(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(ic, ic) %d", res);
    OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(ic, dup) %d", res);
    OK(MPI_Comm_compare(ic, local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(inter, its local intra) %d", res);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK(res == MPI_UNEQUAL, "compare(world, inter) %d", res);
    /* group 0 reversed: the same members in another order, on one side or the other */
    OK(MPI_Comm_split(local, 0, col == 0 ? -lr : lr, &rev));
    OK(MPI_Intercomm_create(rev, 0, MPI_COMM_WORLD, col == 0 ? rcol : world_of(0, ncolors, n0 - 1),
                            43, &rc));
    OK(MPI_Comm_compare(ic, rc, &res));
    CHECK(res == (n0 > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare(ic, group 0 reversed) %d", res);
    MPI_Comm_free(&rc);
    MPI_Comm_free(&rev);
    /* group 0 cut to its rank 0: group 1 sees the same local group, another remote one */
    OK(MPI_Comm_split(local, col == 0 && lr > 0 ? MPI_UNDEFINED : 0, lr, &sub));
    if (sub != MPI_COMM_NULL) {
        OK(MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, rcol, 44, &sc));
        OK(MPI_Comm_compare(ic, sc, &res));
        CHECK(res == (n0 > 1 ? MPI_UNEQUAL : MPI_CONGRUENT), "compare(ic, group 0 cut) %d", res);
        MPI_Comm_free(&sc);
        MPI_Comm_free(&sub);
    }
}

static void pair(int ncolors)
{
    int col = me % ncolors, rcol = col == 0 ? 1 : 0;
    MPI_Comm local, ic, d;

    OK(MPI_Comm_split(MPI_COMM_WORLD, col, me, &local));
    if (col > 1) {
        MPI_Comm_free(&local); /* the third group: takes no part */
        return;
    }
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rcol, 42, &ic));
    check_queries(ic, col, rcol, ncolors);
    check_p2p(ic, col, rcol, ncolors);
    OK(MPI_Comm_dup(ic, &d));
    check_p2p(d, col, rcol, ncolors);
    check_coll(d, col, rcol, ncolors);
    check_coll2(d, col, rcol, ncolors);
    check_nbc(d, ic, col, rcol, ncolors);
    check_compare(ic, d, local, col, rcol, ncolors);
    check_merge(d, col, rcol, ncolors, col == 1, col == 0);  /* the odds high */
    check_merge(ic, col, rcol, ncolors, col == 0, col == 1); /* the evens high */
    check_merge(ic, col, rcol, ncolors, 1, col == 0);        /* the same: the low group first */
    OK(MPI_Comm_disconnect(&d)); /* an intercommunicator: a barrier of both groups, then freed */
    CHECK(d == MPI_COMM_NULL, "Comm_disconnect left the handle %#x", (unsigned)d);
    MPI_Comm_free(&ic);
    OK(MPI_Comm_disconnect(&local));
    CHECK(local == MPI_COMM_NULL, "Comm_disconnect left the handle %#x", (unsigned)local);
    d = MPI_COMM_WORLD;
    OK(MPI_Comm_get_parent(&d)); /* started by MPI_Init: no parent */
    CHECK(d == MPI_COMM_NULL, "Comm_get_parent gave %#x, not MPI_COMM_NULL", (unsigned)d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = np >= 3 ? 2 : np == 2 ? 1 : 0;
    if (np > 8) {
        printf("this test takes at most 8 ranks\n");
        return 1;
    }
    if (np < 2) {
        printf("ok: one rank: no intercommunicator to make\n");
    } else {
        pair(2);
        phase("evens and odds");
        if (np >= 3) {
            pair(3);
            phase("two groups of three, the third apart");
        }
    }
    MPI_Finalize();
    return summary();
}
