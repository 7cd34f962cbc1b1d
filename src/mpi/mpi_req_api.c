/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calls of requests (bindings over the request engine, mpi_req.c): Wait, Test and their
 * any/all/some forms, Request_get_status, Request_free, Cancel, Test_cancelled and the
 * persistent requests (the *_init calls of point-to-point, Start, Startall; the persistent
 * collectives' inits are with their nonblocking forms). Every kind of request (point-to-
 * point, buffered send, nonblocking collective) goes through its operations table.
 */
#include "mpi/mpi_engines.h"

static MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* a multiple-completion call's status i: its error field is the operation's code */
static int status_err(MPI_Status *statuses, int i, int err)
{
    if (statuses != MPI_STATUSES_IGNORE) {
        statuses[i].MPI_ERROR = err;
    }
    return err;
}

static int raise_op(mpi_comm_t *comm, const char *call, int err)
{
    if (err == MPI_SUCCESS) {
        return err;
    }
    return mpi_err_again(comm, call, err); /* the operation's own reason, if noted */
}

/* The request *request names, for call: NULL with *err_p raised when request is NULL or names
 * no request; MPI_REQUEST_NULL gives NULL with *err_p MPI_SUCCESS, or raised with null_why
 * for a call that takes none (null_why not NULL). */
static mpi_req_t *req_arg(const MPI_Request *request, const char *call, const char *null_why,
                          int *err_p)
{
    mpi_req_t *r;

    if (request == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_ARG, "NULL request");
        return NULL;
    }
    r = mpi_check_request(*request, call, err_p);
    if (r == NULL && *err_p == MPI_SUCCESS && null_why != NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_REQUEST, "%s", null_why);
    }
    return r;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Wait");
    if (req_arg(request, "MPI_Wait", NULL, &err) == NULL && err != MPI_SUCCESS) {
        mpi_status_empty(status);
        return err;
    }
    return mpi_req_wait_call(request, status, "MPI_Wait");
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_MT_GUARD();
    int err = MPI_SUCCESS;
    mpi_req_t *r;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Test");
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Test", MPI_ERR_ARG, "NULL flag");
    }
    mpi_progress();
    r = req_arg(request, "MPI_Test", NULL, &err);
    if (!mpi_req_live(r)) {
        *flag = err == MPI_SUCCESS;
        mpi_status_empty(status);
        return err;
    }
    c = r->comm;
    c->refs++;
    *flag = mpi_req_test_one(request, r, status, &err);
    err = raise_op(c, "MPI_Test", err);
    mpi_comm_unref(c);
    return err;
}

static mpi_req_t *req_at(const MPI_Request reqs[], int i)
{
    mpi_req_t *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mpi_handle_get(MPI_KIND_REQUEST_, reqs[i]);

    return mpi_req_live(r) ? r : NULL;
}

/* Raises err_in_status through the communicator of the first failed request (held by
 * *errcomm_p) for the multiple-completion calls. */
static int raise_in_status(mpi_comm_t **errcomm_p, const char *call)
{
    int err;

    if (*errcomm_p == NULL) {
        return MPI_SUCCESS;
    }
    err = mpi_err(*errcomm_p, call, MPI_ERR_IN_STATUS, "an operation failed (see its status)");
    mpi_comm_unref(*errcomm_p);
    *errcomm_p = NULL;
    return err;
}

