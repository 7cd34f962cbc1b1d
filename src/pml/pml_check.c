/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The argument checks of the public calls, each made once per call: whether a call may start
 * (initialized, the launcher there), NULL arguments, buffers, ranks, tags, communicators.
 */
#include "config.h"

#include "pml_internal.h"

/* Whether a call may start: refused (and why logged) before init, or without the launcher;
 * what the watch thread found meanwhile is acted on first (base/watch.h). */
rcmsg_status_t pml_check(const char *what)
{
    if (pml_comms.world == NULL) {
        rcmsg_error("%s: rcmsg is not initialized (call rcmsg_init first)", what);
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    if (atomic_load_explicit(&rcmsg_watch_news, memory_order_relaxed) & RCMSG_WATCH_NEWS) {
        rcmsg_watch_take(); /* a loss the watch thread found while the application computed */
    }
    if (pml.lost_launcher != RCMSG_OK) {
        rcmsg_error("%s: refused: the connection to the launcher (mpirun or srun) was lost, so "
                    "the job is over (%s)",
                    what, rcmsg_status_name(pml.lost_launcher));
        return pml.lost_launcher;
    }
    return RCMSG_OK;
}

/* Whether a buffer of len bytes at buf can exist: no longer than the node's memory, and no
 * wrap past the end of the address space. */
static bool len_valid(const void *buf, size_t len, const char *what)
{
    if (len > pml.max_len || (uintptr_t)buf + len < (uintptr_t)buf) {
        rcmsg_error("%s: a length of %zu bytes at %p is impossible (this node has %zu bytes of "
                    "memory)",
                    what, len, buf, pml.max_len);
        return false;
    }
    return true;
}

size_t rcmsg_pml_max_len(void)
{
    return pml.max_len;
}

/* A NULL out-parameter or handle: refused, and said. */
rcmsg_status_t pml_null_arg(const char *what, const char *arg)
{
    rcmsg_error("%s: %s is NULL", what, arg);
    return RCMSG_ERR_INVALID_PARAM;
}

/* Whether a call that starts an operation may go ahead: pml_check, its out-parameter out_p
 * (named out, or none when out is NULL), then its arguments; refused with the reason logged.
 * check_args() is the inline test of the common case; this one finds and says the reason. */
__attribute__((noinline)) rcmsg_status_t
pml_check_args_slow(const char *what, const void *out_p, const char *out, const void *buf,
                    size_t len, rcmsg_comm_t comm, int peer, bool any_ok, int tag, bool coll)
{
    rcmsg_status_t s = pml_check(what);

    if (s != RCMSG_OK) {
        return s;
    }
    if (out != NULL && out_p == NULL) {
        return pml_null_arg(what, out);
    }
    if (comm == NULL || !pml_comm_valid(comm)) {
        rcmsg_error("%s: invalid communicator", what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (!coll && comm->inter != NULL) {
        /* its ranks would name the union of the two groups, not the remote group */
        rcmsg_error("%s: point-to-point on an intercommunicator is not supported (only its "
                    "collectives are)",
                    what);
        return RCMSG_ERR_UNSUPPORTED;
    }
    if (buf == NULL && len > 0) {
        rcmsg_error("%s: NULL buffer with a length of %zu", what, len);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (!len_valid(buf, len, what)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((peer < 0 || peer >= comm->size) && !(any_ok && peer == RCMSG_ANY_SOURCE)) {
        rcmsg_error("%s: rank %d out of range (communicator of %d)", what, peer, comm->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (tag < 0 && !(any_ok && tag == RCMSG_ANY_TAG)) {
        rcmsg_error("%s: negative tag %d", what, tag);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}
