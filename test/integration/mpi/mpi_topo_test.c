/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI process topologies on any number of ranks (1 included), every answer checked against
 * values computed here: Dims_create (balanced, ties broken by the largest smallest factor,
 * non-increasing, fixed entries, impossible cases); Cart_create (a smaller grid: MPI_COMM_NULL
 * beyond it), Cartdim_get, Cart_get, Cart_rank (periodic wrap, non-periodic refusal),
 * Cart_coords, Cart_shift at periodic and non-periodic edges, Cart_sub, Cart_map; Graph_create,
 * Graphdims_get, Graph_get, Graph_neighbors(_count), Graph_map; Dist_graph_create_adjacent
 * (weighted, MPI_UNWEIGHTED), Dist_graph_create, Dist_graph_neighbors(_count); Topo_test on
 * each, on a Comm_dup (the topology copied) and a Comm_split (none); the errors of bad arguments.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>

#define MAXD 4

static void check_dims(int nnodes, int ndims, const int *in, const int *want)
{
    int d[MAXD];

    memcpy(d, in, sizeof(int) * (size_t)ndims);
    OK(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++) {
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i,
              d[i], want[i]);
    }
}

static void test_dims(void)
{
    int d[MAXD];

    check_dims(6, 2, (int[]){0, 0}, (int[]){3, 2});
    check_dims(7, 2, (int[]){0, 0}, (int[]){7, 1});
    check_dims(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
    check_dims(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    check_dims(12, 2, (int[]){0, 0}, (int[]){4, 3});
    check_dims(36, 3, (int[]){0, 0, 0}, (int[]){4, 3, 3});
    check_dims(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
    check_dims(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    check_dims(24, 4, (int[]){0, 2, 0, 0}, (int[]){3, 2, 2, 2});
    check_dims(8, 2, (int[]){2, 4}, (int[]){2, 4});
    check_dims(1000000, 2, (int[]){0, 0}, (int[]){1000, 1000});
    /* equal spreads: the largest smallest factor wins, then the next (MPICH's dims5 choices) */
    check_dims(5040, 3, (int[]){0, 0, 0}, (int[]){21, 16, 15});        /* not 20 x 18 x 14 */
    check_dims(71400, 3, (int[]){0, 0, 0}, (int[]){51, 40, 35});       /* not 50 x 42 x 34 */
    check_dims(18576, 4, (int[]){0, 0, 0, 0}, (int[]){43, 9, 8, 6});   /* not 43 x 12 x 6 x 6 */
    check_dims(10080, 4, (int[]){0, 2, 0, 0}, (int[]){21, 2, 16, 15}); /* fixed entry kept */
    check_dims(5, 1, (int[]){0}, (int[]){5});
    OK(MPI_Dims_create(1, 0, d));
    FAILS(MPI_Dims_create(4, 0, d), MPI_ERR_DIMS); /* nothing to fill: 1 node */
    FAILS(MPI_Dims_create(7, 3, (d[0] = 0, d[1] = 3, d[2] = 0, d)), MPI_ERR_DIMS);
    FAILS(MPI_Dims_create(8, 2, (d[0] = 3, d[1] = 3, d)), MPI_ERR_DIMS);
    FAILS(MPI_Dims_create(6, 2, (d[0] = -1, d[1] = 0, d)), MPI_ERR_DIMS);
    FAILS(MPI_Dims_create(6, -1, d), MPI_ERR_DIMS);
    FAILS(MPI_Dims_create(0, 2, (d[0] = 0, d[1] = 0, d)), MPI_ERR_ARG);
}

static void expect_topo(MPI_Comm comm, int want, const char *what)
{
    int t = -1;

    OK(MPI_Topo_test(comm, &t));
    CHECK(t == want, "%s: Topo_test %d, expected %d", what, t, want);
}

/* the 2-D grid of np ranks: dims from Dims_create, periodic in dimension 0 only */
static void test_cart_grid(MPI_Comm cart, const int *dims)
{
    int nd = -1, gd[MAXD], gp[MAXD], gc[MAXD], r, c[2], src, dst, n;
    int mine[2] = {me / dims[1], me % dims[1]};

    OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get: %d", nd);
    OK(MPI_Cart_get(cart, MAXD, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0,
          "Cart_get: dims %dx%d periods %d %d", gd[0], gd[1], gp[0], gp[1]);
    CHECK(gc[0] == mine[0] && gc[1] == mine[1], "Cart_get: coords %d %d", gc[0], gc[1]);
    for (int i = 0; i < np; i++) {
        OK(MPI_Cart_coords(cart, i, 2, c));
        CHECK(c[0] == i / dims[1] && c[1] == i % dims[1], "Cart_coords(%d): %d %d", i, c[0], c[1]);
        OK(MPI_Cart_rank(cart, c, &r));
        CHECK(r == i, "Cart_rank(%d %d): %d, expected %d", c[0], c[1], r, i);
    }
    /* periodic dimension 0 wraps; non-periodic dimension 1 refuses */
    OK(MPI_Cart_rank(cart, (int[]){mine[0] + 3 * dims[0], mine[1]}, &r));
    CHECK(r == me, "Cart_rank past the periodic edge: %d", r);
    OK(MPI_Cart_rank(cart, (int[]){mine[0] - dims[0], mine[1]}, &r));
    CHECK(r == me, "Cart_rank below the periodic edge: %d", r);
    FAILS(MPI_Cart_rank(cart, (int[]){mine[0], dims[1]}, &r), MPI_ERR_ARG);
    FAILS(MPI_Cart_rank(cart, (int[]){mine[0], -1}, &r), MPI_ERR_ARG);
    for (int disp = -2; disp <= 2; disp++) {
        int d0 = dims[0], d1 = dims[1];
        int ws = ((mine[0] - disp) % d0 + d0) % d0 * d1 + mine[1];
        int wd = ((mine[0] + disp) % d0 + d0) % d0 * d1 + mine[1];

        OK(MPI_Cart_shift(cart, 0, disp, &src, &dst));
        CHECK(src == ws && dst == wd, "Cart_shift(0, %d): %d %d, expected %d %d", disp, src, dst,
              ws, wd);
        ws = mine[1] - disp >= 0 && mine[1] - disp < d1 ? mine[0] * d1 + mine[1] - disp
                                                        : MPI_PROC_NULL;
        wd = mine[1] + disp >= 0 && mine[1] + disp < d1 ? mine[0] * d1 + mine[1] + disp
                                                        : MPI_PROC_NULL;
        OK(MPI_Cart_shift(cart, 1, disp, &src, &dst));
        CHECK(src == ws && dst == wd, "Cart_shift(1, %d): %d %d, expected %d %d", disp, src, dst,
              ws, wd);
    }
    FAILS(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG);
    FAILS(MPI_Cart_coords(cart, np, 2, c), MPI_ERR_RANK);
    FAILS(MPI_Cart_get(cart, 1, gd, gp, gc), MPI_ERR_ARG);
    FAILS(MPI_Graphdims_get(cart, &n, &r), MPI_ERR_TOPOLOGY);
    OK(MPI_Cart_map(cart, 2, dims, (int[]){1, 0}, &r));
    CHECK(r == me, "Cart_map: %d", r);
}

static void test_cart_sub(MPI_Comm cart, const int *dims)
{
    MPI_Comm row, pt;
    int n, r, nd, gd[MAXD], gp[MAXD], gc[MAXD];

    OK(MPI_Cart_sub(cart, (int[]){0, 1}, &row)); /* the ranks of my row, along dimension 1 */
    OK(MPI_Comm_size(row, &n));
    OK(MPI_Comm_rank(row, &r));
    CHECK(n == dims[1] && r == me % dims[1], "Cart_sub row: size %d rank %d", n, r);
    OK(MPI_Cart_get(row, MAXD, gd, gp, gc));
    OK(MPI_Cartdim_get(row, &nd));
    CHECK(nd == 1 && gd[0] == dims[1] && gp[0] == 0 && gc[0] == r, "Cart_sub row: %d %d %d %d", nd,
          gd[0], gp[0], gc[0]);
    OK(MPI_Comm_free(&row));
    OK(MPI_Cart_sub(cart, (int[]){1, 0}, &row)); /* my column, periodic */
    OK(MPI_Comm_size(row, &n));
    OK(MPI_Cart_get(row, MAXD, gd, gp, gc));
    CHECK(n == dims[0] && gd[0] == dims[0] && gp[0] == 1 && gc[0] == me / dims[1],
          "Cart_sub column: size %d dims %d periods %d coords %d", n, gd[0], gp[0], gc[0]);
    OK(MPI_Comm_free(&row));
    OK(MPI_Cart_sub(cart, (int[]){0, 0}, &pt)); /* each rank alone, 0 dimensions */
    OK(MPI_Comm_size(pt, &n));
    OK(MPI_Cartdim_get(pt, &nd));
    CHECK(n == 1 && nd == 0, "Cart_sub of nothing: size %d ndims %d", n, nd);
    OK(MPI_Cart_rank(pt, NULL, &r));
    CHECK(r == 0, "Cart_rank of 0 dimensions: %d", r);
    OK(MPI_Comm_free(&pt));
}

static void test_cart(void)
{
    int dims[2] = {0, 0}, r;
    MPI_Comm cart, dup, split, small;

    OK(MPI_Dims_create(np, 2, dims));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (int[]){1, 0}, 1, &cart));
    expect_topo(cart, MPI_CART, "Cart_create");
    test_cart_grid(cart, dims);
    test_cart_sub(cart, dims);
    OK(MPI_Comm_dup(cart, &dup)); /* the topology is copied */
    expect_topo(dup, MPI_CART, "a Comm_dup of a Cartesian communicator");
    test_cart_grid(dup, dims);
    OK(MPI_Comm_free(&cart));
    test_cart_grid(dup, dims); /* the copy lives on alone */
    OK(MPI_Comm_split(dup, 0, me, &split));
    expect_topo(split, MPI_UNDEFINED, "a Comm_split of a Cartesian communicator");
    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_free(&dup));
    /* a grid smaller than the communicator: the last rank gets MPI_COMM_NULL */
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){np > 1 ? np - 1 : 1}, (int[]){0}, 0, &small));
    CHECK((small == MPI_COMM_NULL) == (np > 1 && me == np - 1), "Cart_create of %d: %s", np - 1,
          small == MPI_COMM_NULL ? "COMM_NULL" : "a communicator");
    OK(MPI_Cart_map(MPI_COMM_WORLD, 1, (int[]){np > 1 ? np - 1 : 1}, (int[]){0}, &r));
    CHECK(r == (np > 1 && me == np - 1 ? MPI_UNDEFINED : me), "Cart_map: %d", r);
    if (small != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&small));
    }
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){np + 1}, (int[]){0}, 0, &small), MPI_ERR_ARG);
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){1, 0}, (int[]){0, 0}, 0, &small),
          MPI_ERR_DIMS);
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, -1, NULL, NULL, 0, &small), MPI_ERR_DIMS);
    FAILS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &r), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY);
}

