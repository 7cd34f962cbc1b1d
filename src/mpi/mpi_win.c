/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's windows (mpi.h's one-sided block) over rcmsg.h's: the window object, its
 * creation and release, attributes, error handler, name, and the communication calls. The
 * synchronization calls (fence, locks, flushes, PSCW) are in mpi_win_sync.c. Shared windows
 * (Win_allocate_shared, Win_shared_query) are windows over a POSIX shared-memory segment.
 *
 * A window holds two rcmsg windows: the data (the user's memory) and one of lock words (a
 * lock, mpi_win_sync.c, and an accumulate mutex, mpi_win_xfer.c, per member), and an MPI duplicate
 * of the user's communicator: its errors go through the duplicate's handler (a window's own:
 * ERRORS_ARE_FATAL until set), PSCW's messages use it, Win_get_group is its group. Origin buffers
 * of a noncontiguous datatype are packed into (or, for a get, read into and unpacked from) a
 * temporary kept until the next synchronization that completes the operation (mpi_win_sync.c's
 * settle). The large-count forms (Win_create_c, Win_allocate_c, Win_allocate_shared_c,
 * Win_shared_query_c) are the int calls' paths with an MPI_Aint disp_unit, at most INT_MAX.
 */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_win.h"

#include <stdio.h>

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void win_release(mpi_win_t *w)
{
    if (w->data != RCMSG_WIN_NULL) {
        (void)rcmsg_win_free(&w->data);
    }
    if (w->locks != RCMSG_WIN_NULL) {
        (void)rcmsg_win_free(&w->locks);
    }
    if (w->comm != MPI_COMM_NULL) { /* no attributes: the duplicate is the window's own */
        mpi_handle_release(MPI_KIND_COMM_, w->comm);
        mpi_comm_unref(w->c);
    }
    mpi_tattr_release_all(&w->attrs);
    if (w->shm != NULL) {
        munmap(w->shm, w->shm_len > 0 ? w->shm_len : 1);
    }
    free(w->shm_size);
    free(w->disp_units); /* an allocated base is rcmsg's: freed with w->data */
    free(w->sizes);
    free(w->lock_state);
    free(w->post);
    free(w->start);
    free(w);
}

/* The window over [base, base + size) of every member of comm (collective; flavor
 * MPI_WIN_FLAVOR_DYNAMIC: none, its memory attached later, mpi_win_dyn.c), with info's hints.
 * disp_unit: an MPI_Aint for the large-count forms (Win_create_c, ...); past INT_MAX refused
 * (MPI_WIN_DISP_UNIT's attribute and Win_shared_query give it as an int). */
