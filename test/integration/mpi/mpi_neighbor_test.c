/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI neighborhood collectives on any number of ranks (1 included), data checked: every one
 * (Neighbor_allgather, allgatherv, alltoall, alltoallv, alltoallw) blocking and nonblocking,
 * over a periodic ring (1 and 2 ranks: the same neighbor on both sides, or itself), a
 * non-periodic ring (MPI_PROC_NULL ends: their blocks untouched), a 2-D grid, a graph with a
 * self-loop and distributed graphs (adjacent, and made by Dist_graph_create) whose neighbors
 * repeat on few ranks; several outstanding
 * at once; the errors of misuse.
 *
 * Where a block comes from: Cartesian, block s of the sender lands in block s ^ 1 of the
 * receiver (MPI-3.1 with the errata of MPI-4.0); graphs, the k-th edge from a rank to this
 * one matches this rank's k-th edge from it.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>

#define MAXN   16 /* neighbors of one rank */
#define UNSET  (-7)
#define MAXCNT 3 /* elements per block at most */

enum { RING_P, RING_N, GRID, GRAPH, DIST, DIST2, NTOPOS };
static const char *const topo_names[] = {"periodic ring",
                                         "non-periodic ring",
                                         "2-D grid",
                                         "graph",
                                         "distributed graph (adjacent)",
                                         "distributed graph (Dist_graph_create)"};
static int gdims[2];

/* the neighbors of rank r in topology k, computed here: srcs (receive blocks), dsts (send) */
static void lists(int k, int r, int *ns, int *srcs, int *nd, int *dsts)
{
    int n = np, c0 = r / gdims[1], c1 = r % gdims[1];

    switch (k) {
    case RING_P:
    case RING_N:
        *ns = *nd = 2;
        srcs[0] = r > 0 || k == RING_P ? (r - 1 + n) % n : MPI_PROC_NULL;
        srcs[1] = r < n - 1 || k == RING_P ? (r + 1) % n : MPI_PROC_NULL;
        break;
    case GRID: /* dimension 0 periodic, 1 not */
        *ns = *nd = 4;
        srcs[0] = ((c0 - 1 + gdims[0]) % gdims[0]) * gdims[1] + c1;
        srcs[1] = ((c0 + 1) % gdims[0]) * gdims[1] + c1;
        srcs[2] = c1 > 0 ? r - 1 : MPI_PROC_NULL;
        srcs[3] = c1 < gdims[1] - 1 ? r + 1 : MPI_PROC_NULL;
        break;
    case GRAPH: /* i+1, i-1, and node 0 itself */
        *ns = *nd = r == 0 ? 3 : 2;
        srcs[0] = (r + 1) % n, srcs[1] = (r - 1 + n) % n, srcs[2] = 0;
        break;
    default: /* to r+1 and r+2, from r-1 and r-2 */
        *ns = *nd = 2;
        dsts[0] = (r + 1) % n, dsts[1] = (r + 2) % n;
        srcs[0] = (r - 1 + n) % n, srcs[1] = (r - 2 + 2 * n) % n;
        if (k == DIST2 && srcs[1] < srcs[0]) { /* in the order of the ranks that gave them */
            srcs[0] = srcs[1], srcs[1] = (r - 1 + n) % n;
        }
        return;
    }
    memcpy(dsts, srcs, sizeof(int) * (size_t)*ns);
}

/* the send block of rank s that lands in this rank's receive block j (s = srcs[j]) */
static int from_block(int k, int j)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], s, occ = 0;

    if (k == RING_P || k == RING_N || k == GRID) {
        return j ^ 1;
    }
    lists(k, me, &ns, srcs, &nd, dsts);
    s = srcs[j];
    for (int i = 0; i < j; i++) {
        occ += srcs[i] == s;
    }
    lists(k, s, &ns, srcs, &nd, dsts);
    for (int i = 0; i < nd; i++) {
        if (dsts[i] == me && occ-- == 0) {
            return i;
        }
    }
    return -1;
}