static void note_err(mpi_comm_t **errcomm_p, mpi_comm_t *c, int err)
{
    if (err != MPI_SUCCESS && *errcomm_p == NULL) {
        *errcomm_p = c;
        c->refs++;
    }
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status *statuses)
{
    MPI_MT_GUARD();
    mpi_comm_t *errcomm = NULL;
    int err;

    MPI_CHECK_ACTIVE("MPI_Waitall");
    err = mpi_check_requests(count, reqs, "MPI_Waitall");
    if (err != MPI_SUCCESS) {
        return err;
    }
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);
        mpi_comm_t *c;

        if (r == NULL) {
            mpi_status_empty(status_at(statuses, i));
            continue;
        }
        c = r->comm;
        c->refs++;
        note_err(&errcomm, c,
                 status_err(statuses, i, mpi_req_wait_one(&reqs[i], r, status_at(statuses, i))));
        mpi_comm_unref(c);
    }
    mpi_progress();
    return raise_in_status(&errcomm, "MPI_Waitall");
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    MPI_MT_GUARD();
    mpi_comm_t *errcomm = NULL;
    int err, done = 1;

    MPI_CHECK_ACTIVE("MPI_Testall");
    err = mpi_check_requests(count, reqs, "MPI_Testall");
    if (err != MPI_SUCCESS) {
        return err;
    }
    mpi_progress();
    /* completes none unless all are complete: a finished one holds its outcome meanwhile */
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);

        if (r != NULL && !mpi_req_test(r)) {
            done = 0;
        }
    }
    *flag = done;
    for (int i = 0; done && i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);
        mpi_comm_t *c;

        if (r == NULL) {
            mpi_status_empty(status_at(statuses, i));
            continue;
        }
        c = r->comm;
        c->refs++;
        note_err(&errcomm, c,
                 status_err(statuses, i, mpi_req_wait_one(&reqs[i], r, status_at(statuses, i))));
        mpi_comm_unref(c);
    }
    return raise_in_status(&errcomm, "MPI_Testall");
}

/* One pass over reqs: completes the first finished one (*index_p, 1) or none (0); *live_p:
 * whether any request was live. */
static int testany_pass(int count, MPI_Request reqs[], int *index_p, MPI_Status *status,
                        bool *live_p, int *err_p, mpi_comm_t **comm_p)
{
    *live_p = false;
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);

        if (r == NULL) {
            continue;
        }
        *live_p = true;
        *comm_p = r->comm;
        r->comm->refs++;
        if (mpi_req_test_one(&reqs[i], r, status, err_p)) {
            *index_p = i;
            return 1;
        }
        mpi_comm_unref(*comm_p);
        *comm_p = NULL;
    }
    return 0;
}

static int any_common(const char *call, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, bool block)
{
    int err, done;
    bool live;
    mpi_comm_t *c = NULL;

    MPI_CHECK_ACTIVE(call);
    err = mpi_check_requests(count, reqs, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (index == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL index");
    }
    do {
        mpi_progress();
        err = MPI_SUCCESS;
        done = testany_pass(count, reqs, index, status, &live, &err, &c);
    } while (block && !done && live && (mpi_mt_pause(), true)); /* ranks may share cores */
    if (flag != NULL) {
        *flag = done || !live;
    }
    if (!live) {
        *index = MPI_UNDEFINED;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!done) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    err = raise_op(c, call, err);
    mpi_comm_unref(c);
    return err;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    MPI_MT_GUARD();
    return any_common("MPI_Waitany", count, reqs, index, NULL, status, true);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    MPI_MT_GUARD();
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Testany", MPI_ERR_ARG, "NULL flag");
    }
    return any_common("MPI_Testany", count, reqs, index, flag, status, false);
}

