/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of groups (bindings over mpi_group.c's objects): size, rank, incl/excl, ranges,
 * set operations, translate, compare, free, and the group of a communicator. */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* The start of a call on a group: MPI active and the group of a handle; NULL with the error
 * raised (on COMM_WORLD) */
static mpi_group_t *group_enter(MPI_Group group, const char *call, int *err_p)
{
    mpi_group_t *g;

    if (__builtin_expect(mpi_state != MPI_STATE_ACTIVE, 0)) {
        *err_p = mpi_check_active(call);
        return NULL;
    }
    g = mpi_group_get(group);
    if (g == NULL) {
        *err_p =
            mpi_err(NULL, call, MPI_ERR_GROUP,
                    group == MPI_GROUP_NULL ? "MPI_GROUP_NULL is not a group" : "invalid group %#x",
                    (unsigned)group);
    }
    return g;
}

/* the same for a call on two groups: MPI_SUCCESS or the raised error */
static int group_enter2(const char *call, MPI_Group group1, MPI_Group group2, mpi_group_t **a_p,
                        mpi_group_t **b_p)
{
    int err = MPI_SUCCESS;

    if ((*a_p = group_enter(group1, call, &err)) == NULL ||
        (*b_p = group_enter(group2, call, &err)) == NULL) {
        return err;
    }
    return MPI_SUCCESS;
}

/* a call's output newgroup: MPI_SUCCESS, or MPI_ERR_ARG raised when it is NULL (checked before
 * the other arguments, so that the error names it whatever they hold) */
static int group_check_out(const char *call, const MPI_Group *newgroup)
{
    return newgroup != NULL ? MPI_SUCCESS
                            : mpi_err(NULL, call, MPI_ERR_ARG, "newgroup is NULL (the output)");
}

/* makes the new group of a call, raising its error */
static int group_new(const char *call, int n, const int *members, MPI_Group *newgroup)
{
    int err;

    if (newgroup == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL newgroup");
    }
    err = mpi_group_make(n, members, newgroup);
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, call, err, "out of memory for a group of %d rank(s)", n);
    }
    return MPI_SUCCESS;
}

static int comm_group(const char *call, MPI_Comm comm, bool remote, MPI_Group *group)
{
    int err;
    mpi_comm_t *c;

    c = mpi_comm_enter(comm, call, &err);
    if (c == NULL) {
        return err;
    }
    if (group == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL group");
    }
    if (remote && !c->inter) {
        return mpi_err(c, call, MPI_ERR_COMM, "%s is not an intercommunicator", c->name);
    }
    return remote ? group_new(call, c->remote_size, c->remote_members, group)
                  : group_new(call, c->size, c->members, group);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_MT_GUARD();
    return comm_group("MPI_Comm_group", comm, false, group);
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_MT_GUARD();
    return comm_group("MPI_Comm_remote_group", comm, true, group);
}

/* Group_size (size true) and Group_rank (size false: this process's rank, or MPI_UNDEFINED) */
static int group_get_int(const char *call, MPI_Group group, bool size, int *out)
{
    int err;
    mpi_group_t *g;

    if ((g = group_enter(group, call, &err)) == NULL) {
        return err;
    }
    if (out == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s is NULL", size ? "size" : "rank");
    }
    *out = size ? g->size : mpi_group_rank_of(g, rcmsg_rank());
    return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int *size)
{
    MPI_MT_GUARD();
    return group_get_int("MPI_Group_size", group, true, size);
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    MPI_MT_GUARD();
    return group_get_int("MPI_Group_rank", group, false, rank);
}

/* Checks n ranks of g (no repeats); MPI_SUCCESS or the raised error. */
static int ranks_check(const char *call, const mpi_group_t *g, int n, const int ranks[])
{
    if (n < 0 || n > g->size || (n > 0 && ranks == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s (the group has %d rank(s))",
                       n < 0 || n > g->size ? "invalid count" : "NULL ranks", g->size);
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size) {
            return mpi_err(NULL, call, MPI_ERR_RANK,
                           "ranks[%d] = %d is not a rank of the group "
                           "(size %d)",
                           i, ranks[i], g->size);
        }
        for (int j = 0; j < i; j++) {
            if (ranks[j] == ranks[i]) {
                return mpi_err(NULL, call, MPI_ERR_RANK, "rank %d is listed twice", ranks[i]);
            }
        }
    }
    return MPI_SUCCESS;
}

/* in[i]: rank i of g is in the list (MPI_Group_excl and the range calls) */
static int group_keep(const char *call, const mpi_group_t *g, const bool *in, bool keep,
                      MPI_Group *newgroup)
{
    int *m = malloc(((size_t)g->size + 1) * sizeof(int)), n = 0, err;

    if (m == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < g->size; i++) {
        if (in[i] == keep) {
            m[n++] = g->members[i];
        }
    }
    err = group_new(call, n, m, newgroup);
    free(m);
    return err;
}

static int group_incl_excl(const char *call, MPI_Group group, int n, const int ranks[], bool incl,
                           MPI_Group *newgroup)
{
    int err, *m;
    mpi_group_t *g;
    bool *in;

    if ((g = group_enter(group, call, &err)) == NULL ||
        (err = group_check_out(call, newgroup)) != MPI_SUCCESS) {
        return err;
    }
    if ((err = ranks_check(call, g, n, ranks)) != MPI_SUCCESS) {
        return err;
    }
    if (incl) {
        m = malloc(((size_t)n + 1) * sizeof(int));
        if (m == NULL) {
            return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
        }
        for (int i = 0; i < n; i++) {
            m[i] = g->members[ranks[i]];
        }
        err = group_new(call, n, m, newgroup);
        free(m);
        return err;
    }
    in = calloc((size_t)g->size + 1, sizeof(*in));
    if (in == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        in[ranks[i]] = true;
    }
    err = group_keep(call, g, in, false, newgroup);
    free(in);
    return err;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_incl_excl("MPI_Group_incl", group, n, ranks, true, newgroup);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_incl_excl("MPI_Group_excl", group, n, ranks, false, newgroup);
}

