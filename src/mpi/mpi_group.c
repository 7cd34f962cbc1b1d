/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Groups: ordered lists of world ranks, made from communicators and from each other. A group
 * is immutable once made, so a handle owns its object alone (Group_free frees it).
 * MPI_GROUP_EMPTY is a predefined handle (index 0): an empty result is MPI_GROUP_EMPTY (as in
 * MPICH) and Group_free of it only nulls the caller's handle.
 */
#include "mpi/mpi_objects.h"

#include <stdlib.h>
#include <string.h>

static mpi_group_t group_empty = {.refs = 1};

int mpi_group_init(void)
{
    return mpi_handle_set(MPI_KIND_GROUP_, MPI_GROUP_EMPTY & MPI_HANDLE_INDEX_MASK, &group_empty);
}

void mpi_group_fini(void)
{
    mpi_handle_release(MPI_KIND_GROUP_, MPI_GROUP_EMPTY);
}

int mpi_group_make(int n, const int *members, MPI_Group *group_p)
{
    mpi_group_t *g;
    int err;

    if (n == 0) {
        *group_p = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    g = calloc(1, sizeof(*g));
    if (g == NULL || (g->members = malloc((size_t)n * sizeof(int))) == NULL) {
        free(g);
        return MPI_ERR_NO_MEM;
    }
    memcpy(g->members, members, (size_t)n * sizeof(int));
    g->size = n;
    g->refs = 1;
    err = mpi_handle_alloc(MPI_KIND_GROUP_, g, group_p);
    if (err != MPI_SUCCESS) {
        free(g->members);
        free(g);
    }
    return err;
}

mpi_group_t *mpi_group_get(MPI_Group group)
{
    return mpi_handle_get(MPI_KIND_GROUP_, group);
}

int mpi_group_rank_of(const mpi_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++) {
        if (g->members[i] == w) {
            return i;
        }
    }
    return MPI_UNDEFINED;
}

/* MPI_GROUP_EMPTY is predefined: freeing it is allowed and changes nothing */
void mpi_group_free(MPI_Group h, mpi_group_t *g)
{
    if (g != &group_empty) {
        mpi_handle_release(MPI_KIND_GROUP_, h);
        free(g->members);
        free(g);
    }
}
