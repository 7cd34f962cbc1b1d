/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Issue 43 item 1: MPI_Comm_split, MPI_Comm_create and MPI_Comm_split_type of an
 * intercommunicator (each group splits its local group; the pieces of the same color form the
 * new intercommunicators), checked by their sizes, ranks and traffic on them; and the
 * nonblocking v-collectives (Igatherv, Iscatterv, Iallgatherv, Ialltoallv, Ialltoallw,
 * Ireduce_scatter, Iexscan) with checked data, overlapped with point-to-point, a
 * noncontiguous type and MPI_IN_PLACE included. 1 to 8 ranks (intercommunicators from 2).
 */
#include "mpi_test.h"

#include <stdlib.h>

static int half; /* world ranks below half are the low group */

/* the world rank of rank r of a group (low: the low one) */
static int world_of(int low, int r)
{
    return low ? r : half + r;
}

/* On a new intercommunicator nc: every rank sends its world rank to each remote rank and
 * checks what each sent: remote rank j must be world rank expect[j]. */
static void check_traffic(MPI_Comm nc, const int *expect, int rsize, const char *what)
{
    int wme = me, got;
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)rsize);

    for (int j = 0; j < rsize; j++) {
        OK(MPI_Isend(&wme, 1, MPI_INT, j, 11, nc, &rq[j]));
    }
    for (int j = 0; j < rsize; j++) {
        MPI_Status st;

        got = -1;
        OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 11, nc, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && got == expect[st.MPI_SOURCE],
              "%s: remote rank %d is world rank %d, expected %d", what, st.MPI_SOURCE, got,
              st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize ? expect[st.MPI_SOURCE] : -1);
    }
    OK(MPI_Waitall(rsize, rq, MPI_STATUSES_IGNORE));
    free(rq);
}

/* The expected piece of a split by (color_of, key_of) of the group (low): its members'
 * ranks in the group, in new rank order. */
static int piece(int low, int size, int color, int (*color_of)(int), int (*key_of)(int, int),
                 int *out)
{
    int n = 0;

    for (int r = 0; r < size; r++) {
        int j = n++;

        if (color_of(r) != color) {
            n--;
            continue;
        }
        while (j > 0 && key_of(out[j - 1], size) > key_of(r, size)) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = r;
    }
    (void)low;
    return n;
}

static int parity(int r)
{
    return r % 2;
}

static int reversed(int r, int size)
{
    return size - r;
}

static int zero(int r)
{
    (void)r;
    return 0;
}

static int same(int r, int size)
{
    (void)size;
    return r;
}

/* Checks nc, the split of inter by (color_of, key_of) at this rank. */
static void check_piece(MPI_Comm nc, int low, int lsize, int rsize, int lrank, int (*color_of)(int),
                        int (*key_of)(int, int), const char *what)
{
    int lp[8], rp[8], nl = piece(low, lsize, color_of(lrank), color_of, key_of, lp);
    int nr = piece(!low, rsize, color_of(lrank), color_of, key_of, rp), expect[8], sz, rk, rs,
        inter;

    if (nr == 0) {
        CHECK(nc == MPI_COMM_NULL, "%s: no remote member of color %d, yet a communicator", what,
              color_of(lrank));
        if (nc != MPI_COMM_NULL) {
            MPI_Comm_free(&nc);
        }
        return;
    }
    CHECK(nc != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (nc == MPI_COMM_NULL) {
        return;
    }
    OK(MPI_Comm_test_inter(nc, &inter));
    OK(MPI_Comm_size(nc, &sz));
    OK(MPI_Comm_rank(nc, &rk));
    OK(MPI_Comm_remote_size(nc, &rs));
    CHECK(inter && sz == nl && rs == nr, "%s: inter %d size %d remote %d, expected %d %d", what,
          inter, sz, rs, nl, nr);
    CHECK(rk >= 0 && rk < nl && lp[rk] == lrank, "%s: rank %d, expected the place of %d", what, rk,
          lrank);
    for (int j = 0; j < nr; j++) {
        expect[j] = world_of(!low, rp[j]);
    }
    check_traffic(nc, expect, nr, what);
    OK(MPI_Comm_free(&nc));
}

/* Igatherv, Ialltoallv, Ireduce_scatter over an intercommunicator, started together */
static void test_inter_nbc_v(MPI_Comm nc, int low, int lsize, int rsize, int lrank)
{
    int one[8], dis[8], got[8], sent[8], back[8], rcount[8], sbuf[64], rsum[8], rsum_sum = 0;
    int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, mine = me;
    MPI_Request rq[3];

    for (int j = 0; j < 8; j++) {
        one[j] = 1, dis[j] = j, got[j] = back[j] = -1;
        sent[j] = 100 * me + j;
    }
    OK(MPI_Igatherv(&mine, 1, MPI_INT, got, one, dis, MPI_INT, root, nc, &rq[0]));
    OK(MPI_Ialltoallv(sent, one, dis, MPI_INT, back, one, dis, MPI_INT, nc, &rq[1]));
    /* both groups reduce lsize * rsize elements: each rank of a group gets the other size */
    for (int i = 0; i < lsize; i++) {
        rcount[i] = rsize;
    }
    for (int k = 0; k < lsize * rsize; k++) {
        sbuf[k] = me + k;
    }
    OK(MPI_Ireduce_scatter(sbuf, rsum, rcount, MPI_INT, MPI_SUM, nc, &rq[2]));
    OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++) {
        rsum_sum += world_of(!low, j);
        CHECK(back[j] == 100 * world_of(!low, j) + lrank, "inter Ialltoallv from %d: %d", j,
              back[j]);
        CHECK(root != MPI_ROOT || got[j] == world_of(!low, j), "inter Igatherv [%d] = %d", j,
              got[j]);
    }
    for (int i = 0; i < rsize; i++) {
        int k = lrank * rsize + i;

        CHECK(rsum[i] == rsum_sum + rsize * k, "inter Ireduce_scatter [%d] = %d, expected %d", i,
              rsum[i], rsum_sum + rsize * k);
    }
}