/* Expands n ranges (first, last, stride) of g into a list of ranks (*list_p, *len_p): every
 * rank named must be valid and named once. */
static int ranges_expand(const char *call, const mpi_group_t *g, int n, int ranges[][3],
                         int **list_p, int *len_p)
{
    int *list = malloc(((size_t)g->size + 1) * sizeof(int)), len = 0;

    if (list == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];

        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size) {
            free(list);
            return mpi_err(NULL, call, MPI_ERR_RANK,
                           "range %d (%d, %d, %d) is not valid in a group of %d rank(s)", i, first,
                           last, stride, g->size);
        }
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (len == g->size) {
                free(list);
                return mpi_err(NULL, call, MPI_ERR_RANK, "range %d names rank %d twice", i, r);
            }
            list[len++] = r;
        }
    }
    *list_p = list;
    *len_p = len;
    return MPI_SUCCESS;
}

static int group_range(const char *call, MPI_Group group, int n, int ranges[][3], bool incl,
                       MPI_Group *newgroup)
{
    int err, *list = NULL, len = 0;
    mpi_group_t *g;

    if ((g = group_enter(group, call, &err)) == NULL ||
        (err = group_check_out(call, newgroup)) != MPI_SUCCESS) {
        return err;
    }
    if (n < 0 || (n > 0 && ranges == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       n < 0 ? "invalid count %d" : "ranges is NULL with n = %d", n);
    }
    err = ranges_expand(call, g, n, ranges, &list, &len);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = group_incl_excl(call, group, len, list, incl, newgroup);
    free(list);
    return err;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_range("MPI_Group_range_incl", group, n, ranges, true, newgroup);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_range("MPI_Group_range_excl", group, n, ranges, false, newgroup);
}

typedef enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE } set_op_t;

/* union: a's members, then b's not in a; intersection: a's in b; difference: a's not in b
 * (each in a's order, as MPI says) */
static int group_set(const char *call, MPI_Group group1, MPI_Group group2, set_op_t op,
                     MPI_Group *newgroup)
{
    int err, n = 0, *m;
    mpi_group_t *a, *b;

    if ((err = group_enter2(call, group1, group2, &a, &b)) != MPI_SUCCESS ||
        (err = group_check_out(call, newgroup)) != MPI_SUCCESS) {
        return err;
    }
    m = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof(int));
    if (m == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < a->size; i++) {
        bool in_b = mpi_group_rank_of(b, a->members[i]) != MPI_UNDEFINED;

        if (op == SET_UNION || in_b == (op == SET_INTERSECTION)) {
            m[n++] = a->members[i];
        }
    }
    for (int i = 0; op == SET_UNION && i < b->size; i++) {
        if (mpi_group_rank_of(a, b->members[i]) == MPI_UNDEFINED) {
            m[n++] = b->members[i];
        }
    }
    err = group_new(call, n, m, newgroup);
    free(m);
    return err;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_set("MPI_Group_union", group1, group2, SET_UNION, newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_set("MPI_Group_intersection", group1, group2, SET_INTERSECTION, newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_MT_GUARD();
    return group_set("MPI_Group_difference", group1, group2, SET_DIFFERENCE, newgroup);
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[])
{
    MPI_MT_GUARD();
    const char *call = "MPI_Group_translate_ranks";
    int err;
    mpi_group_t *a, *b;

    if ((err = group_enter2(call, group1, group2, &a, &b)) != MPI_SUCCESS) {
        return err;
    }
    if (n < 0 || (n > 0 && (ranks1 == NULL || ranks2 == NULL))) {
        return mpi_err(NULL, call, MPI_ERR_ARG, n < 0 ? "invalid count %d" : "NULL ranks", n);
    }
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else if (ranks1[i] < 0 || ranks1[i] >= a->size) {
            return mpi_err(NULL, call, MPI_ERR_RANK,
                           "ranks1[%d] = %d is not a rank of group1 (size %d)", i, ranks1[i],
                           a->size);
        } else {
            ranks2[i] = mpi_group_rank_of(b, a->members[ranks1[i]]);
        }
    }
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    MPI_MT_GUARD();
    const char *call = "MPI_Group_compare";
    int err;
    mpi_group_t *a, *b;
    bool same_order = true;

    if ((err = group_enter2(call, group1, group2, &a, &b)) != MPI_SUCCESS) {
        return err;
    }
    if (result == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL result");
    }
    *result = MPI_UNEQUAL;
    if (a->size != b->size) {
        return MPI_SUCCESS;
    }
    for (int i = 0; i < a->size; i++) {
        if (mpi_group_rank_of(b, a->members[i]) == MPI_UNDEFINED) {
            return MPI_SUCCESS;
        }
        same_order = same_order && a->members[i] == b->members[i];
    }
    *result = same_order ? MPI_IDENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group *group)
{
    MPI_MT_GUARD();
    int err;
    mpi_group_t *g;

    MPI_CHECK_ACTIVE("MPI_Group_free");
    if (group == NULL) {
        return mpi_err(NULL, "MPI_Group_free", MPI_ERR_ARG, "NULL group");
    }
    if ((g = group_enter(*group, "MPI_Group_free", &err)) == NULL) {
        return err;
    }
    mpi_group_free(*group, g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
