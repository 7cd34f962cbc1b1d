/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process topology calls (MPI-3.1 chapter 7): Cart_*, Dims_create, Graph_*, Dist_graph_*
 * and Topo_test, over the topology object of mpi_topo.c. A new topology's communicator is a
 * split of the old one keyed by rank, so ranks keep their order (reorder is accepted and
 * ignored, which MPI allows); ranks beyond a smaller grid or graph get MPI_COMM_NULL.
 * Dist_graph_create learns each rank's edges with one rcmsg_alltoall and one rcmsg_alltoallv.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name(int kind)
{
    return kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" : "distributed graph";
}

/* comm's object, live, with a topology of kind; NULL with the error raised in *err_p */
static mpi_comm_t *topo_enter(MPI_Comm comm, const char *call, int kind, int *err_p)
{
    mpi_comm_t *c = mpi_comm_enter(comm, call, err_p);

    if (c != NULL && (c->topo == NULL || c->topo->kind != kind)) {
        *err_p = mpi_err(c, call, MPI_ERR_TOPOLOGY, "%s has no %s topology",
                         c->name[0] != '\0' ? c->name : "the communicator", kind_name(kind));
        return NULL;
    }
    return c;
}

/* a live intracommunicator to make a topology from, and where its handle goes */
static mpi_comm_t *make_enter(MPI_Comm comm, const char *call, const void *out, int *err_p)
{
    mpi_comm_t *c = mpi_comm_enter(comm, call, err_p);

    if (c != NULL && c->inter) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "a topology over an intercommunicator");
        return NULL;
    }
    if (c != NULL && out == NULL) {
        *err_p = mpi_err(c, call, MPI_ERR_ARG, "NULL output argument");
        return NULL;
    }
    return c;
}

/* The new communicator of ranks [0, n) of c (a split keyed by rank: collective over c) with
 * topology t (taken: freed when it is not used); the others get MPI_COMM_NULL. */
static int topo_attach(mpi_comm_t *c, const char *call, int n, mpi_topo_t *t, MPI_Comm *newcomm)
{
    rcmsg_comm_t rc;
    rcmsg_status_t s;
    int err;

    if (t == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    s = rcmsg_comm_split(c->rc, c->rank < n ? 0 : RCMSG_UNDEFINED, c->rank, &rc);
    if (s != RCMSG_OK || rc == RCMSG_COMM_NULL) {
        mpi_topo_free(t);
        *newcomm = MPI_COMM_NULL;
        return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    err = mpi_comm_wrap(c, call, rc, c->members, newcomm);
    if (err != MPI_SUCCESS) {
        mpi_topo_free(t);
        return err;
    }
    mpi_comm_get(*newcomm)->topo = t;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_enter(comm, "MPI_Topo_test", &err);

    if (c == NULL) {
        return err;
    }
    if (status == NULL) {
        return mpi_err(c, "MPI_Topo_test", MPI_ERR_ARG, "NULL status");
    }
    *status = c->topo != NULL ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Dims_create";
    const char *why;

    MPI_CHECK_ACTIVE(call);
    if (ndims < 0 || (ndims > 0 && dims == NULL)) {
        return mpi_err(NULL, call, ndims < 0 ? MPI_ERR_DIMS : MPI_ERR_ARG, "ndims %d, dims %s",
                       ndims, dims == NULL ? "NULL" : "given");
    }
    if (nnodes < 1) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "nnodes %d is not positive", nnodes);
    }
    why = mpi_dims_fill(nnodes, ndims, dims);
    return why == NULL
               ? MPI_SUCCESS
               : mpi_err(NULL, call, MPI_ERR_DIMS, "%s (nnodes %d, ndims %d)", why, nnodes, ndims);
}

/* ---- Cartesian ------------------------------------------------------------------------------- */

/* ndims, dims and periods of Cart_create and Cart_map: a grid of at most c->size ranks,
 * its size in *n */