static void test_splits(void)
{
    MPI_Comm local, inter, nc;
    int low = me < half, lsize, rsize, lrank;
    MPI_Group g, sub;

    OK(MPI_Comm_split(MPI_COMM_WORLD, low, me, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 77, &inter));
    OK(MPI_Comm_size(inter, &lsize));
    OK(MPI_Comm_remote_size(inter, &rsize));
    OK(MPI_Comm_rank(inter, &lrank));
    /* by parity, reversed */
    OK(MPI_Comm_split(inter, lrank % 2, lsize - lrank, &nc));
    check_piece(nc, low, lsize, rsize, lrank, parity, reversed, "split by parity");
    /* a dup by split (MPICH's harness does this) */
    OK(MPI_Comm_split(inter, 0, lrank, &nc));
    check_piece(nc, low, lsize, rsize, lrank, zero, same, "split, one color");
    /* MPI_UNDEFINED: MPI_COMM_NULL */
    OK(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &nc));
    CHECK(nc == MPI_COMM_NULL, "split with MPI_UNDEFINED");
    /* split_type SHARED: one host, the same groups */
    OK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, lrank, MPI_INFO_NULL, &nc));
    check_piece(nc, low, lsize, rsize, lrank, zero, same, "split_type SHARED");
    /* Comm_create of each group without its rank 0 (empty on a side of one: NULL everywhere) */
    OK(MPI_Comm_group(inter, &g));
    OK(MPI_Group_excl(g, 1, (int[]){0}, &sub));
    OK(MPI_Comm_create(inter, sub, &nc));
    if (lsize == 1 || rsize == 1 || lrank == 0) {
        CHECK(nc == MPI_COMM_NULL, "Comm_create: a communicator for local rank %d (%d, %d)", lrank,
              lsize, rsize);
    } else {
        int expect[8], sz, rs, rk;

        OK(MPI_Comm_size(nc, &sz));
        OK(MPI_Comm_remote_size(nc, &rs));
        OK(MPI_Comm_rank(nc, &rk));
        CHECK(sz == lsize - 1 && rs == rsize - 1 && rk == lrank - 1, "Comm_create %d %d %d", sz, rs,
              rk);
        for (int j = 0; j < rs; j++) {
            expect[j] = world_of(!low, j + 1);
        }
        check_traffic(nc, expect, rs, "Comm_create");
        OK(MPI_Comm_free(&nc));
    }
    OK(MPI_Group_free(&sub));
    OK(MPI_Group_free(&g));
    /* a split's intercommunicator merges and reduces like any */
    {
        MPI_Comm m;
        int sum = -1, msz;

        OK(MPI_Comm_split(inter, 0, lrank, &nc));
        OK(MPI_Intercomm_merge(nc, !low, &m));
        OK(MPI_Comm_size(m, &msz));
        OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK(msz == np && sum == np * (np - 1) / 2, "merge of a split: size %d sum %d", msz, sum);
        OK(MPI_Comm_free(&m));
        /* a nonblocking v-collective over it (the blocking one, complete at once) */
        {
            int rc[8], dis[8], out[8], mine = me;
            MPI_Request rq;

            for (int j = 0; j < rsize; j++) {
                rc[j] = 1, dis[j] = j, out[j] = -1;
            }
            OK(MPI_Iallgatherv(&mine, 1, MPI_INT, out, rc, dis, MPI_INT, nc, &rq));
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            for (int j = 0; j < rsize; j++) {
                CHECK(out[j] == world_of(!low, j), "inter Iallgatherv [%d] = %d", j, out[j]);
            }
        }
        test_inter_nbc_v(nc, low, lsize, rsize, lrank);
        OK(MPI_Comm_free(&nc));
    }
    /* errors: a group that is not a subgroup of the local group */
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&local));
}