/* the ring graph: node i's neighbors i+1, i-1 (mod n), and node 0 also itself */
static void ring_graph(int n, int *index, int *edges)
{
    int e = 0;

    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i - 1 + n) % n;
        if (i == 0) {
            edges[e++] = 0;
        }
        index[i] = e;
    }
}

static void test_graph(void)
{
    int *index = calloc((size_t)np, sizeof(int)), *edges = calloc(2 * (size_t)np + 1, sizeof(int));
    int gi[64], ge[160], nn, ne, cnt, nb[8], r;
    MPI_Comm g, dup;

    ring_graph(np, index, edges);
    OK(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &g));
    expect_topo(g, MPI_GRAPH, "Graph_create");
    OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == np && ne == 2 * np + 1, "Graphdims_get: %d %d", nn, ne);
    OK(MPI_Graph_get(g, 64, 160, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * (size_t)np) == 0 &&
              memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
          "Graph_get: not the graph given");
    for (int i = 0; i < np; i++) {
        int first = i > 0 ? index[i - 1] : 0;

        OK(MPI_Graph_neighbors_count(g, i, &cnt));
        CHECK(cnt == index[i] - first, "Graph_neighbors_count(%d): %d", i, cnt);
        OK(MPI_Graph_neighbors(g, i, 8, nb));
        CHECK(memcmp(nb, edges + first, sizeof(int) * (size_t)cnt) == 0,
              "Graph_neighbors(%d): not its edges", i);
    }
    FAILS(MPI_Graph_neighbors_count(g, np, &cnt), MPI_ERR_RANK);
    FAILS(MPI_Graph_neighbors(g, 0, 1, nb), MPI_ERR_ARG);
    FAILS(MPI_Cart_shift(g, 0, 1, &r, &r), MPI_ERR_TOPOLOGY);
    OK(MPI_Comm_dup(g, &dup));
    OK(MPI_Graphdims_get(dup, &nn, &ne));
    CHECK(nn == np && ne == 2 * np + 1, "Graphdims_get of a dup: %d %d", nn, ne);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&g));
    OK(MPI_Graph_map(MPI_COMM_WORLD, 1, index, (int[]){0, 0, 0}, &r));
    CHECK(r == (me == 0 ? 0 : MPI_UNDEFINED), "Graph_map: %d", r);
    /* one node: the other ranks get MPI_COMM_NULL; none: every rank */
    OK(MPI_Graph_create(MPI_COMM_WORLD, 1, (int[]){1}, (int[]){0}, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (me > 0), "Graph_create of 1 node");
    if (g != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&g));
    }
    OK(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g));
    CHECK(g == MPI_COMM_NULL, "Graph_create of no node");
    edges[0] = np;
    FAILS(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &g), MPI_ERR_ARG);
    FAILS(MPI_Graph_create(MPI_COMM_WORLD, np + 1, index, edges, 0, &g), MPI_ERR_ARG);
    free(index);
    free(edges);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* this rank's neighbors (and weights) of the distributed graph against the expected ones */
