/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process topologies (MPI-3.1 chapter 7): the object a communicator holds (Cartesian, graph,
 * distributed graph), the Cartesian arithmetic (row-major ranks, shifts), the neighbor lists
 * the neighborhood collectives follow, and MPI_Dims_create's balanced factorization. No
 * communication: the calls (mpi_topo_api.c) make the communicators.
 */
#include "mpi/mpi_objects.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: two addresses no program array can have */
int rcmsg_mpi_unweighted_[1];
int rcmsg_mpi_weights_empty_[1];

/* ---- the object ------------------------------------------------------------------------------ */

/* a copy of n ints (src NULL: n ones); NULL without memory */
static int *ints_dup(int n, const int *src)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));

    for (int i = 0; p != NULL && i < n; i++) {
        p[i] = src != NULL ? src[i] : 1;
    }
    return p;
}

static mpi_topo_t *topo_new(int kind)
{
    mpi_topo_t *t = calloc(1, sizeof(*t));

    if (t != NULL) {
        t->kind = kind;
    }
    return t;
}

void mpi_topo_free(mpi_topo_t *t)
{
    if (t == NULL) {
        return;
    }
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sourceweights);
    free(t->destinations);
    free(t->destweights);
    free(t);
}

mpi_topo_t *mpi_topo_cart(int ndims, const int *dims, const int *periods)
{
    mpi_topo_t *t = topo_new(MPI_CART);

    if (t == NULL) {
        return NULL;
    }
    t->ndims = ndims;
    t->dims = ints_dup(ndims, dims);
    t->periods = ints_dup(ndims, periods);
    for (int i = 0; t->periods != NULL && i < ndims; i++) {
        t->periods[i] = t->periods[i] != 0;
    }
    if (t->dims == NULL || t->periods == NULL) {
        mpi_topo_free(t);
        return NULL;
    }
    return t;
}

mpi_topo_t *mpi_topo_graph(int nnodes, const int *index, const int *edges)
{
    mpi_topo_t *t = topo_new(MPI_GRAPH);

    if (t == NULL) {
        return NULL;
    }
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->index = ints_dup(nnodes, index);
    t->edges = ints_dup(t->nedges, edges);
    if (t->index == NULL || t->edges == NULL) {
        mpi_topo_free(t);
        return NULL;
    }
    return t;
}

mpi_topo_t *mpi_topo_dist(int indegree, const int *sources, const int *sourceweights, int outdegree,
                          const int *destinations, const int *destweights, bool weighted)
{
    mpi_topo_t *t = topo_new(MPI_DIST_GRAPH);

    if (t == NULL) {
        return NULL;
    }
    t->weighted = weighted;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->sources = ints_dup(indegree, sources);
    t->sourceweights = ints_dup(indegree, weighted ? sourceweights : NULL);
    t->destinations = ints_dup(outdegree, destinations);
    t->destweights = ints_dup(outdegree, weighted ? destweights : NULL);
    if (t->sources == NULL || t->sourceweights == NULL || t->destinations == NULL ||
        t->destweights == NULL) {
        mpi_topo_free(t);
        return NULL;
    }
    return t;
}

mpi_topo_t *mpi_topo_copy(const mpi_topo_t *t)
{
    if (t == NULL) {
        return NULL;
    }
    switch (t->kind) {
    case MPI_CART:
        return mpi_topo_cart(t->ndims, t->dims, t->periods);
    case MPI_GRAPH:
        return mpi_topo_graph(t->nnodes, t->index, t->edges);
    default:
        return mpi_topo_dist(t->indegree, t->sources, t->sourceweights, t->outdegree,
                             t->destinations, t->destweights, t->weighted);
    }
}

/* ---- Cartesian arithmetic (row-major: the last dimension varies fastest) ------------------- */

int mpi_cart_size(int n, const int *dims)
{
    long long p = 1;

    for (int i = 0; i < n; i++) {
        p *= dims[i];
        if (p > INT_MAX) {
            return 0;
        }
    }
    return (int)p;
}

int mpi_cart_rank_of(const mpi_topo_t *t, const int *coords)
{
    int rank = 0;

    for (int i = 0; i < t->ndims; i++) {
        rank = rank * t->dims[i] + coords[i];
    }
    return rank;
}

