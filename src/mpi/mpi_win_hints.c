/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A window's info hints (MPI-4.0 12.2.1, 12.2.7; Win_get_info / Win_set_info's, and the
 * creation calls'): no_locks, accumulate_ordering, accumulate_ops, same_size, same_disp_unit
 * and a shared window's alloc_shared_noncontig. A boolean's value is "true" or "false",
 * accumulate_ordering's "none" or a comma-separated list of rar, raw, war, waw, accumulate_ops'
 * "same_op" or "same_op_no_op"; other keys and values are ignored, as MPICH does. rcmsg keeps
 * every guarantee whatever they say: they are reported, not used.
 */
#include "mpi/mpi_win.h"

#include <stdio.h>
#include <string.h>

static const char *const hint_names[MPI_WIN_HINT_NBOOL] = {
    [MPI_WIN_HINT_NO_LOCKS] = "no_locks",
    [MPI_WIN_HINT_SAME_SIZE] = "same_size",
    [MPI_WIN_HINT_SAME_DISP_UNIT] = "same_disp_unit",
    [MPI_WIN_HINT_NONCONTIG] = "alloc_shared_noncontig",
};

/* accumulate_ordering's form: "none", or a comma-separated list of rar, raw, war, waw */
static bool hint_ordering_valid(const char *v)
{
    if (strcmp(v, "none") == 0) {
        return true;
    }
    if (strlen(v) >= sizeof(((mpi_win_hints_t *)0)->ordering)) {
        return false;
    }
    for (const char *p = v;; p += 4) {
        if (strncmp(p, "rar", 3) != 0 && strncmp(p, "raw", 3) != 0 && strncmp(p, "war", 3) != 0 &&
            strncmp(p, "waw", 3) != 0) {
            return false;
        }
        if (p[3] != ',') {
            return p[3] == '\0';
        }
    }
}

void mpi_win_hints_take(mpi_win_t *w, const mpi_info_t *i)
{
    mpi_win_hints_t *h = &w->hints;
    int n;

    for (int k = 0; k < MPI_WIN_HINT_NBOOL; k++) {
        n = mpi_info_find(i, hint_names[k]);
        if (n >= 0 && (strcmp(i->values[n], "true") == 0 || strcmp(i->values[n], "false") == 0) &&
            (k != MPI_WIN_HINT_NONCONTIG || w->flavor == MPI_WIN_FLAVOR_SHARED)) {
            h->flag[k] = i->values[n][0] == 't';
        }
    }
    n = mpi_info_find(i, "accumulate_ordering");
    if (n >= 0 && hint_ordering_valid(i->values[n])) {
        snprintf(h->ordering, sizeof(h->ordering), "%s", i->values[n]);
    }
    n = mpi_info_find(i, "accumulate_ops");
    if (n >= 0 &&
        (strcmp(i->values[n], "same_op") == 0 || strcmp(i->values[n], "same_op_no_op") == 0)) {
        h->same_op = strcmp(i->values[n], "same_op") == 0;
    }
}

void mpi_win_hints_init(mpi_win_t *w, const mpi_info_t *i)
{
    memset(&w->hints, 0, sizeof(w->hints));
    strcpy(w->hints.ordering, "rar,raw,war,waw");
    if (i != NULL) {
        mpi_win_hints_take(w, i);
    }
}

int mpi_win_hints_put(const mpi_win_t *w, mpi_info_t *i)
{
    const mpi_win_hints_t *h = &w->hints;
    int err = mpi_info_put(i, "accumulate_ordering", h->ordering);

    if (err == MPI_SUCCESS) {
        err = mpi_info_put(i, "accumulate_ops", h->same_op ? "same_op" : "same_op_no_op");
    }
    for (int k = 0; err == MPI_SUCCESS && k < MPI_WIN_HINT_NBOOL; k++) {
        if (k != MPI_WIN_HINT_NONCONTIG || w->flavor == MPI_WIN_FLAVOR_SHARED) {
            err = mpi_info_put(i, hint_names[k], h->flag[k] ? "true" : "false");
        }
    }
    return err;
}