static void check_dist(MPI_Comm g, int nin, const int *in, const int *inw, int nout, const int *out,
                       const int *outw, int weighted, bool sort)
{
    int i_n, o_n, w, s[16], sw[16], d[16], dw[16];

    expect_topo(g, MPI_DIST_GRAPH, "a distributed graph");
    OK(MPI_Dist_graph_neighbors_count(g, &i_n, &o_n, &w));
    CHECK(i_n == nin && o_n == nout && w == weighted, "neighbors_count: %d %d %d", i_n, o_n, w);
    OK(MPI_Dist_graph_neighbors(g, 16, s, weighted ? sw : MPI_UNWEIGHTED, 16, d,
                                weighted ? dw : MPI_UNWEIGHTED));
    for (int i = 0; sort && i < nin; i++) { /* weight = rank + 10: sorting pairs alike */
        s[i] = s[i] * 1000 + (weighted ? sw[i] : 0);
    }
    for (int i = 0; sort && i < nout; i++) {
        d[i] = d[i] * 1000 + (weighted ? dw[i] : 0);
    }
    if (sort) {
        qsort(s, (size_t)nin, sizeof(int), cmp_int);
        qsort(d, (size_t)nout, sizeof(int), cmp_int);
    }
    for (int i = 0; i < nin; i++) {
        int got = sort ? s[i] / 1000 : s[i], gw = sort ? s[i] % 1000 : sw[i];

        CHECK(got == in[i] && (!weighted || gw == inw[i]), "source %d: %d (w %d), expected %d", i,
              got, gw, in[i]);
    }
    for (int i = 0; i < nout; i++) {
        int got = sort ? d[i] / 1000 : d[i], gw = sort ? d[i] % 1000 : dw[i];

        CHECK(got == out[i] && (!weighted || gw == outw[i]),
              "destination %d: %d (w %d), expected %d", i, got, gw, out[i]);
    }
}