void mpi_cart_coords_of(const mpi_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* the rank one step of disp along dim from coords (changed back before returning) */
static int cart_step(const mpi_topo_t *t, int *coords, int dim, int disp)
{
    int keep = coords[dim], n = t->dims[dim], c = keep + disp % n, r;

    if (!t->periods[dim] && (keep + (long long)disp < 0 || keep + (long long)disp >= n)) {
        return MPI_PROC_NULL;
    }
    coords[dim] = ((c % n) + n) % n;
    r = mpi_cart_rank_of(t, coords);
    coords[dim] = keep;
    return r;
}

void mpi_cart_shift_of(const mpi_topo_t *t, int rank, int dim, int disp, int *src, int *dst)
{
    int small[16], *coords = t->ndims <= 16 ? small : malloc((size_t)t->ndims * sizeof(int));

    if (coords == NULL) { /* out of memory for a huge grid's coordinates: no neighbor */
        *src = *dst = MPI_PROC_NULL;
        return;
    }
    mpi_cart_coords_of(t, rank, coords);
    *src = cart_step(t, coords, dim, -disp);
    *dst = cart_step(t, coords, dim, disp);
    if (coords != small) {
        free(coords);
    }
}

/* ---- neighbors --------------------------------------------------------------------------------
 */

static void ints_put(int *to, const int *from, int n)
{
    if (to != NULL && n > 0) {
        memcpy(to, from, (size_t)n * sizeof(int));
    }
}

void mpi_topo_neighbors(const mpi_topo_t *t, int rank, int *nsrc, int *srcs, int *ndst, int *dsts)
{
    int first, n;

    switch (t->kind) {
    case MPI_CART: /* per dimension: the source, then the destination of a shift by 1 */
        *nsrc = *ndst = 2 * t->ndims;
        for (int d = 0; srcs != NULL && d < t->ndims; d++) {
            mpi_cart_shift_of(t, rank, d, 1, &srcs[2 * d], &srcs[2 * d + 1]);
            ints_put(dsts + 2 * d, srcs + 2 * d, 2);
        }
        return;
    case MPI_GRAPH: /* its edges, both ways */
        first = rank > 0 ? t->index[rank - 1] : 0;
        n = t->index[rank] - first;
        *nsrc = *ndst = n;
        ints_put(srcs, t->edges + first, n);
        ints_put(dsts, t->edges + first, n);
        return;
    default:
        *nsrc = t->indegree;
        *ndst = t->outdegree;
        ints_put(srcs, t->sources, t->indegree);
        ints_put(dsts, t->destinations, t->outdegree);
        return;
    }
}

/* ---- MPI_Dims_create ------------------------------------------------------------------------- */

/* The search for k factors of n, non-increasing, as close to each other as possible: the
 * smallest spread (largest - smallest); among equal spreads the largest smallest factor, then
 * the largest next-to-smallest, and so on (as MPICH chooses: 5040 in 3 is 21 x 16 x 15, not
 * 20 x 18 x 14). */
typedef struct {
    const int *divs; /* n's divisors, largest first */
    int ndivs;
    int *cur, *best;
    int best_spread, k;
} dims_search_t;

/* true when d^k >= m (d >= 1) */
static bool pow_reaches(int d, int k, int m)
{
    long long p = 1;

    for (int i = 0; i < k && p < m; i++) {
        p *= d;
    }
    return p >= m;
}

/* true when cur beats best at their smallest differing factor, from the smallest one up */
static bool dims_larger_small(const dims_search_t *s)
{
    for (int i = s->k - 1; i >= 0; i--) {
        if (s->cur[i] != s->best[i]) {
            return s->cur[i] > s->best[i];
        }
    }
    return false;
}

/* cur[depth..k) from the divisors of m that are at most maxd */
static void dims_search(dims_search_t *s, int depth, int m, int maxd)
{
    int left = s->k - depth;

    if (left == 1) {
        int spread;

        if (m > maxd) {
            return;
        }
        s->cur[depth] = m;
        spread = s->cur[0] - m;
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && dims_larger_small(s))) {
            s->best_spread = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    for (int i = 0; i < s->ndivs; i++) {
        int d = s->divs[i];

        if (d > maxd || m % d != 0) {
            continue;
        }
        if (!pow_reaches(d, left, m)) {
            break; /* smaller ones cannot reach m either */
        }
        if (depth > 0 && s->best_spread >= 0 && s->cur[0] - d > s->best_spread) {
            break; /* the spread only grows from here */
        }
        s->cur[depth] = d;
        dims_search(s, depth + 1, m / d, d);
    }
}

/* An int has at most 1600 divisors (1536 below 2^31). */
#define DIVS_MAX 2048

/* n's divisors, largest first, into divs (DIVS_MAX); how many */
static int divisors(int n, int *divs)
{
    int lo = 0, hi = 0, small[DIVS_MAX / 2];

    for (long long d = 1; d * d <= n && lo < DIVS_MAX / 2; d++) {
        if (n % d == 0) {
            small[lo++] = (int)d;
        }
    }
    for (int i = lo - 1; i >= 0; i--) { /* the large ones n / d, ascending d */
        if ((long long)small[i] * small[i] != n) {
            divs[hi++] = n / small[i];
        }
    }
    for (int i = 0; i < hi / 2; i++) { /* descending */
        int x = divs[i];
        divs[i] = divs[hi - 1 - i];
        divs[hi - 1 - i] = x;
    }
    for (int i = lo - 1; i >= 0; i--) {
        divs[hi++] = small[i];
    }
    return hi;
}

const char *mpi_dims_fill(int nnodes, int ndims, int *dims)
{
    long long fixed = 1;
    int k = 0, ndivs, *divs, *cur;
    dims_search_t s;

    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            return "an entry of dims is negative";
        }
        fixed *= dims[i] > 0 ? dims[i] : 1;
        k += dims[i] == 0;
        if (fixed > nnodes) {
            return "the fixed entries of dims multiply to more than nnodes";
        }
    }
    if (nnodes % fixed != 0 || (k == 0 && fixed != nnodes)) {
        return "nnodes is not a multiple of the product of the fixed entries of dims";
    }
    if (k == 0) {
        return NULL;
    }
    divs = malloc(sizeof(int) * (DIVS_MAX + 2 * (size_t)k));
    if (divs == NULL) {
        return "out of memory";
    }
    cur = divs + DIVS_MAX;
    ndivs = divisors((int)(nnodes / fixed), divs);
    s = (dims_search_t){
        .divs = divs, .ndivs = ndivs, .cur = cur, .best = cur + k, .best_spread = -1, .k = k};
    dims_search(&s, 0, (int)(nnodes / fixed), INT_MAX);
    for (int i = 0, j = 0; i < ndims; i++) {
        dims[i] = dims[i] == 0 ? s.best[j++] : dims[i];
    }
    free(divs);
    return NULL;
}