static int cart_check(mpi_comm_t *c, const char *call, int ndims, const int *dims,
                      const int *periods, int *n)
{
    if (ndims < 0) {
        return mpi_err(c, call, MPI_ERR_DIMS, "ndims %d is negative", ndims);
    }
    if (ndims > 0 && (dims == NULL || periods == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL dims or periods");
    }
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            return mpi_err(c, call, MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
        }
    }
    *n = mpi_cart_size(ndims, dims);
    if (*n == 0 || *n > c->size) {
        return mpi_err(c, call, MPI_ERR_ARG,
                       "the grid has more ranks than the communicator's %d (reorder cannot "
                       "help)",
                       c->size);
    }
    return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_create";
    int err, n;
    mpi_comm_t *c = make_enter(comm_old, call, comm_cart, &err);

    (void)reorder;
    if (c == NULL || (err = cart_check(c, call, ndims, dims, periods, &n)) != MPI_SUCCESS) {
        return err;
    }
    return topo_attach(c, call, n, mpi_topo_cart(ndims, dims, periods), comm_cart);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_map";
    int err, n;
    mpi_comm_t *c = make_enter(comm, call, newrank, &err);

    if (c == NULL || (err = cart_check(c, call, ndims, dims, periods, &n)) != MPI_SUCCESS) {
        return err;
    }
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = topo_enter(comm, "MPI_Cartdim_get", MPI_CART, &err);

    if (c == NULL) {
        return err;
    }
    if (ndims == NULL) {
        return mpi_err(c, "MPI_Cartdim_get", MPI_ERR_ARG, "NULL ndims");
    }
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}

