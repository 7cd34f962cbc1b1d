/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests still pending at MPI_Finalize (a request the program made and did not complete by
 * a wait or a test: its operation in flight, or finished and not waited for).
 *
 * With MPI_ERRORS_RETURN (or a user handler) on MPI_COMM_WORLD, MPI_Finalize refuses them
 * with MPI_ERR_PENDING naming them, before anything is released: the program completes or
 * cancels them and calls MPI_Finalize again.
 *
 * With MPI_ERRORS_ARE_FATAL (the default), as real bindings leave requests behind at exit
 * (Python's), a clean exit stays clean: one warning per rank names the requests, receives
 * are cancelled (rcmsg_cancel; one already matched completes), sends and nonblocking
 * collectives get up to MPI_PENDING_WAIT_S seconds to complete (their receivers may still
 * be on their way to them), then a send still unmatched is cancelled (its receiver answers
 * the cancel: up to MPI_PENDING_WAIT_S seconds more), and finalize goes on. What neither
 * completes nor is cancelled by then is a fatal MPI_ERR_PENDING. That bounded wait
 * (mpi_fini_settle) is also the one of the freed and buffered sends (mpi_req_drain).
 * Their outcomes (a send to a lost rank that failed, ...) are dropped.
 */
#include "mpi/mpi_engines.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPI_PENDING_NAMED 4 /* requests named in a message, then "and N more" */

static struct {
    MPI_Request *h;
    int n, cap;
} pending;

static bool req_pending(const mpi_req_t *r)
{
    return mpi_req_live(r) && !r->complete;
}

static void pending_add(int handle, void *obj)
{
    if (!req_pending(obj)) {
        return;
    }
    if (pending.n == pending.cap) {
        int cap = pending.cap > 0 ? 2 * pending.cap : 16;
        MPI_Request *h = realloc(pending.h, (size_t)cap * sizeof(*h));

        if (h == NULL) {
            return; /* named less: finalize then fails in rcmsg, naming the count */
        }
        pending.h = h;
        pending.cap = cap;
    }
    pending.h[pending.n++] = handle;
}

static void pending_reset(void)
{
    free(pending.h);
    pending.h = NULL;
    pending.n = pending.cap = 0;
}

static const char *rank_text(int rank, char *buf, size_t len)
{
    if (rank == MPI_ANY_SOURCE) {
        return "any rank";
    }
    snprintf(buf, len, "rank %d", rank);
    return buf;
}

/* "a receive from rank 1, tag 5 on MPI_COMM_WORLD" */
static void req_describe(const mpi_req_t *r, char *out, size_t len)
{
    char peer[32], tag[32], comm[MPI_MAX_OBJECT_NAME + 16];

    if (r->comm->name[0] != '\0') {
        snprintf(comm, sizeof(comm), "%s", r->comm->name);
    } else {
        snprintf(comm, sizeof(comm), "communicator %#x", (unsigned)r->comm->handle);
    }
    if (r->ops->collective) {
        snprintf(out, len, "a %s on %s", r->ops->name, comm);
        return;
    }
    if (r->tag == MPI_ANY_TAG) {
        snprintf(tag, sizeof(tag), "any tag");
    } else {
        snprintf(tag, sizeof(tag), "tag %d", r->tag);
    }
    snprintf(out, len, "a %s%s %s, %s on %s", r->persistent ? "persistent " : "",
             r->is_recv ? "receive from" : "send to", rank_text(r->peer, peer, sizeof(peer)), tag,
             comm);
}

/* the first MPI_PENDING_NAMED pending requests, "; " between them, then how many more */
static void pending_list(char *out, size_t len)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < pending.n && i < MPI_PENDING_NAMED; i++) {
        mpi_req_t *r = mpi_handle_get(MPI_KIND_REQUEST_, pending.h[i]);
        char one[MPI_MAX_OBJECT_NAME + 160];

        if (r == NULL) {
            continue;
        }
        req_describe(r, one, sizeof(one));
        used += (size_t)snprintf(out + used, len - used, "%s%s", used > 0 ? "; " : "", one);
        if (used >= len) {
            return;
        }
    }
    if (pending.n > MPI_PENDING_NAMED) {
        snprintf(out + used, len - used, " and %d more", pending.n - MPI_PENDING_NAMED);
    }
}