static int win_make(const char *call, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                    MPI_Comm comm, int flavor, MPI_Win *win)
{
    mpi_comm_t *c;
    mpi_win_t *w;
    mpi_info_t *hints = NULL;
    int err;
    uint64_t *lw;
    rcmsg_comm_t dup;
    bool no_base = flavor == MPI_WIN_FLAVOR_CREATE && base == NULL && size > 0;

    if ((c = mpi_comm_enter(comm, call, &err)) == NULL) {
        return err;
    }
    if (disp_unit > INT_MAX) {
        return mpi_err(c, call, MPI_ERR_ARG,
                       "%s: disp_unit %lld is past INT_MAX (%d), the largest a window takes", call,
                       (long long)disp_unit, INT_MAX);
    }
    if (c->inter || win == NULL || size < 0 || disp_unit <= 0 || no_base) {
        return mpi_err(c, call,
                       c->inter         ? MPI_ERR_COMM
                       : size < 0       ? MPI_ERR_SIZE
                       : disp_unit <= 0 ? MPI_ERR_DISP
                                        : MPI_ERR_ARG,
                       "%s: %s", call,
                       c->inter         ? "an intercommunicator cannot hold a window"
                       : win == NULL    ? "win is NULL"
                       : size < 0       ? "negative size"
                       : disp_unit <= 0 ? "disp_unit must be positive"
                                        : "base is NULL with a positive size");
    }
    if (info != MPI_INFO_NULL && (hints = mpi_info_get(info)) == NULL) {
        return mpi_err(c, call, MPI_ERR_INFO, "%s: invalid info %#x", call, (unsigned)info);
    }
    w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "%s: out of memory", call);
    }
    rcmsg_status_t s = rcmsg_comm_dup(c->rc, &dup);
    if (s != RCMSG_OK || (err = mpi_comm_wrap(c, call, dup, c->members, &w->comm)) != MPI_SUCCESS) {
        free(w);
        return s != RCMSG_OK ? mpi_err_rcmsg(c, call, s) : err;
    }
    w->c = mpi_comm_get(w->comm);
    mpi_errh_set(w->c, MPI_ERRORS_ARE_FATAL); /* a window's default (MPI 3.1, 8.3) */
    w->base = base;
    w->size = size;
    w->disp_unit = (int)disp_unit;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    mpi_win_hints_init(w, hints);
    w->disp_units = calloc((size_t)w->c->size, sizeof(int));
    w->sizes = calloc(2 * (size_t)w->c->size, sizeof(int64_t));
    w->lock_state = calloc((size_t)w->c->size, sizeof(int));
    w->post = calloc((size_t)w->c->size, sizeof(int));
    w->start = calloc((size_t)w->c->size, sizeof(int));
    if (w->disp_units == NULL || w->sizes == NULL || w->lock_state == NULL || w->post == NULL ||
        w->start == NULL) {
        win_release(w);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "%s: out of memory", call);
    }
    /* Win_allocate: rcmsg's memory, mapped by the node's members where sm is opened */
    s = flavor == MPI_WIN_FLAVOR_ALLOCATE
            ? rcmsg_win_allocate((size_t)size, w->c->rc, &w->base, &w->data)
        : flavor == MPI_WIN_FLAVOR_DYNAMIC
            ? rcmsg_win_create_dynamic(w->c->rc, &w->data)
            : rcmsg_win_create(base, (size_t)size, w->c->rc, &w->data);
    if (s == RCMSG_OK) {
        s = rcmsg_win_allocate(MPI_WIN_LOCK_BYTES(w->c->size), w->c->rc, (void **)&lw, &w->locks);
    }
    if (s == RCMSG_OK) { /* every member's size and disp_unit */
        int64_t mine[2] = {size, disp_unit};

        s = rcmsg_allgather(mine, w->sizes, 2, RCMSG_INT64, w->c->rc);
        for (int i = 0; s == RCMSG_OK && i < w->c->size; i++) {
            w->disp_units[i] = (int)w->sizes[2 * i + 1];
            w->sizes[i] = w->sizes[2 * i];
        }
    }
    if (s == RCMSG_OK) {
        err = mpi_handle_alloc(MPI_KIND_WIN_, w, &w->handle);
        s = err == MPI_SUCCESS ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
    }
    if (s != RCMSG_OK) {
        win_release(w);
        return mpi_err_rcmsg(c, call, s);
    }
    w->c->errh_handle = w->handle; /* a window's handler is given the window */
    snprintf(w->name, sizeof(w->name), "window %d", w->handle & MPI_HANDLE_INDEX_MASK);
    *win = w->handle;
    return MPI_SUCCESS;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_make("MPI_Win_create", size > 0 ? base : NULL, size, disp_unit, info, comm,
                    MPI_WIN_FLAVOR_CREATE, win);
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_make("MPI_Win_create_c", size > 0 ? base : NULL, size, disp_unit, info, comm,
                    MPI_WIN_FLAVOR_CREATE, win);
}
MPI_PMPI_ALIAS(Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win *win));

/* Dynamic windows (MPI-3.1 11.2.4): base MPI_BOTTOM, size 0, disp_unit 1, so that a
 * target_disp is the target's address; their memory is attached later (mpi_win_dyn.c). */
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_make("MPI_Win_create_dynamic", MPI_BOTTOM, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC,
                    win);
}

static int win_allocate(const char *call, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int err;

    if (baseptr == NULL) {
        return mpi_err(mpi_comm_get(comm), call, MPI_ERR_ARG, "%s: baseptr is NULL", call);
    }
    err = win_make(call, NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, win);
    if (err == MPI_SUCCESS) {
        *(void **)baseptr = ((mpi_win_t *)mpi_handle_get(MPI_KIND_WIN_, *win))->base;
    }
    return err;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_allocate("MPI_Win_allocate", size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_allocate("MPI_Win_allocate_c", size, disp_unit, info, comm, baseptr, win);
}
MPI_PMPI_ALIAS(Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                void *baseptr, MPI_Win *win));

/* ---- shared windows (MPI-3.1 11.2.3) ---------------------------------------------------------
 * Win_allocate_shared: one POSIX shared-memory segment for the members (all on one node),
 * rank 0 creating it and the others mapping it by its name; each member's memory follows the
 * one of the rank before it (contiguous, as MPI's default), and the window's communication goes
 * through rcmsg's over that memory as for Win_create. */