static int val(int rank, int block, int e)
{
    return (rank * 100 + block) * 10 + e;
}

/* alltoallv's count of block b of rank r (what it sends there, and its receiver expects) */
static int vcount(int r, int b)
{
    return 1 + (r + b) % MAXCNT;
}

static MPI_Comm make(int k)
{
    MPI_Comm c;
    int ns, nd, srcs[MAXN], dsts[MAXN], index[64], edges[200], e = 0;

    switch (k) {
    case RING_P:
    case RING_N:
        OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &np, (int[]){k == RING_P}, 0, &c));
        return c;
    case GRID:
        OK(MPI_Cart_create(MPI_COMM_WORLD, 2, gdims, (int[]){1, 0}, 0, &c));
        return c;
    case GRAPH:
        for (int i = 0; i < np; i++) {
            lists(k, i, &ns, srcs, &nd, dsts);
            memcpy(edges + e, dsts, sizeof(int) * (size_t)nd);
            index[i] = e += nd;
        }
        OK(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &c));
        return c;
    case DIST2: /* each rank gives its own edges */
        lists(k, me, &ns, srcs, &nd, dsts);
        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &nd, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                 0, &c));
        return c;
    default:
        lists(k, me, &ns, srcs, &nd, dsts);
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, srcs, MPI_UNWEIGHTED, nd, dsts,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
        return c;
    }
}

/* the neighbors the topology reports are the ones computed here */
static void check_lists(int k, MPI_Comm c)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], gs[MAXN], gd[MAXN], w, n1, n2;

    lists(k, me, &ns, srcs, &nd, dsts);
    if (k >= DIST) {
        OK(MPI_Dist_graph_neighbors_count(c, &n1, &n2, &w));
        OK(MPI_Dist_graph_neighbors(c, MAXN, gs, MPI_UNWEIGHTED, MAXN, gd, MPI_UNWEIGHTED));
        CHECK(n1 == ns && n2 == nd && memcmp(gs, srcs, sizeof(int) * (size_t)ns) == 0 &&
                  memcmp(gd, dsts, sizeof(int) * (size_t)nd) == 0,
              "%s: not the neighbors expected", topo_names[k]);
    }
}

static void wait_if(bool nb, MPI_Request *req)
{
    if (nb) {
        OK(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK(*req == MPI_REQUEST_NULL, "the request is not MPI_REQUEST_NULL after Wait");
    }
}

/* receive block j: n elements at got, from block fb of rank s (PROC_NULL: untouched) */
static void expect_block(const char *what, int k, int j, int s, int fb, const int *got, int n,
                         int stride)
{
    for (int e = 0; e < n; e++) {
        int want = s == MPI_PROC_NULL ? UNSET : val(s, fb, e);

        CHECK(got[e * stride] == want, "%s on the %s: block %d [%d] = %d, expected %d", what,
              topo_names[k], j, e, got[e * stride], want);
    }
}

static void test_alltoall_allgather(int k, MPI_Comm c, bool nb)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], sb[MAXN * 2], rb[MAXN * 2], one[2];
    MPI_Request req = MPI_REQUEST_NULL;

    lists(k, me, &ns, srcs, &nd, dsts);
    for (int b = 0; b < nd; b++) {
        sb[2 * b] = val(me, b, 0), sb[2 * b + 1] = val(me, b, 1);
    }
    for (int i = 0; i < 2 * MAXN; i++) {
        rb[i] = UNSET;
    }
    if (nb) {
        OK(MPI_Ineighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, c, &req));
    } else {
        OK(MPI_Neighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, c));
    }
    wait_if(nb, &req);
    for (int j = 0; j < ns; j++) {
        expect_block("alltoall", k, j, srcs[j], from_block(k, j), rb + 2 * j, 2, 1);
    }
    /* allgather: the same two ints to every neighbor (block 0's values) */
    one[0] = val(me, 0, 0), one[1] = val(me, 0, 1);
    for (int i = 0; i < 2 * MAXN; i++) {
        rb[i] = UNSET;
    }
    if (nb) {
        OK(MPI_Ineighbor_allgather(one, 2, MPI_INT, rb, 2, MPI_INT, c, &req));
    } else {
        OK(MPI_Neighbor_allgather(one, 2, MPI_INT, rb, 2, MPI_INT, c));
    }
    wait_if(nb, &req);
    for (int j = 0; j < ns; j++) {
        expect_block("allgather", k, j, srcs[j], 0, rb + 2 * j, 2, 1);
    }
}

