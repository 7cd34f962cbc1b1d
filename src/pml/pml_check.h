/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The argument checks of the public calls (pml_check.c), each made once per call.
 */
#ifndef RCMSG_PML_CHECK_H
#define RCMSG_PML_CHECK_H

#include "pml_base.h"
#include "pml_handle.h"

#include "base/watch.h"

/* Whether a call may start: refused (and why logged) before init, or without the launcher. */
rcmsg_status_t pml_check(const char *what);
/* A NULL out-parameter or handle: refused, and said. */
rcmsg_status_t pml_null_arg(const char *what, const char *arg);
rcmsg_status_t pml_check_args_slow(const char *what, const void *out_p, const char *out,
                                   const void *buf, size_t len, rcmsg_comm_t comm, int peer,
                                   bool any_ok, int tag, bool coll);
/* Whether a call that starts an operation may go ahead (pml_check, its out-parameter out_p
 * named out or none, a live comm, buf of len bytes, peer a rank of comm or ANY_SOURCE when
 * any_ok, tag >= 0 or ANY_TAG when any_ok; an intercommunicator only for a collective's own
 * message, coll): the common case inline, the slow one says why. */
static inline rcmsg_status_t pml_check_args(const char *what, const void *out_p, const char *out,
                                            const void *buf, size_t len, rcmsg_comm_t comm,
                                            int peer, bool any_ok, int tag, bool coll)
{
    if (atomic_load_explicit(&rcmsg_watch_news, memory_order_relaxed) == 0 &&
        (out == NULL || out_p != NULL) && pml_comm_valid(comm) && (buf != NULL || len == 0) &&
        len <= pml.max_len && (uintptr_t)buf + len >= (uintptr_t)buf && peer >= 0 &&
        peer < comm->size && tag >= 0 && (coll || comm->inter == NULL)) {
        return RCMSG_OK; /* a live communicator (the handle table: O(1)), a named peer and tag:
                            every check passed */
    }
    return pml_check_args_slow(what, out_p, out, buf, len, comm, peer, any_ok, tag, coll);
}

#endif /* RCMSG_PML_CHECK_H */