/* The segment of comm's members: *shm (total bytes: sum of sizes), every size in sizes. */
static int shm_map(mpi_comm_t *c, const char *call, int64_t size, int64_t *sizes, char **shm,
                   size_t *len)
{
    static unsigned seq;
    char name[64] = {0};
    int fd = -1, ok, all_ok = 0;
    rcmsg_status_t s = rcmsg_allgather(&size, sizes, 1, RCMSG_INT64, c->rc);

    *len = 0;
    for (int i = 0; i < c->size; i++) {
        *len += (size_t)sizes[i];
    }
    if (c->rank == 0) {
        snprintf(name, sizeof(name), "/rcmsg-mpi-win-%d-%u", (int)getpid(), seq++);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t)(*len > 0 ? *len : 1)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(name, sizeof(name), RCMSG_INT8, 0, c->rc);
    }
    if (s == RCMSG_OK && c->rank != 0 && name[0] != '\0') {
        fd = shm_open(name, O_RDWR, 0);
    }
    *shm = fd < 0 ? MAP_FAILED
                  : mmap(NULL, *len > 0 ? *len : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) {
        close(fd);
    }
    ok = *shm != MAP_FAILED;
    if (s == RCMSG_OK) {
        s = rcmsg_allreduce(&ok, &all_ok, 1, RCMSG_INT32, RCMSG_MIN, c->rc);
    }
    if (c->rank == 0 && name[0] != '\0') {
        shm_unlink(name); /* every member mapped it (or failed): the name is not needed */
    }
    if (s == RCMSG_OK && all_ok) {
        return MPI_SUCCESS;
    }
    if (*shm != MAP_FAILED) {
        munmap(*shm, *len > 0 ? *len : 1);
    }
    *shm = NULL;
    return s != RCMSG_OK ? mpi_err_rcmsg(c, call, s)
                         : mpi_err(c, call, MPI_ERR_RMA_SHARED,
                                   "%s: the members cannot share memory (not all on one node, "
                                   "or shm_open failed: %s)",
                                   call, ok ? "on another member" : "here");
}

static int win_allocate_shared(const char *call, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                               MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    int err;
    int64_t *sizes, off = 0;
    char *shm;
    size_t len;
    mpi_comm_t *c = mpi_comm_enter(comm, call, &err);
    mpi_win_t *w;

    if (c == NULL) {
        return err;
    }
    if (baseptr == NULL || c->inter || size < 0) {
        return mpi_err(c, call,
                       c->inter   ? MPI_ERR_COMM
                       : size < 0 ? MPI_ERR_SIZE
                                  : MPI_ERR_ARG,
                       "%s: %s", call,
                       c->inter   ? "an intercommunicator cannot hold a window"
                       : size < 0 ? "negative size"
                                  : "baseptr is NULL");
    }
    if ((sizes = calloc((size_t)c->size, sizeof(*sizes))) == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "%s: out of memory", call);
    }
    if ((err = shm_map(c, call, size, sizes, &shm, &len)) != MPI_SUCCESS) {
        free(sizes);
        return err;
    }
    for (int i = 0; i < c->rank; i++) {
        off += sizes[i];
    }
    err = win_make(call, shm + off, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, win);
    if (err != MPI_SUCCESS) {
        munmap(shm, len > 0 ? len : 1);
        free(sizes);
        return err;
    }
    w = mpi_handle_get(MPI_KIND_WIN_, *win);
    w->shm = shm;
    w->shm_len = len;
    w->shm_size = sizes;
    *(void **)baseptr = w->base;
    return MPI_SUCCESS;
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_allocate_shared("MPI_Win_allocate_shared", size, disp_unit, info, comm, baseptr,
                               win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win)
{
    MPI_MT_GUARD();
    return win_allocate_shared("MPI_Win_allocate_shared_c", size, disp_unit, info, comm, baseptr,
                               win);
}
MPI_PMPI_ALIAS(Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                       MPI_Comm comm, void *baseptr, MPI_Win *win));

/* Win_shared_query's work: rank's size, disp_unit and base (MPI_PROC_NULL: the lowest rank
 * with memory). A window's disp_unit is at most INT_MAX (win_make): the int form holds it. */
static int shared_query(const char *call, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    int err;
    int64_t off = 0;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (w->shm == NULL || size == NULL || disp_unit == NULL || baseptr == NULL) {
        return mpi_err(w->c, call, w->shm == NULL ? MPI_ERR_RMA_FLAVOR : MPI_ERR_ARG, "%s: %s",
                       call,
                       w->shm == NULL ? "not a window of MPI_Win_allocate_shared"
                                      : "NULL size, disp_unit or baseptr");
    }
    if (rank == MPI_PROC_NULL) { /* the lowest rank with memory */
        for (rank = 0; rank < w->c->size - 1 && w->shm_size[rank] == 0; rank++) {
        }
    }
    if (rank < 0 || rank >= w->c->size) {
        return mpi_err(w->c, call, MPI_ERR_RANK, "%s: rank %d is not in the window", call, rank);
    }
    for (int i = 0; i < rank; i++) {
        off += w->shm_size[i];
    }
    *size = (MPI_Aint)w->shm_size[rank];
    *disp_unit = w->disp_units[rank];
    *(void **)baseptr = w->shm_size[rank] > 0 ? w->shm + off : NULL;
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_MT_GUARD();
    MPI_Aint du = 0;
    int err = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit != NULL ? &du : NULL,
                           baseptr);

    if (err == MPI_SUCCESS) {
        *disp_unit = (int)du; /* at most INT_MAX */
    }
    return err;
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr)
{
    MPI_MT_GUARD();
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}
MPI_PMPI_ALIAS(Win_shared_query_c,
               (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr));

