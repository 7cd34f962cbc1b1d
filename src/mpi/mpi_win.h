/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI face's windows (mpi_win.c: the object and the communication calls' checks;
 * mpi_win_rma.c: Put, Get and the accumulates; mpi_win_sync.c: fence, locks, flushes, PSCW).
 * Over the objects floor (mpi_objects.h) and the public rcmsg.h only.
 */
#ifndef RCMSG_MPI_WIN_H
#define RCMSG_MPI_WIN_H

#include "mpi/mpi_objects.h"

/* An origin buffer waiting for its operation's completion: a packed temporary (freed) and,
 * for a get, where to unpack it (dest != NULL). */
typedef struct mpi_win_tmp {
    struct mpi_win_tmp *next;
    int target;
    void *tmp;
    mpi_type_t *t; /* retained while it waits */
    size_t count;
    void *dest;
} mpi_win_tmp_t;

/* The info hints a window reports (MPI-4.0 12.2.1, 12.2.7): the values given at creation or by
 * Win_set_info, else the defaults (mpi_win_hints.c). rcmsg's windows keep every guarantee
 * whatever they say (locks work, accumulates stay ordered). */
typedef enum {
    MPI_WIN_HINT_NO_LOCKS,
    MPI_WIN_HINT_SAME_SIZE,
    MPI_WIN_HINT_SAME_DISP_UNIT,
    MPI_WIN_HINT_NONCONTIG, /* alloc_shared_noncontig: shared windows only */
    MPI_WIN_HINT_NBOOL
} mpi_win_hint_t;
typedef struct {
    bool flag[MPI_WIN_HINT_NBOOL]; /* default false */
    bool same_op;                  /* accumulate_ops: "same_op", default "same_op_no_op" */
    char ordering[20];             /* accumulate_ordering: "none" or a list of rar,raw,war,waw */
} mpi_win_hints_t;

typedef struct mpi_win {
    MPI_Win handle;
    rcmsg_win_t data;  /* the user's memory */
    rcmsg_win_t locks; /* per member: its lock word (mpi_win_sync.c), its accumulate mutex */
    MPI_Comm comm;     /* a duplicate of the user's: errors, group, PSCW */
    mpi_comm_t *c;
    void *base;
    MPI_Aint size;
    int disp_unit, flavor, model;
    int *disp_units; /* [members] */
    int64_t *sizes;  /* [members]: each member's window size (accesses are checked against it) */
    int *lock_state; /* [members]: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE (held) */
    int nlocked;
    int *post, npost;   /* the origins of the exposure epoch (Win_post .. Win_wait) */
    int *start, nstart; /* the targets of the access epoch (Win_start .. Win_complete) */
    bool posted;        /* an exposure epoch is open (its group may be empty: npost 0) */
    bool started;       /* an access epoch of Win_start is open (its group may be empty too) */
    bool fenced;        /* a fence (without MPI_MODE_NOSUCCEED) opened an access epoch on every
                         * member; a lock or Win_start closes it (as MPICH: one kind at a time) */
    mpi_win_tmp_t *tmps;
    struct mpi_tattr *attrs; /* the program's attributes (mpi_type_attr.c's store) */
    char name[MPI_MAX_OBJECT_NAME];
    /* Win_allocate_shared: the node's segment (every member's memory, in rank order) */
    char *shm;
    size_t shm_len;
    int64_t *shm_size; /* [members]: each member's size, its memory at shm + the sizes before */
    /* a wait on a word that a lost rank holds (mpi_win_spin): lost_holder - 1 held lost_what
     * at lost_target (0: none); mpi_win_status names them, once */
    int lost_holder, lost_target;
    const char *lost_what;
    /* accumulate mutexes (any target) this process's threads hold now: a word naming this rank
     * is another thread's while it is not 0 (under MPI_THREAD_MULTIPLE; the core lock) */
    int acc_held;
    mpi_win_hints_t hints;
} mpi_win_t;

/* An access epoch on rank is open (MPI-4.0 12.5: RMA calls only inside one): a fence's, a
 * Win_start's (its group not searched) or a lock on rank. */
static inline bool mpi_win_access(const mpi_win_t *w, int rank)
{
    return w->fenced || w->started || w->lock_state[rank] != 0;
}

/* Where an operation lands: count elements of t at the target's byte displacement disp (of
 * element 0's origin), checked to lie inside its window; bytes = count * size. */
