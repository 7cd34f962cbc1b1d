/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators, data checked, on 2 to 8 ranks (1 rank: nothing to pair, it says so):
 * the evens and the odds of the world as the two groups (their leaders' world ranks 0 and 1),
 * then, with 3 ranks or more, groups of ranks % 3 == 0 and == 1 while the third group takes
 * no part (an intercommunicator is collective over its two groups only).
 * Point-to-point names remote ranks (and status sources are remote ranks), Comm_dup keeps the
 * layout, Intercomm_merge orders the groups by high, Comm_remote_size/group, Comm_test_inter.
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
    check_merge(d, col, rcol, ncolors, col == 1, col == 0);  /* the odds high */
    check_merge(ic, col, rcol, ncolors, col == 0, col == 1); /* the evens high */
    check_merge(ic, col, rcol, ncolors, 1, col == 0);        /* the same: the low group first */
    MPI_Comm_free(&d);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
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