int MPI_Win_free(MPI_Win *win)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_free";
    mpi_win_t *w;
    rcmsg_status_t s;
    int err;

    if (win == NULL || (w = mpi_win_enter(*win, call, &err)) == NULL) {
        return win == NULL ? mpi_err(NULL, call, MPI_ERR_ARG, "%s: win is NULL", call) : err;
    }
    if (w->nlocked > 0 || w->started || w->posted) {
        return mpi_err(w->c, call, MPI_ERR_RMA_SYNC, "%s: an epoch is still open (%s)", call,
                       w->nlocked > 0 ? "a lock is held"
                       : w->started   ? "MPI_Win_start without MPI_Win_complete"
                                      : "MPI_Win_post without MPI_Win_wait");
    }
    if ((err = mpi_tattr_delete_all(&w->attrs, *win)) != MPI_SUCCESS) {
        return mpi_err(w->c, call, err, "an attribute's delete callback failed");
    }
    s = rcmsg_win_free(&w->data); /* completes this member's operations, then a barrier */
    mpi_win_settle(w, -1);
    mpi_handle_release(MPI_KIND_WIN_, *win);
    err = s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(w->c, call, s);
    win_release(w);
    *win = MPI_WIN_NULL;
    return err;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_get_group", &err);

    if (w == NULL) {
        return err;
    }
    if (group == NULL) {
        return mpi_err(w->c, "MPI_Win_get_group", MPI_ERR_ARG, "MPI_Win_get_group: group is NULL");
    }
    err = mpi_group_make(w->c->size, w->c->members, group);
    return err == MPI_SUCCESS ? err : mpi_err(w->c, "MPI_Win_get_group", err, "out of memory");
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_get_attr";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (attribute_val == NULL || flag == NULL) {
        return mpi_err(w->c, call, MPI_ERR_ARG, "%s: attribute_val or flag is NULL", call);
    }
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *(void **)attribute_val = w->base;
        break;
    case MPI_WIN_SIZE:
        *(MPI_Aint **)attribute_val = &w->size;
        break;
    case MPI_WIN_DISP_UNIT:
        *(int **)attribute_val = &w->disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        *(int **)attribute_val = &w->flavor;
        break;
    case MPI_WIN_MODEL:
        *(int **)attribute_val = &w->model;
        break;
    default:
        if (!mpi_tkeyval_live_of(MPI_KIND_WIN_, win_keyval)) {
            *flag = 0;
            return mpi_err(w->c, call, MPI_ERR_KEYVAL, "invalid window keyval %d", win_keyval);
        }
        *flag = mpi_tattr_get(&w->attrs, win_keyval, (void **)attribute_val);
    }
    return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_set_errhandler";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (!mpi_errh_valid(errhandler)) {
        return mpi_err(w->c, call, MPI_ERR_ARG, "invalid errhandler %#x", errhandler);
    }
    mpi_errh_set(w->c, errhandler);
    return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Win_get_errhandler";
    int err;
    mpi_win_t *w = mpi_win_enter(win, call, &err);

    if (w == NULL) {
        return err;
    }
    if (errhandler == NULL) {
        return mpi_err(w->c, call, MPI_ERR_ARG, "%s: errhandler is NULL", call);
    }
    *errhandler = mpi_errh_get(w->c);
    return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char *win_name)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_set_name", &err);

    if (w == NULL) {
        return err;
    }
    if (win_name == NULL) {
        return mpi_err(w->c, "MPI_Win_set_name", MPI_ERR_ARG, "MPI_Win_set_name: name is NULL");
    }
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_get_name", &err);

    if (w == NULL) {
        return err;
    }
    if (win_name == NULL || resultlen == NULL) {
        return mpi_err(w->c, "MPI_Win_get_name", MPI_ERR_ARG,
                       "MPI_Win_get_name: name or resultlen is NULL");
    }
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    MPI_MT_GUARD();
    int err;
    mpi_win_t *w = mpi_win_enter(win, "MPI_Win_call_errhandler", &err);

    if (w == NULL) {
        return err;
    }
    mpi_errh_call(w->c, errorcode);
    return MPI_SUCCESS;
}