static void test_v(int k, MPI_Comm c, bool nb)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN];
    int sb[MAXN * 4], rb[MAXN * 4], one[MAXCNT], n = 1 + me % MAXCNT;
    MPI_Request req = MPI_REQUEST_NULL;

    lists(k, me, &ns, srcs, &nd, dsts);
    for (int b = 0; b < nd; b++) { /* blocks in reverse order in sendbuf, one int apart */
        sc[b] = vcount(me, b);
        sd[b] = (nd - 1 - b) * (MAXCNT + 1);
        for (int e = 0; e < sc[b]; e++) {
            sb[sd[b] + e] = val(me, b, e);
        }
    }
    for (int j = 0; j < ns; j++) {
        int s = srcs[j];

        rc[j] = s == MPI_PROC_NULL ? 0 : vcount(s, from_block(k, j));
        rd[j] = j * (MAXCNT + 1);
    }
    for (int i = 0; i < 4 * MAXN; i++) {
        rb[i] = UNSET;
    }
    if (nb) {
        OK(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, &req));
    } else {
        OK(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c));
    }
    wait_if(nb, &req);
    for (int j = 0; j < ns; j++) {
        expect_block("alltoallv", k, j, srcs[j], from_block(k, j), rb + rd[j], rc[j], 1);
        CHECK(rb[rd[j] + rc[j]] == UNSET, "alltoallv: past block %d written", j);
    }
    /* allgatherv: each rank sends n = 1 + rank % MAXCNT of its block 0 */
    for (int e = 0; e < n; e++) {
        one[e] = val(me, 0, e);
    }
    for (int j = 0; j < ns; j++) {
        rc[j] = srcs[j] == MPI_PROC_NULL ? 0 : 1 + srcs[j] % MAXCNT;
        rd[j] = (ns - 1 - j) * (MAXCNT + 1);
    }
    for (int i = 0; i < 4 * MAXN; i++) {
        rb[i] = UNSET;
    }
    if (nb) {
        OK(MPI_Ineighbor_allgatherv(one, n, MPI_INT, rb, rc, rd, MPI_INT, c, &req));
    } else {
        OK(MPI_Neighbor_allgatherv(one, n, MPI_INT, rb, rc, rd, MPI_INT, c));
    }
    wait_if(nb, &req);
    for (int j = 0; j < ns; j++) {
        expect_block("allgatherv", k, j, srcs[j], 0, rb + rd[j], rc[j], 1);
    }
}

/* alltoallw: two ints per block sent as MPI_INT at byte displacements, received as one
 * element of a vector type (ints 0 and 2 of a 3-int slot: noncontiguous, packed) */
static void test_w(int k, MPI_Comm c, bool nb, MPI_Datatype vec)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], sc[MAXN], rc[MAXN], sb[MAXN * 2], rb[MAXN * 3];
    MPI_Aint sd[MAXN], rd[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN];
    MPI_Request req = MPI_REQUEST_NULL;

    lists(k, me, &ns, srcs, &nd, dsts);
    for (int b = 0; b < nd; b++) {
        sc[b] = 2, st[b] = MPI_INT, sd[b] = (MPI_Aint)(2 * b * sizeof(int));
        sb[2 * b] = val(me, b, 0), sb[2 * b + 1] = val(me, b, 1);
    }
    for (int j = 0; j < ns; j++) {
        rc[j] = 1, rt[j] = vec, rd[j] = (MPI_Aint)(3 * j * sizeof(int));
    }
    for (int i = 0; i < 3 * MAXN; i++) {
        rb[i] = UNSET;
    }
    if (nb) {
        OK(MPI_Ineighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, c, &req));
    } else {
        OK(MPI_Neighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, c));
    }
    wait_if(nb, &req);
    for (int j = 0; j < ns; j++) {
        expect_block("alltoallw", k, j, srcs[j], from_block(k, j), rb + 3 * j, 2, 2);
        CHECK(rb[3 * j + 1] == UNSET, "alltoallw: the gap of block %d written", j);
    }
}