static void test_dist_graph(void)
{
    int prev = (me - 1 + np) % np, next = (me + 1) % np, srcs[2], degs[2], nsrc;
    MPI_Comm g, dup;
    int *dl = malloc(sizeof(int) * (size_t)(np + 1)), *wl = malloc(sizeof(int) * (size_t)(np + 1));
    int nin = 0, in[16], inw[16], nout = 0, out[16], outw[16];

    /* adjacent: from prev (weight 10 + prev), to next (10 + me) */
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, (int[]){10 + prev}, 1, &next,
                                      (int[]){10 + me}, MPI_INFO_NULL, 0, &g));
    check_dist(g, 1, &prev, (int[]){10 + prev}, 1, &next, (int[]){10 + me}, 1, false);
    OK(MPI_Comm_dup(g, &dup));
    check_dist(dup, 1, &prev, (int[]){10 + prev}, 1, &next, (int[]){10 + me}, 1, false);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&g));
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next,
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    check_dist(g, 1, &prev, NULL, 1, &next, NULL, 0, false);
    OK(MPI_Comm_free(&g));
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                      MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
    check_dist(g, 0, NULL, NULL, 0, NULL, NULL, 1, false);
    OK(MPI_Comm_free(&g));
    /* Dist_graph_create: each rank gives the edge me -> next, rank 0 also 0 -> every rank
     * (itself included); an edge's weight is 10 + its destination */
    nsrc = me == 0 ? 2 : 1;
    srcs[0] = me, srcs[1] = 0;
    degs[0] = 1, degs[1] = np;
    dl[0] = next, wl[0] = 10 + next;
    for (int i = 0; i < np; i++) {
        dl[1 + i] = i, wl[1 + i] = 10 + i;
    }
    in[nin] = prev, inw[nin++] = 10 + me;
    in[nin] = 0, inw[nin++] = 10 + me;
    out[nout] = next, outw[nout++] = 10 + next;
    for (int i = 0; me == 0 && i < np; i++) {
        out[nout] = i, outw[nout++] = 10 + i;
    }
    qsort(in, (size_t)nin, sizeof(int), cmp_int); /* (their weights are all 10 + me) */
    qsort(out, (size_t)nout, sizeof(int), cmp_int);
    for (int i = 0; i < nout; i++) {
        outw[i] = 10 + out[i];
    }
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dl, wl, MPI_INFO_NULL, 0, &g));
    check_dist(g, nin, in, inw, nout, out, outw, 1, true);
    OK(MPI_Comm_free(&g));
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dl, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                             &g));
    check_dist(g, nin, in, NULL, nout, out, NULL, 0, true);
    OK(MPI_Comm_free(&g));
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (int[]){np}, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
          MPI_ERR_RANK);
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, (int[]){-1}, 0, NULL,
                                         MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &nin, &nout, &nsrc), MPI_ERR_TOPOLOGY);
    free(dl);
    free(wl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    phases_expected = 5;
    expect_topo(MPI_COMM_WORLD, MPI_UNDEFINED, "MPI_COMM_WORLD");
    expect_topo(MPI_COMM_SELF, MPI_UNDEFINED, "MPI_COMM_SELF");
    phase("Topo_test of the predefined communicators");
    test_dims();
    phase("Dims_create");
    test_cart();
    phase("Cartesian topologies");
    test_graph();
    phase("graph topologies");
    test_dist_graph();
    phase("distributed graph topologies");
    MPI_Finalize();
    return summary();
}
