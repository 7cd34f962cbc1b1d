/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle tables: one per kind of object. A handle is (kind << 24) | index; the slot at index
 * holds the object's pointer (NULL: free). The table doubles when full; freed slots go on a
 * free list (a stack threaded through an index array) and are reused first. A handle whose
 * slot is free or of another kind is rejected by mpi_handle_get (the caller raises the error).
 */
#include "mpi/mpi_objects.h"

#include <stdlib.h>

mpi_handle_table_t mpi_handle_tables[MPI_HANDLE_KINDS];

static int table_grow(mpi_handle_table_t *t, int min_cap)
{
    int cap = t->cap ? t->cap : 64;
    void **slot;
    int *next;

    while (cap <= min_cap) {
        cap *= 2;
    }
    if (cap > MPI_HANDLE_INDEX_MASK) {
        return MPI_ERR_NO_MEM;
    }
    slot = realloc(t->slot, (size_t)cap * sizeof(*slot));
    if (slot == NULL) {
        return MPI_ERR_NO_MEM;
    }
    t->slot = slot;
    next = realloc(t->free_next, (size_t)cap * sizeof(*next));
    if (next == NULL) {
        return MPI_ERR_NO_MEM;
    }
    t->free_next = next;
    /* the new slots go on the free list, lowest index first; index 0 is never handed out by
     * mpi_handle_alloc (so that no valid handle of kind 0 could equal a null handle) */
    for (int i = cap - 1; i >= t->cap; i--) {
        slot[i] = NULL;
        if (i > 0) {
            next[i] = t->free_head;
            t->free_head = i;
        }
    }
    t->cap = cap;
    return MPI_SUCCESS;
}

int mpi_handle_alloc(int kind, void *obj, int *handle_p)
{
    mpi_handle_table_t *t = &mpi_handle_tables[kind];
    int i;

    if (t->cap == 0 || t->free_head < 0) {
        if (t->cap == 0) {
            t->free_head = -1;
        }
        int err = table_grow(t, t->cap);
        if (err != MPI_SUCCESS) {
            return err;
        }
    }
    /* skip slots taken by mpi_handle_set */
    while (t->free_head >= 0 && t->slot[t->free_head] != NULL) {
        t->free_head = t->free_next[t->free_head];
    }
    if (t->free_head < 0) {
        return mpi_handle_alloc(kind, obj, handle_p);
    }
    i = t->free_head;
    t->free_head = t->free_next[i];
    t->slot[i] = obj;
    *handle_p = MPI_HANDLE_(kind, i);
    return MPI_SUCCESS;
}

int mpi_handle_set(int kind, int index, void *obj)
{
    mpi_handle_table_t *t = &mpi_handle_tables[kind];

    if (index >= t->cap) {
        if (t->cap == 0) {
            t->free_head = -1;
        }
        int err = table_grow(t, index);
        if (err != MPI_SUCCESS) {
            return err;
        }
    }
    t->slot[index] = obj;
    return MPI_SUCCESS;
}

void mpi_handle_release(int kind, int handle)
{
    mpi_handle_table_t *t = &mpi_handle_tables[kind];
    int i = handle & MPI_HANDLE_INDEX_MASK;

    if ((handle >> MPI_HANDLE_KIND_SHIFT) != kind || i >= t->cap || t->slot[i] == NULL) {
        return;
    }
    t->slot[i] = NULL;
    if (i > 0) {
        t->free_next[i] = t->free_head;
        t->free_head = i;
    }
}

void mpi_handle_each(int kind, void (*fn)(int handle, void *obj))
{
    mpi_handle_table_t *t = &mpi_handle_tables[kind];

    for (int i = 1; i < t->cap; i++) { /* fn may release slot i (never grow the table) */
        if (t->slot[i] != NULL) {
            fn((kind << MPI_HANDLE_KIND_SHIFT) | i, t->slot[i]);
        }
    }
}

void mpi_handle_fini(void)
{
    for (int k = 0; k < MPI_HANDLE_KINDS; k++) {
        if (k == MPI_KIND_INFO_) { /* info objects outlive MPI_Finalize (MPI-4.0) */
            continue;
        }
        free(mpi_handle_tables[k].slot);
        free(mpi_handle_tables[k].free_next);
        mpi_handle_tables[k] = (mpi_handle_table_t){0};
    }
}