static int some_common(const char *call, int incount, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status *statuses, bool block)
{
    mpi_comm_t *errcomm = NULL;
    int err, n;
    bool live;

    MPI_CHECK_ACTIVE(call);
    err = mpi_check_requests(incount, reqs, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (outcount == NULL || (incount > 0 && indices == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL %s",
                       outcount == NULL ? "outcount" : "indices");
    }
    do {
        mpi_progress();
        n = 0;
        live = false;
        for (int i = 0; i < incount; i++) {
            mpi_req_t *r = req_at(reqs, i);
            mpi_comm_t *c;

            if (r == NULL) {
                continue;
            }
            live = true;
            c = r->comm;
            c->refs++;
            if (mpi_req_test_one(&reqs[i], r, status_at(statuses, n), &err)) {
                status_err(statuses, n, err);
                indices[n++] = i;
                note_err(&errcomm, c, err);
            }
            mpi_comm_unref(c);
        }
    } while (block && n == 0 && live && (mpi_mt_pause(), true));
    *outcount = live ? n : MPI_UNDEFINED;
    return raise_in_status(&errcomm, call);
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status *statuses)
{
    MPI_MT_GUARD();
    return some_common("MPI_Waitsome", incount, reqs, outcount, indices, statuses, true);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status *statuses)
{
    MPI_MT_GUARD();
    return some_common("MPI_Testsome", incount, reqs, outcount, indices, statuses, false);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPI_MT_GUARD();
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE("MPI_Request_get_status");
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Request_get_status", MPI_ERR_ARG, "NULL flag");
    }
    mpi_progress();
    r = mpi_check_request(request, "MPI_Request_get_status", &err);
    if (!mpi_req_live(r)) {
        *flag = err == MPI_SUCCESS;
        mpi_status_empty(status);
        return err;
    }
    *flag = mpi_req_test(r);
    if (!*flag) {
        return MPI_SUCCESS;
    }
    mpi_status_out(status, &r->done);
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    MPI_MT_GUARD();
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE("MPI_Request_free");
    r = req_arg(request, "MPI_Request_free", "MPI_REQUEST_NULL cannot be freed", &err);
    if (r == NULL) {
        return err;
    }
    if (r->ops->collective && r->persistent && r->active) {
        return mpi_err(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                       "the persistent collective request of %s is active: it cannot be freed "
                       "(MPI: erroneous); complete it with a wait or a test first",
                       r->what);
    }
    if (r->ops->collective && !r->persistent) {
        return mpi_err(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                       "the request of a nonblocking collective cannot be freed (MPI: erroneous); "
                       "complete it with a wait or a test");
    }
    *request = MPI_REQUEST_NULL;
    mpi_req_free(r);
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    MPI_MT_GUARD();
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE("MPI_Cancel");
    r = req_arg(request, "MPI_Cancel", "MPI_REQUEST_NULL cannot be cancelled", &err);
    if (r == NULL) {
        return err;
    }
    if (!mpi_req_live(r)) {
        return mpi_err(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                       "the persistent request is not active");
    }
    return mpi_req_cancel(r, "MPI_Cancel");
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPI_MT_GUARD();
    if (status == NULL || status == MPI_STATUS_IGNORE || flag == NULL) {
        return mpi_err(NULL, "MPI_Test_cancelled", MPI_ERR_ARG, "%s",
                       flag == NULL ? "NULL flag" : "no status");
    }
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

/* ---- persistent requests ----------------------------------------------------------------- */
static int start_one(const MPI_Request *request, const char *call)
{
    int err;
    mpi_req_t *r = req_arg(request, call, "MPI_REQUEST_NULL", &err);

    if (r == NULL) {
        return err;
    }
    if (!r->persistent) {
        return mpi_err(r->comm, call, MPI_ERR_REQUEST, "not a persistent request");
    }
    if (r->active && r->what != NULL) {
        return mpi_err(r->comm, call, MPI_ERR_REQUEST,
                       "the persistent collective request of %s is active already (complete it "
                       "with a wait or a test before starting it again)",
                       r->what);
    }
    if (r->active) {
        return mpi_err(r->comm, call, MPI_ERR_REQUEST, "the request is active already");
    }
    err = r->ops->start != NULL ? r->ops->start(r, call) : mpi_req_start(r, call);
    if (err == MPI_SUCCESS) {
        r->active = true;
    }
    return err;
}

int MPI_Start(MPI_Request *request)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Start");
    return start_one(request, "MPI_Start");
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Startall");
    err = mpi_check_requests(count, reqs, "MPI_Startall");
    for (int i = 0; err == MPI_SUCCESS && i < count; i++) {
        err = start_one(&reqs[i], "MPI_Startall");
    }
    return err;
}

static int init_common(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer,
                       int tag, MPI_Comm comm, bool recv, mpi_send_mode_t mode,
                       MPI_Request *request)
{
    MPI_CHECK_ACTIVE(call);
    return mpi_req_p2p(call, buf, count, dt, peer, tag, comm, recv, mode, true, request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Send_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_STANDARD, request);
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Send_init_c", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_STANDARD, request);
}
MPI_PMPI_ALIAS(Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Ssend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_SYNC, request);
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Ssend_init_c", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_SYNC, request);
}
MPI_PMPI_ALIAS(Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Bsend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_BUFFERED, request);
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Bsend_init_c", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_BUFFERED, request);
}
MPI_PMPI_ALIAS(Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Rsend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_READY, request);
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Rsend_init_c", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_READY, request);
}
MPI_PMPI_ALIAS(Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request));

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, true,
                       MPI_SEND_STANDARD, request);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_common("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, true,
                       MPI_SEND_STANDARD, request);
}
MPI_PMPI_ALIAS(Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Request *request));