/* ---- nonblocking v-collectives ---- */
static void test_nbc_v(void)
{
    int n = np, *sc = calloc((size_t)n, sizeof(int)), *sd = calloc((size_t)n, sizeof(int));
    int *rc = calloc((size_t)n, sizeof(int)), *rd = calloc((size_t)n, sizeof(int));
    int *sbuf = calloc(64 * (size_t)n, sizeof(int)), *rbuf = calloc(64 * (size_t)n, sizeof(int));
    int *gbuf = calloc(64 * (size_t)n, sizeof(int)), *abuf = calloc(64 * (size_t)n, sizeof(int));
    int *wbuf = calloc(64 * (size_t)n, sizeof(int)), *xs = calloc(64 * (size_t)n, sizeof(int));
    int *rs = calloc((size_t)n, sizeof(int)), redin[64], redout[64], ex = -1, tok = me, got = -1;
    int total = 0, root = n - 1, k = 0;
    MPI_Request rq[8];
    MPI_Datatype spread, *wt = calloc((size_t)n, sizeof(MPI_Datatype));

    /* Igatherv to the last rank: rank i sends i + 1 ints (100 i + j), placed in reverse */
    for (int i = n - 1; i >= 0; i--) {
        rc[i] = i + 1, rd[i] = total, total += i + 1;
    }
    for (int j = 0; j <= me; j++) {
        sbuf[j] = 100 * me + j;
    }
    OK(MPI_Igatherv(sbuf, me + 1, MPI_INT, gbuf, rc, rd, MPI_INT, root, MPI_COMM_WORLD, &rq[k++]));
    /* Iscatterv from 0: rank i gets i + 1 ints (1000 + 10 i + j) */
    for (int i = 0; i < n; i++) {
        sc[i] = i + 1, sd[i] = 10 * i;
        for (int j = 0; j <= i; j++) {
            xs[10 * i + j] = 1000 + 10 * i + j;
        }
    }
    OK(MPI_Iscatterv(xs, sc, sd, MPI_INT, rbuf, me + 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]));
    /* Iallgatherv into a noncontiguous type: one int every two, the gaps left alone */
    OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spread));
    OK(MPI_Type_commit(&spread));
    for (int i = 0; i < 2 * n; i++) {
        abuf[i] = -7;
    }
    for (int i = 0; i < n; i++) {
        rs[i] = 1, rd[i] = i;
    }
    OK(MPI_Iallgatherv(&tok, 1, MPI_INT, abuf, rs, rd, spread, MPI_COMM_WORLD, &rq[k++]));
    /* Ialltoallw: one int to each peer at byte displacement 4 j */
    for (int i = 0; i < n; i++) {
        sc[i] = rc[i] = 1;
        sd[i] = rd[i] = i * (int)sizeof(int);
        wt[i] = MPI_INT;
        wbuf[i] = 10000 + 100 * me + i;
    }
    OK(MPI_Ialltoallw(wbuf, sc, sd, wt, wbuf + 32 * n, rc, rd, wt, MPI_COMM_WORLD, &rq[k++]));
    /* Ireduce_scatter: rank i gets i + 1 sums of (j + rank) */
    total = 0;
    for (int i = 0; i < n; i++) {
        rs[i] = i + 1, total += i + 1;
    }
    for (int j = 0; j < total; j++) {
        redin[j] = j + me;
    }
    OK(MPI_Ireduce_scatter(redin, redout, rs, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
    /* Iexscan of the ranks */
    OK(MPI_Iexscan(&me, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]));
    /* point-to-point meanwhile: a ring */
    OK(MPI_Sendrecv(&tok, 1, MPI_INT, (me + 1) % n, 9, &got, 1, MPI_INT, (me + n - 1) % n, 9,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == (me + n - 1) % n, "ring got %d", got);
    OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));

    if (me == root) {
        total = 0;
        for (int i = n - 1; i >= 0; i--) {
            for (int j = 0; j <= i; j++) {
                CHECK(gbuf[total + j] == 100 * i + j, "Igatherv rank %d [%d] = %d", i, j,
                      gbuf[total + j]);
            }
            total += i + 1;
        }
    }
    for (int j = 0; j <= me; j++) {
        CHECK(rbuf[j] == 1000 + 10 * me + j, "Iscatterv [%d] = %d", j, rbuf[j]);
    }
    for (int i = 0; i < n; i++) {
        CHECK(abuf[2 * i] == i && abuf[2 * i + 1] == -7, "Iallgatherv [%d] = %d, gap %d", i,
              abuf[2 * i], abuf[2 * i + 1]);
        CHECK(wbuf[32 * n + i] == 10000 + 100 * i + me, "Ialltoallw from %d: %d", i,
              wbuf[32 * n + i]);
    }
    {
        int off = me * (me + 1) / 2;

        for (int j = 0; j <= me; j++) {
            CHECK(redout[j] == n * (off + j) + n * (n - 1) / 2, "Ireduce_scatter [%d] = %d", j,
                  redout[j]);
        }
    }
    CHECK(me == 0 || ex == me * (me - 1) / 2, "Iexscan %d", ex);

    /* Ialltoallv, in place: block j (j + 1 ints) of rank i holds 10 i + j, swapped */
    total = 0;
    for (int i = 0; i < n; i++) {
        rc[i] = i % 3 + 1, rd[i] = total, total += rc[i];
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < rc[i]; j++) {
            sbuf[rd[i] + j] = 1000 * me + 10 * i + j;
        }
    }
    /* every rank sends rc[j] ints to rank j; so each receives rc[me] from each */
    total = rc[me];
    for (int i = 0; i < n; i++) {
        sd[i] = rd[i];
        sc[i] = rc[i];
        rs[i] = total;
        rc[i] = i * total;
    }
    OK(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rs, rc, MPI_INT, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < rs[i]; j++) {
            CHECK(rbuf[rc[i] + j] == 1000 * i + 10 * me + j, "Ialltoallv from %d [%d] = %d", i, j,
                  rbuf[rc[i] + j]);
        }
    }
    /* Iallgatherv in place */
    for (int i = 0; i < n; i++) {
        rs[i] = 2, rd[i] = 3 * i;
        abuf[3 * i] = abuf[3 * i + 1] = i == me ? 50 + me : -1;
    }
    OK(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, abuf, rs, rd, MPI_INT, MPI_COMM_WORLD,
                       &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        CHECK(abuf[3 * i] == 50 + i && abuf[3 * i + 1] == 50 + i, "in place Iallgatherv %d", i);
    }
    /* bad arguments */
    FAILS(MPI_Igatherv(sbuf, -1, MPI_INT, gbuf, rs, rd, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]),
          MPI_ERR_COUNT);
    FAILS(MPI_Ialltoallw(wbuf, sc, sd, NULL, rbuf, rc, rd, wt, MPI_COMM_WORLD, &rq[0]),
          MPI_ERR_ARG);
    FAILS(MPI_Iexscan(&me, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    OK(MPI_Type_free(&spread));
    free(sc), free(sd), free(rc), free(rd), free(sbuf), free(rbuf), free(gbuf), free(abuf);
    free(wbuf), free(xs), free(rs), free(wt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 3;
    if (np > 8) {
        printf("this test takes at most 8 ranks\n");
        return 1;
    }
    half = np / 2;
    if (np >= 2) {
        test_splits();
    } else if (me == 0) {
        printf("(1 rank: no intercommunicator to split)\n");
    }
    phase("Comm_split, Comm_create, Comm_split_type of intercommunicators");
    test_nbc_v();
    phase("nonblocking v-collectives");
    phase("done");
    MPI_Finalize();
    return summary();
}
