/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calls that wait for or test requests: rcmsg_wait, rcmsg_test and their -all and -any
 * forms. Above liveness: an idle round of a wait is pml_idle (the wait itself, and liveness
 * after a sleep).
 */
#include "config.h"

#include "pml_internal.h"

#include "base/mt.h"
#include "progress/progress.h"

pml_wait_t pml_wt;

/* A handle req_valid refused: said, out of line. */
static __attribute__((noinline, cold)) bool req_refused(rcmsg_request_t r, bool stale,
                                                        const char *what)
{
    if (stale) {
        rcmsg_error("%s: request %p was completed already (a stale copy of a handle that wait "
                    "or test set to RCMSG_REQUEST_NULL)",
                    what, (void *)r);
    } else {
        rcmsg_error("%s: %p is not a request of rcmsg", what, (void *)r);
    }
    return false;
}

/* Whether r is a live request of this library: a stale copy of a completed (freed) handle,
 * or a pointer that is no request at all, is refused instead of corrupting the free list.
 * O(1) (pml_req_slot: a lookup of r's block, r read only when it is a request). */
static inline bool req_valid(rcmsg_request_t r, const char *what)
{
    if (!pml_req_slot(r)) {
        return req_refused(r, false, what);
    }
    return r->in_use || req_refused(r, true, what);
}

/* Completes a finished request: status out, request released, *req_p cleared. */
static rcmsg_status_t req_finish(rcmsg_request_t *req_p, rcmsg_msg_status_t *status)
{
    rcmsg_request_t r = *req_p;
    rcmsg_status_t err = r->st.error;

    if (status != NULL) {
        *status = r->st;
        status->cancelled = r->cancelled;
        if (r->kind == PML_REQ_SEND) {
            status->source = r->my_rank;
            status->tag = r->tag;
            status->count = r->cancelled ? 0 : r->len;
        }
    }
    pml_req_free(r);
    *req_p = RCMSG_REQUEST_NULL;
    return err;
}

static void empty_status(rcmsg_msg_status_t *status)
{
    if (status != NULL) {
        *status = (rcmsg_msg_status_t){.source = RCMSG_ANY_SOURCE, .tag = RCMSG_ANY_TAG};
    }
}

static inline rcmsg_status_t wait_body(rcmsg_request_t *req_p, rcmsg_msg_status_t *status)
{
    unsigned idle = 0;

    if (pml_comms.world == NULL) {
        return pml_check("rcmsg_wait");
    }
    if (req_p == NULL) {
        return pml_null_arg("rcmsg_wait", "req_p");
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        empty_status(status);
        return RCMSG_OK;
    }
    if (!req_valid(*req_p, "rcmsg_wait")) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (!(*req_p)->complete) {
        struct rcmsg_request *outer = pml_wt.waiting; /* a wait in a progress hook nests */

        pml_wt.waiting = *req_p;
        while (!(*req_p)->complete) {
            if (rcmsg_progress() == 0) {
                pml_idle(&idle);
            } else {
                idle = 0;
            }
        }
        pml_wt.waiting = outer;
    }
    return req_finish(req_p, status);
}

rcmsg_status_t rcmsg_wait(rcmsg_request_t *req_p, rcmsg_msg_status_t *status)
{
    RCMSG_MT_TAIL(wait_body(req_p, status));
}

static inline rcmsg_status_t test_body(rcmsg_request_t *req_p, int *flag_p,
                                       rcmsg_msg_status_t *status)
{
    if (pml_comms.world == NULL) {
        return pml_check("rcmsg_test");
    }
    if (req_p == NULL || flag_p == NULL) {
        return pml_null_arg("rcmsg_test", req_p == NULL ? "req_p" : "flag_p");
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        *flag_p = 1;
        empty_status(status);
        return RCMSG_OK;
    }
    if (!req_valid(*req_p, "rcmsg_test")) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (!(*req_p)->complete) {
        rcmsg_progress();
    }
    *flag_p = (*req_p)->complete;
    return *flag_p ? req_finish(req_p, status) : RCMSG_OK;
}