/* maxdims and the arrays of Cart_get and Cart_coords (periods may be ignored: NULL) */
static int cart_out_check(mpi_comm_t *c, const char *call, int maxdims, const void *a,
                          const void *b)
{
    if (maxdims < c->topo->ndims) {
        return mpi_err(c, call, MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims,
                       c->topo->ndims);
    }
    if (c->topo->ndims > 0 && (a == NULL || b == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL output array");
    }
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_get";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_CART, &err);

    if (c == NULL || (err = cart_out_check(c, call, maxdims, dims, coords)) != MPI_SUCCESS ||
        (err = cart_out_check(c, call, maxdims, periods, periods)) != MPI_SUCCESS) {
        return err;
    }
    for (int i = 0; i < c->topo->ndims; i++) {
        dims[i] = c->topo->dims[i];
        periods[i] = c->topo->periods[i];
    }
    mpi_cart_coords_of(c->topo, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_rank";
    int err, r = 0;
    mpi_comm_t *c = topo_enter(comm, call, MPI_CART, &err);
    const mpi_topo_t *t;

    if (c == NULL) {
        return err;
    }
    t = c->topo;
    if (rank == NULL || (t->ndims > 0 && coords == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL coords or rank");
    }
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], n = t->dims[i];

        if ((x < 0 || x >= n) && !t->periods[i]) {
            return mpi_err(c, call, MPI_ERR_ARG,
                           "coords[%d] = %d is outside the non-periodic dimension of %d", i, x, n);
        }
        r = r * n + ((x % n) + n) % n;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_coords";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_CART, &err);

    if (c == NULL || (err = cart_out_check(c, call, maxdims, coords, coords)) != MPI_SUCCESS) {
        return err;
    }
    if (rank < 0 || rank >= c->size) {
        return mpi_err(c, call, MPI_ERR_RANK, "rank %d is not a rank of the %d-rank grid", rank,
                       c->size);
    }
    mpi_cart_coords_of(c->topo, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_shift";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_CART, &err);

    if (c == NULL) {
        return err;
    }
    if (rank_source == NULL || rank_dest == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL rank_source or rank_dest");
    }
    if (direction < 0 || direction >= c->topo->ndims) {
        return mpi_err(c, call, MPI_ERR_ARG, "direction %d is not a dimension of the %d", direction,
                       c->topo->ndims);
    }
    mpi_cart_shift_of(c->topo, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Cart_sub";
    int err, color = 0, key = 0, k = 0, *coords, *dims;
    mpi_comm_t *c = topo_enter(comm, call, MPI_CART, &err);
    const mpi_topo_t *t;
    rcmsg_comm_t rc;
    rcmsg_status_t s;

    if (c == NULL) {
        return err;
    }
    t = c->topo;
    if (newcomm == NULL || (t->ndims > 0 && remain_dims == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL remain_dims or newcomm");
    }
    if ((coords = malloc(3 * (size_t)(t->ndims + 1) * sizeof(int))) == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    dims = coords + t->ndims + 1; /* then periods */
    mpi_cart_coords_of(t, c->rank, coords);
    for (int i = 0; i < t->ndims; i++) { /* color: the dropped coords; key: the kept ones */
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[k] = t->dims[i];
            dims[t->ndims + 1 + k++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    s = rcmsg_comm_split(c->rc, color, key, &rc);
    err = s != RCMSG_OK ? mpi_err_rcmsg(c, call, s) : mpi_comm_wrap(c, call, rc, NULL, newcomm);
    if (err == MPI_SUCCESS) {
        mpi_topo_t *nt = mpi_topo_cart(k, dims, dims + t->ndims + 1);

        mpi_comm_get(*newcomm)->topo = nt;
        err = nt == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;
    }
    free(coords);
    return err;
}

/* ---- graphs ---------------------------------------------------------------------------------- */

/* nnodes, index and edges of Graph_create and Graph_map: at most c->size nodes, index
 * non-decreasing from 0, every edge a node */
static int graph_check(mpi_comm_t *c, const char *call, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0 || nnodes > c->size) {
        return mpi_err(c, call, MPI_ERR_ARG, "nnodes %d is not within the communicator's %d ranks",
                       nnodes, c->size);
    }
    if (nnodes > 0 && (index == NULL || (index[nnodes - 1] > 0 && edges == NULL))) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL index or edges");
    }
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < (i > 0 ? index[i - 1] : 0)) {
            return mpi_err(c, call, MPI_ERR_ARG, "index[%d] = %d is less than the node before's", i,
                           index[i]);
        }
    }
    for (int e = 0; nnodes > 0 && e < index[nnodes - 1]; e++) {
        if (edges[e] < 0 || edges[e] >= nnodes) {
            return mpi_err(c, call, MPI_ERR_ARG, "edges[%d] = %d is not a node of the %d", e,
                           edges[e], nnodes);
        }
    }
    return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Graph_create";
    int err;
    mpi_comm_t *c = make_enter(comm_old, call, comm_graph, &err);

    (void)reorder;
    if (c == NULL || (err = graph_check(c, call, nnodes, index, edges)) != MPI_SUCCESS) {
        return err;
    }
    return topo_attach(c, call, nnodes, mpi_topo_graph(nnodes, index, edges), comm_graph);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Graph_map";
    int err;
    mpi_comm_t *c = make_enter(comm, call, newrank, &err);

    if (c == NULL || (err = graph_check(c, call, nnodes, index, edges)) != MPI_SUCCESS) {
        return err;
    }
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = topo_enter(comm, "MPI_Graphdims_get", MPI_GRAPH, &err);

    if (c == NULL) {
        return err;
    }
    if (nnodes == NULL || nedges == NULL) {
        return mpi_err(c, "MPI_Graphdims_get", MPI_ERR_ARG, "NULL nnodes or nedges");
    }
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Graph_get";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_GRAPH, &err);
    const mpi_topo_t *t;

    if (c == NULL) {
        return err;
    }
    t = c->topo;
    if (maxindex < t->nnodes || maxedges < t->nedges) {
        return mpi_err(c, call, MPI_ERR_ARG, "maxindex %d or maxedges %d is less than %d, %d",
                       maxindex, maxedges, t->nnodes, t->nedges);
    }
    if ((t->nnodes > 0 && index == NULL) || (t->nedges > 0 && edges == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL index or edges");
    }
    memcpy(index, t->index, (size_t)t->nnodes * sizeof(int));
    memcpy(edges, t->edges, (size_t)t->nedges * sizeof(int));
    return MPI_SUCCESS;
}

/* rank of Graph_neighbors(_count): a node of c's graph; its neighbor count in *n */
static mpi_comm_t *graph_node(MPI_Comm comm, const char *call, int rank, int *n, int *err_p)
{
    mpi_comm_t *c = topo_enter(comm, call, MPI_GRAPH, err_p);
    int ns;

    if (c != NULL && (rank < 0 || rank >= c->topo->nnodes)) {
        *err_p = mpi_err(c, call, MPI_ERR_RANK, "rank %d is not a node of the %d", rank,
                         c->topo->nnodes);
        return NULL;
    }
    if (c != NULL) {
        mpi_topo_neighbors(c->topo, rank, &ns, NULL, n, NULL);
    }
    return c;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    MPI_MT_GUARD();
    int err, n;
    mpi_comm_t *c = graph_node(comm, "MPI_Graph_neighbors_count", rank, &n, &err);

    if (c == NULL) {
        return err;
    }
    if (nneighbors == NULL) {
        return mpi_err(c, "MPI_Graph_neighbors_count", MPI_ERR_ARG, "NULL nneighbors");
    }
    *nneighbors = n;
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Graph_neighbors";
    int err, n, ns;
    mpi_comm_t *c = graph_node(comm, call, rank, &n, &err);

    if (c == NULL) {
        return err;
    }
    if (maxneighbors < n || (n > 0 && neighbors == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "maxneighbors %d for %d neighbors%s", maxneighbors, n,
                       neighbors == NULL ? ", NULL neighbors" : "");
    }
    mpi_topo_neighbors(c->topo, rank, &ns, NULL, &n, neighbors);
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---------------------------------------------------------------------- */

/* n ranks of c (what: their name in the error) and their weights (MPI_UNWEIGHTED when
 * !weighted) */
static int dist_check(mpi_comm_t *c, const char *call, const char *what, int n, const int *ranks,
                      const int *weights, bool weighted)
{
    if (n < 0 || (n > 0 && ranks == NULL)) {
        return mpi_err(c, call, MPI_ERR_ARG, "%d %s%s", n, what, n < 0 ? "" : " in a NULL array");
    }
    if (n > 0 && weighted && (weights == NULL || weights == MPI_WEIGHTS_EMPTY)) {
        return mpi_err(c, call, MPI_ERR_ARG, "%d %s without their weights", n, what);
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size) {
            return mpi_err(c, call, MPI_ERR_RANK, "%s[%d] = %d is not a rank of the %d", what, i,
                           ranks[i], c->size);
        }
        if (weighted && weights[i] < 0) {
            return mpi_err(c, call, MPI_ERR_ARG, "the weight of %s[%d] is negative (%d)", what, i,
                           weights[i]);
        }
    }
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    bool weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    int err;
    mpi_comm_t *c = make_enter(comm_old, call, comm_dist_graph, &err);

    (void)info, (void)reorder;
    if (c == NULL ||
        (err = dist_check(c, call, "sources", indegree, sources, sourceweights, weighted)) !=
            MPI_SUCCESS ||
        (err = dist_check(c, call, "destinations", outdegree, destinations, destweights,
                          weighted)) != MPI_SUCCESS) {
        return err;
    }
    return topo_attach(c, call, c->size,
                       mpi_topo_dist(indegree, sources, sourceweights, outdegree, destinations,
                                     destweights, weighted),
                       comm_dist_graph);
}

/* Dist_graph_create's edges, told to both ends: records of 3 int32 (out: 1 for an edge
 * leaving the receiver, the other end, the weight) grouped by the rank they go to */
typedef struct {
    int32_t *rec;
    size_t *cnt, *dsp; /* per rank, in int32s */
} dist_msgs_t;

/* counts (fill false) or fills the records of the n sources' edges */
static void dist_records(const mpi_comm_t *c, dist_msgs_t *m, bool fill, int n, const int *sources,
                         const int *degrees, const int *dests, const int *weights, bool weighted)
{
    size_t *at = m->cnt + 2 * (size_t)c->size; /* fill: the next free slot per rank */

    for (int i = 0, e = 0; i < n; i++) {
        for (int k = 0; k < degrees[i]; k++, e++) {
            int ends[2] = {sources[i], dests[e]}, w = weighted ? weights[e] : 1;

            for (int j = 0; j < 2; j++) { /* j 0: to the source (out-edge), 1: to the dest */
                if (fill) {
                    int32_t *r = m->rec + m->dsp[ends[j]] + at[ends[j]];

                    r[0] = j == 0, r[1] = ends[1 - j], r[2] = w;
                    at[ends[j]] += 3;
                } else {
                    m->cnt[ends[j]] += 3;
                }
            }
        }
    }
}

/* the records received (total int32s, in rank order) into the topology of this rank */
static mpi_topo_t *dist_from_records(const int32_t *rec, size_t total, bool weighted)
{
    int nin = 0, nout = 0, k[2] = {0, 0}, *v = malloc((total / 3 * 2 + 1) * sizeof(int));
    int *ranks[2], *wts[2]; /* [0]: in-edges (sources), [1]: out-edges (destinations) */
    mpi_topo_t *t;

    if (v == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < total; i += 3) {
        nout += rec[i] == 1;
    }
    nin = (int)(total / 3) - nout;
    ranks[0] = v, wts[0] = v + nin, ranks[1] = v + 2 * nin, wts[1] = ranks[1] + nout;
    for (size_t i = 0; i < total; i += 3) {
        int side = rec[i] == 1;

        ranks[side][k[side]] = rec[i + 1];
        wts[side][k[side]++] = rec[i + 2];
    }
    t = mpi_topo_dist(nin, ranks[0], wts[0], nout, ranks[1], wts[1], weighted);
    free(v);
    return t;
}

/* the exchange: every rank's records to their ranks; the topology, or NULL with *err_p */
static mpi_topo_t *dist_exchange(mpi_comm_t *c, const char *call, int n, const int *sources,
                                 const int *degrees, const int *dests, const int *weights,
                                 bool weighted, int *err_p)
{
    size_t p = (size_t)c->size, stotal = 0, rtotal = 0;
    size_t *a = calloc(6 * p, sizeof(size_t)); /* cnt, dsp, at; rcnt, rdsp; int32 counts */
    dist_msgs_t m = {.cnt = a, .dsp = a + p};
    int32_t *sc = NULL, *rcn = NULL, *rrec = NULL;
    mpi_topo_t *t = NULL;
    rcmsg_status_t s = RCMSG_ERR_NO_MEMORY;

    if (a != NULL) {
        dist_records(c, &m, false, n, sources, degrees, dests, weights, weighted);
        for (size_t i = 0; i < p; i++) {
            m.dsp[i] = stotal;
            stotal += m.cnt[i];
        }
        sc = malloc(2 * p * sizeof(int32_t) + (stotal + 1) * sizeof(int32_t));
    }
    if (sc != NULL) {
        rcn = sc + p;
        m.rec = rcn + p;
        dist_records(c, &m, true, n, sources, degrees, dests, weights, weighted);
        for (size_t i = 0; i < p; i++) {
            sc[i] = (int32_t)m.cnt[i];
        }
        s = rcmsg_alltoall(sc, rcn, 1, RCMSG_INT32, c->rc);
    }
    for (size_t i = 0; s == RCMSG_OK && i < p; i++) {
        a[3 * p + i] = (size_t)rcn[i];
        a[4 * p + i] = rtotal;
        rtotal += (size_t)rcn[i];
    }
    if (s == RCMSG_OK) {
        rrec = malloc((rtotal + 1) * sizeof(int32_t));
        s = rrec == NULL ? RCMSG_ERR_NO_MEMORY
                         : rcmsg_alltoallv(m.rec, m.cnt, m.dsp, rrec, a + 3 * p, a + 4 * p,
                                           RCMSG_INT32, c->rc);
    }
    if (s == RCMSG_OK && (t = dist_from_records(rrec, rtotal, weighted)) == NULL) {
        s = RCMSG_ERR_NO_MEMORY;
    }
    *err_p = s == RCMSG_OK              ? MPI_SUCCESS
             : s == RCMSG_ERR_NO_MEMORY ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory")
                                        : mpi_err_rcmsg(c, call, s);
    free(rrec);
    free(sc);
    free(a);
    return t;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_create";
    int err, nedges = 0, unweighted = weights == MPI_UNWEIGHTED, any_unweighted = 0;
    mpi_comm_t *c = make_enter(comm_old, call, comm_dist_graph, &err);
    mpi_topo_t *t;

    (void)info, (void)reorder;
    if (c == NULL ||
        (err = dist_check(c, call, "sources", n, sources, NULL, false)) != MPI_SUCCESS) {
        return err;
    }
    for (int i = 0; i < n; i++) {
        if (degrees == NULL || degrees[i] < 0) {
            return mpi_err(c, call, MPI_ERR_ARG, "degrees[%d] is %s", i,
                           degrees == NULL ? "in a NULL array" : "negative");
        }
        nedges += degrees[i];
    }
    if ((err = dist_check(c, call, "destinations", nedges, destinations, weights, !unweighted)) !=
        MPI_SUCCESS) {
        return err;
    }
    /* MPI_UNWEIGHTED on one rank is on all (MPI says so): the graph is weighted or not */
    err = coll_status(
        c, call, rcmsg_allreduce(&unweighted, &any_unweighted, 1, RCMSG_INT32, RCMSG_MAX, c->rc));
    if (err != MPI_SUCCESS) {
        return err;
    }
    t = dist_exchange(c, call, n, sources, degrees, destinations, weights, !unweighted, &err);
    if (t != NULL) {
        t->weighted = !any_unweighted;
    }
    return t == NULL ? err : topo_attach(c, call, c->size, t, comm_dist_graph);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_DIST_GRAPH, &err);

    if (c == NULL) {
        return err;
    }
    if (indegree == NULL || outdegree == NULL || weighted == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL output argument");
    }
    *indegree = c->topo->indegree;
    *outdegree = c->topo->outdegree;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}

/* max entries of ranks (and weights, unless MPI_UNWEIGHTED or unweighted) for n neighbors */
static int dist_out(mpi_comm_t *c, const char *call, int max, int n, int *ranks, int *weights,
                    const int *from, const int *wfrom)
{
    bool w = c->topo->weighted && weights != MPI_UNWEIGHTED;

    if (max < n || (n > 0 && (ranks == NULL || (w && weights == NULL)))) {
        return mpi_err(c, call, MPI_ERR_ARG, "room for %d of %d neighbors, or a NULL array", max,
                       n);
    }
    for (int i = 0; i < n; i++) {
        ranks[i] = from[i];
        if (w) {
            weights[i] = wfrom[i];
        }
    }
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Dist_graph_neighbors";
    int err;
    mpi_comm_t *c = topo_enter(comm, call, MPI_DIST_GRAPH, &err);
    const mpi_topo_t *t;

    if (c == NULL) {
        return err;
    }
    t = c->topo;
    err = dist_out(c, call, maxindegree, t->indegree, sources, sourceweights, t->sources,
                   t->sourceweights);
    return err != MPI_SUCCESS ? err
                              : dist_out(c, call, maxoutdegree, t->outdegree, destinations,
                                         destweights, t->destinations, t->destweights);
}