typedef struct {
    int rank; /* MPI_PROC_NULL: nothing to do */
    size_t disp, count, bytes;
    MPI_Datatype dt;
    mpi_type_t *t;
    bool contig; /* t is: its bytes are one block at disp + lb */
    MPI_Aint lb; /* t's true lower bound */
} mpi_win_target_t;

/* The lock window's words of a member: the passive-target lock, the accumulate mutex; then a
 * byte per member, 1 while it holds a shared lock on this one (mpi_win_sync.c). */
#define MPI_WIN_LOCK_WORD     0
#define MPI_WIN_MUTEX_WORD    8
#define MPI_WIN_SLOT_BASE     16
#define MPI_WIN_LOCK_BYTES(n) (MPI_WIN_SLOT_BASE + (size_t)(n))

/* A wait for a word of target's lock window (the lock, the accumulate mutex) that another
 * holds: the caller retries its atomic after each mpi_win_spin (mpi_win_obj.c). */
typedef struct {
    int target;
    unsigned rounds;
    int watched;           /* the rank watch is posted for, -1: none */
    rcmsg_request_t watch; /* a receive from it that nothing matches: rcmsg's liveness watches
                              it, and it fails once that rank is lost */
} mpi_win_spin_t;

/* The receive tag of the watch (PSCW's messages, mpi_win_sync.c, use 1 and 2). */
#define MPI_WIN_TAG_WATCH 3

void mpi_win_spin_init(mpi_win_spin_t *sp, int target);
/* One round of the wait for what (a word) held by holder (-1: by ranks it cannot name): backs
 * off (yields, then sleeps up to 1 ms), progresses rcmsg and tests the holder's liveness.
 * RCMSG_OK: try again; RCMSG_ERR_CONNECTION (or what the loss was): the holder is lost
 * (w->lost_* say who, for mpi_win_status's message). */
rcmsg_status_t mpi_win_spin(mpi_win_t *w, mpi_win_spin_t *sp, int holder, const char *what);
/* The wait is over: its watch is taken back. */
void mpi_win_spin_end(mpi_win_spin_t *sp);

/* ---- transfers (mpi_win_xfer.c): the target's blocks, one rcmsg operation each ---- */
/* A put of the packed bytes p to the target (get: the target's bytes into p), block by block
 * (a contiguous target is one rcmsg_put / rcmsg_get: the caller makes it, mpi_win_rma.c). */
rcmsg_status_t mpi_win_xfer_rw(mpi_win_t *w, const mpi_win_target_t *tg, void *p, bool get);
/* An accumulate by rcmsg's (in: packed origin, NULL for NO_OP; res: packed result of a
 * get_accumulate, else NULL) of elements rdt with rop. */
rcmsg_status_t mpi_win_xfer_acc(mpi_win_t *w, const mpi_win_target_t *tg, const void *in, void *res,
                                rcmsg_datatype_t rdt, rcmsg_op_t rop);
/* An accumulate of op (predefined, MPI_REPLACE or MPI_NO_OP) on elements of basic (a
 * predefined type rcmsg has no element for: pair types, long double, complex), under the
 * target's accumulate mutex: complete when it returns. */
rcmsg_status_t mpi_win_xfer_acc_locked(mpi_win_t *w, const mpi_win_target_t *tg, const void *in,
                                       void *res, MPI_Op op, MPI_Datatype basic);

/* The window of a call: MPI active and win live, or NULL with the error raised in *err_p. */
mpi_win_t *mpi_win_enter(MPI_Win win, const char *call, int *err_p);
/* w's hints (mpi_win_hints.c): the defaults, then the ones of i it accepts (i NULL: none); the
 * ones of i it accepts; w's hints put into i (MPI_SUCCESS or MPI_ERR_NO_MEM, not raised) */
void mpi_win_hints_init(mpi_win_t *w, const mpi_info_t *i);
void mpi_win_hints_take(mpi_win_t *w, const mpi_info_t *i);
int mpi_win_hints_put(const mpi_win_t *w, mpi_info_t *i);
/* An rcmsg status of a call raised on the window (MPI_SUCCESS for RCMSG_OK); after a wait on
 * a lost holder (mpi_win_spin) the message names the window, the target and the holder. */
int mpi_win_status(mpi_win_t *w, const char *call, rcmsg_status_t s);
/* Operations to target (-1: all) are complete: their temporaries unpacked and freed. */
void mpi_win_settle(mpi_win_t *w, int target);

#endif /* RCMSG_MPI_WIN_H */