/* Completes r if its operation is done (or it was cancelled): released, handle freed. */
static bool req_settle(mpi_req_t *r)
{
    if (!mpi_req_test(r)) {
        return false;
    }
    r->persistent = false; /* released whatever it was */
    mpi_req_complete(NULL, r, MPI_STATUS_IGNORE);
    return true;
}

/* Asks for r's operation back (its kind's cancel: a receive nothing matched, a send its
 * receiver has not matched; harmless when repeated; a collective refuses), then settles it:
 * true when done. A send's cancel takes the receiver's answer, so it settles on a later pass. */
static bool req_cancel(mpi_req_t *r)
{
    if (!r->ops->collective) {
        (void)mpi_req_cancel(r, NULL); /* also when too late: it completes normally */
    }
    return req_settle(r);
}

/* One pass over the pending requests: settles what completed (cancels first when cancel);
 * returns how many are left. */
static int pending_pass(bool cancel_recvs, bool cancel_all)
{
    int left = 0;

    mpi_progress();
    for (int i = 0; i < pending.n; i++) {
        mpi_req_t *r = pending.h[i] != MPI_REQUEST_NULL
                           ? mpi_handle_get(MPI_KIND_REQUEST_, pending.h[i])
                           : NULL;
        bool cancel = cancel_all || (cancel_recvs && r != NULL && r->is_recv);

        if (r != NULL && !(cancel && req_cancel(r)) && !req_settle(r)) {
            pending.h[left++] = pending.h[i];
        }
    }
    pending.n = left;
    return left;
}

static int pending_settle(void *arg, bool cancel)
{
    (void)arg;
    return pending_pass(false, cancel);
}

/* Fatal handler: warn, cancel receives, give the rest a bounded time, cancel what is left. */
static int pending_clear(void)
{
    char list[MPI_MAX_ERROR_STRING];

    pending_list(list, sizeof(list));
    fprintf(stderr,
            "rcmsg-mpi: rank %d: warning: MPI_Finalize with %d request(s) not completed: %s; "
            "receives are cancelled, sends and collectives get up to %.0f s to complete\n",
            rcmsg_rank(), pending.n, list, MPI_PENDING_WAIT_S);
    fflush(stderr);
    if (pending_pass(true, false) == 0 || mpi_fini_settle(pending_settle, NULL) == 0) {
        return MPI_SUCCESS;
    }
    pending_list(list, sizeof(list));
    return mpi_err(NULL, "MPI_Finalize", MPI_ERR_PENDING,
                   "%d request(s) neither completed within %.0f s nor could be cancelled: %s",
                   pending.n, MPI_PENDING_WAIT_S, list);
}

int mpi_pending_fini(void)
{
    mpi_comm_t *world = mpi_comm_get(MPI_COMM_WORLD);
    int err = MPI_SUCCESS;

    pending_reset();
    mpi_handle_each(MPI_KIND_REQUEST_, pending_add);
    if (pending.n == 0) {
        pending_reset();
        return MPI_SUCCESS;
    }
    if (world != NULL && world->errhandler == MPI_ERRORS_ARE_FATAL) {
        err = pending_clear();
    } else {
        char list[MPI_MAX_ERROR_STRING];

        pending_list(list, sizeof(list) / 2);
        err = mpi_err(NULL, "MPI_Finalize", MPI_ERR_PENDING,
                      "%d request(s) not completed: %s; complete (wait, test) or cancel them, "
                      "then call MPI_Finalize again (nothing was released)",
                      pending.n, list);
    }
    pending_reset();
    return err;
}