/* an alltoall and an allgather outstanding at once, completed by one Waitall */
static void test_two_at_once(int k, MPI_Comm c)
{
    int ns, nd, srcs[MAXN], dsts[MAXN], sb[MAXN], ra[MAXN], rg[MAXN], one = val(me, 0, 0);
    MPI_Request reqs[2];

    lists(k, me, &ns, srcs, &nd, dsts);
    for (int b = 0; b < nd; b++) {
        sb[b] = val(me, b, 0);
    }
    for (int i = 0; i < MAXN; i++) {
        ra[i] = rg[i] = UNSET;
    }
    OK(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, ra, 1, MPI_INT, c, &reqs[0]));
    OK(MPI_Ineighbor_allgather(&one, 1, MPI_INT, rg, 1, MPI_INT, c, &reqs[1]));
    OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    for (int j = 0; j < ns; j++) {
        expect_block("Ineighbor_alltoall (two at once)", k, j, srcs[j], from_block(k, j), ra + j, 1,
                     1);
        expect_block("Ineighbor_allgather (two at once)", k, j, srcs[j], 0, rg + j, 1, 1);
    }
}

static void test_errors(MPI_Comm c)
{
    int b[MAXN * 4] = {0};
    MPI_Request req;

    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    FAILS(MPI_Neighbor_alltoall(b, 1, MPI_INT, b + MAXN, 1, MPI_INT, MPI_COMM_WORLD),
          MPI_ERR_TOPOLOGY);
    FAILS(MPI_Ineighbor_allgather(b, 1, MPI_INT, b + MAXN, 1, MPI_INT, MPI_COMM_WORLD, &req),
          MPI_ERR_TOPOLOGY);
    FAILS(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_BUFFER);
    FAILS(MPI_Neighbor_alltoall(b, -1, MPI_INT, b + MAXN, 1, MPI_INT, c), MPI_ERR_COUNT);
    FAILS(MPI_Neighbor_alltoall(b, 1, MPI_DATATYPE_NULL, b + MAXN, 1, MPI_INT, c), MPI_ERR_TYPE);
    FAILS(MPI_Neighbor_alltoallv(b, NULL, NULL, MPI_INT, b, NULL, NULL, MPI_INT, c), MPI_ERR_ARG);
    FAILS(MPI_Ineighbor_alltoall(b, 1, MPI_INT, b + MAXN, 1, MPI_INT, c, NULL), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Datatype vec;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = NTOPOS + 1;
    OK(MPI_Dims_create(np, 2, gdims));
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    for (int k = 0; k < NTOPOS; k++) {
        MPI_Comm c = make(k), d;

        check_lists(k, c);
        for (int nb = 0; nb < 2; nb++) {
            test_alltoall_allgather(k, c, nb);
            test_v(k, c, nb);
            test_w(k, c, nb, vec);
        }
        test_two_at_once(k, c);
        OK(MPI_Comm_dup(c, &d)); /* a duplicate's topology works alike */
        test_alltoall_allgather(k, d, true);
        OK(MPI_Comm_free(&d));
        if (k == NTOPOS - 1) {
            test_errors(c);
        }
        OK(MPI_Comm_free(&c));
        phase(topo_names[k]);
    }
    phase("errors");
    OK(MPI_Type_free(&vec));
    MPI_Finalize();
    return summary();
}