rcmsg_status_t rcmsg_test(rcmsg_request_t *req_p, int *flag_p, rcmsg_msg_status_t *status)
{
    RCMSG_MT_TAIL(test_body(req_p, flag_p, status));
}

/* The checks of a call on an array of requests: the pml is up, reqs is no NULL (nor is the
 * call's other pointer, named other: other_null), every request is live or null. */
static rcmsg_status_t reqs_check(const char *call, size_t n, const rcmsg_request_t reqs[],
                                 bool other_null, const char *other)
{
    if (pml_comms.world == NULL) {
        return pml_check(call);
    }
    if ((reqs == NULL && n > 0) || other_null) {
        return pml_null_arg(call, other_null ? other : "reqs");
    }
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !req_valid(reqs[i], call)) {
            return RCMSG_ERR_INVALID_PARAM;
        }
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_testall(size_t n, rcmsg_request_t reqs[], int *flag_p,
                             rcmsg_msg_status_t statuses[])
{
    RCMSG_MT_GUARD();
    rcmsg_status_t first = RCMSG_OK;
    rcmsg_status_t chk = reqs_check("rcmsg_testall", n, reqs, flag_p == NULL, "flag_p");

    if (chk != RCMSG_OK) {
        return chk;
    }
    rcmsg_progress();
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !reqs[i]->complete) {
            *flag_p = 0;
            return RCMSG_OK;
        }
    }
    for (size_t i = 0; i < n; i++) {
        rcmsg_status_t s = RCMSG_OK;
        if (reqs[i] != RCMSG_REQUEST_NULL && !reqs[i]->in_use) {
            /* the same handle twice in the array: finished already above */
            rcmsg_error("rcmsg_testall: request %p appears more than once", (void *)reqs[i]);
            s = RCMSG_ERR_INVALID_PARAM;
            reqs[i] = RCMSG_REQUEST_NULL;
        } else if (reqs[i] != RCMSG_REQUEST_NULL) {
            s = req_finish(&reqs[i], statuses ? &statuses[i] : NULL);
        } else {
            empty_status(statuses ? &statuses[i] : NULL);
        }
        if (first == RCMSG_OK) {
            first = s;
        }
    }
    *flag_p = 1;
    return first;
}

rcmsg_status_t rcmsg_waitall(size_t n, rcmsg_request_t reqs[], rcmsg_msg_status_t statuses[])
{
    RCMSG_MT_GUARD();
    rcmsg_status_t first = RCMSG_OK;
    rcmsg_status_t chk = reqs_check("rcmsg_waitall", n, reqs, false, "");

    if (chk != RCMSG_OK) {
        return chk;
    }
    for (size_t i = 0; i < n; i++) {
        rcmsg_status_t s = rcmsg_wait(&reqs[i], statuses ? &statuses[i] : NULL);
        if (first == RCMSG_OK) {
            first = s;
        }
    }
    return first;
}

rcmsg_status_t rcmsg_waitany(size_t n, rcmsg_request_t reqs[], size_t *index_p,
                             rcmsg_msg_status_t *status)
{
    RCMSG_MT_GUARD();
    unsigned idle = 0;
    rcmsg_status_t chk = reqs_check("rcmsg_waitany", n, reqs, index_p == NULL, "index_p");

    if (chk != RCMSG_OK) {
        return chk;
    }
    for (;;) {
        size_t live = 0;
        for (size_t i = 0; i < n; i++) {
            if (reqs[i] == RCMSG_REQUEST_NULL) {
                continue;
            }
            live++;
            if (reqs[i]->complete) {
                *index_p = i;
                return req_finish(&reqs[i], status);
            }
        }
        if (live == 0) {
            *index_p = n;
            empty_status(status);
            return RCMSG_OK;
        }
        if (rcmsg_progress() == 0) {
            pml_idle(&idle);
        } else {
            idle = 0;
        }
    }
}
