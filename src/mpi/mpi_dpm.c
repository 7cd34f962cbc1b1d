/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports (MPI-3.1 10.4): MPI_Open_port, MPI_Close_port, MPI_Comm_accept, MPI_Comm_connect, among
 * the processes of one job (rcmsg starts no process and joins no other job: a port names a
 * process of this job, "rcmsg-port:JOB:WORLD_RANK:ID", JOB a hash of the launcher's namespace).
 *
 * The connecting group's root sends a request to the port's process on
 * rcmsg_comm_world_private (tag 3 x ID: no receive of the program sees it) and waits for the
 * answer (3 x ID + 1) at most its timeout (info key "timeout", seconds, default
 * DPM_CONNECT_WAIT_S; MPI lets a connect to a port without an accept time out): an accepting
 * root takes one request for its port from any rank and answers it. The two roots then swap
 * their groups there (3 x ID + 2) as MPI_Intercomm_create's leaders do (mpi_inter_connect), the
 * accepting group low. Past the timeout the request is cancelled and the connect fails with
 * MPI_ERR_PORT on the whole group (a closed port, one never opened, no accept); a request an
 * accept took meanwhile is answered, and the connect goes on.
 *
 * MPI_Comm_join (10.5.4): the two processes at the ends of a socket write each other the job's
 * hash, their world rank and the job's size on it (without the core lock: the socket is the
 * program's; each wait bounded by DPM_JOIN_WAIT_MS), then meet as two groups of one over
 * rcmsg_comm_world_private (tag DPM_JOIN_TAG). A peer of another job: MPI_ERR_ARG.
 *
 * Not here: MPI_Publish_name / Lookup_name / Unpublish_name, Comm_spawn (no names service, no
 * process started by the job).
 */
#include "mpi/mpi_engines.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define DPM_PREFIX         "rcmsg-port:"
#define DPM_MAX_IDS        (1 << 28) /* three tags per port id, below DPM_JOIN_TAG */
#define DPM_JOIN_TAG       (3 * DPM_MAX_IDS)
#define DPM_JOIN_WAIT_MS   60000 /* the bound on the other end's answer on the socket */
#define DPM_CONNECT_WAIT_S 60.0  /* a connect's default bound on its answer */

/* this process's open ports, by id (the ids of closed ports are not reused) */
static struct {
    int *ids;
    int n, cap;
    int next;
} ports;

/* This job's name in a port: a hash (FNV-1a) of the launcher's namespace, the same in every
 * process of the job ("" for a singleton). */
static unsigned dpm_job(void)
{
    const char *ns = getenv("PMIX_NAMESPACE");
    unsigned h = 2166136261u;

    for (; ns != NULL && *ns != '\0'; ns++) {
        h = (h ^ (unsigned char)*ns) * 16777619u;
    }
    return h;
}

/* The next field of a port name: decimal digits up to sep, at most max; false otherwise. */
static bool port_field(const char **p, char sep, unsigned long max, unsigned long *v)
{
    char *end;

    if (**p < '0' || **p > '9') {
        return false;
    }
    errno = 0;
    *v = strtoul(*p, &end, 10);
    if (errno != 0 || *v > max || *end != sep) {
        return false;
    }
    *p = sep != '\0' ? end + 1 : end;
    return true;
}

/* port_name's process and id; false when it names no port of this job */
static bool port_parse(const char *port_name, int *world_p, int *id_p)
{
    const char *p = port_name;
    unsigned long job, world, id;

    if (p == NULL || strncmp(p, DPM_PREFIX, strlen(DPM_PREFIX)) != 0) {
        return false;
    }
    p += strlen(DPM_PREFIX);
    if (!port_field(&p, ':', UINT32_MAX, &job) ||
        !port_field(&p, ':', (unsigned long)rcmsg_size() - 1, &world) ||
        !port_field(&p, '\0', DPM_MAX_IDS - 1, &id) || job != dpm_job()) {
        return false;
    }
    *world_p = (int)world;
    *id_p = (int)id;
    return true;
}

/* *idx_p: the index in ports of a port this process opened; else the error raised on c */
static int port_mine(mpi_comm_t *c, const char *call, const char *port_name, int *idx_p)
{
    int world, id;

    if (!port_parse(port_name, &world, &id) || world != rcmsg_rank()) {
        id = -1;
    }
    for (int i = 0; id >= 0 && i < ports.n; i++) {
        if (ports.ids[i] == id) {
            *idx_p = i;
            return MPI_SUCCESS;
        }
    }
    return mpi_err(c, call, MPI_ERR_PORT, "'%s' is not a port this process opened (MPI_Open_port)",
                   port_name != NULL ? port_name : "(NULL)");
}

int MPI_Open_port(MPI_Info info, char *port_name)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Open_port";

    MPI_CHECK_ACTIVE(call);
    (void)info; /* no hints */
    if (port_name == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL port_name");
    }
    if (ports.next >= DPM_MAX_IDS) {
        return mpi_err(NULL, call, MPI_ERR_OTHER, "this process opened %d ports: no id is left",
                       DPM_MAX_IDS);
    }
    if (ports.n == ports.cap) {
        int cap = ports.cap > 0 ? 2 * ports.cap : 8;
        int *ids = realloc(ports.ids, (size_t)cap * sizeof(int));

        if (ids == NULL) {
            return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
        }
        ports.ids = ids;
        ports.cap = cap;
    }
    ports.ids[ports.n++] = ports.next;
    snprintf(port_name, MPI_MAX_PORT_NAME, DPM_PREFIX "%u:%d:%d", dpm_job(), rcmsg_rank(),
             ports.next++);
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Open_port, (MPI_Info info, char *port_name));

int MPI_Close_port(const char *port_name)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Close_port";
    int i, err;

    MPI_CHECK_ACTIVE(call);
    if ((err = port_mine(NULL, call, port_name, &i)) != MPI_SUCCESS) {
        return err;
    }
    ports.ids[i] = ports.ids[--ports.n];
    if (ports.n == 0) {
        free(ports.ids);
        ports.ids = NULL;
        ports.cap = 0;
    }
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Close_port, (const char *port_name));

/* The checks every member makes (comm an intracommunicator, root a rank of it, newcomm). */
static mpi_comm_t *dpm_group(const char *call, MPI_Comm comm, int root, MPI_Comm *newcomm,
                             int *err_p)
{
    mpi_comm_t *c = mpi_comm_check(comm, call, err_p);

    if (c != NULL && c->inter) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "%s is an intercommunicator", c->name);
    } else if (c != NULL && newcomm == NULL) {
        *err_p = mpi_err(c, call, MPI_ERR_ARG, "NULL newcomm");
    } else if (c != NULL && (root < 0 || root >= c->size)) {
        *err_p = mpi_err(c, call, MPI_ERR_ROOT, "root %d is not a rank of %s (size %d)", root,
                         c->name, c->size);
    } else {
        return c;
    }
    return NULL;
}

/* The accepting root: a request for its port, from any rank, answered; *from_p: the
 * connecting root. */
static int accept_request(mpi_comm_t *c, const char *port_name, int *id_p, int *from_p)
{
    static const char call[] = "MPI_Comm_accept";
    int i, id, req = -1, err = port_mine(c, call, port_name, &i);
    rcmsg_msg_status_t st;
    rcmsg_status_t s;

    if (err != MPI_SUCCESS) {
        return err;
    }
    id = ports.ids[i];
    s = rcmsg_recv(&req, sizeof(req), RCMSG_ANY_SOURCE, 3 * id, rcmsg_comm_world_private(), &st);
    if (s == RCMSG_OK && (st.count != sizeof(req) || req != id)) {
        return mpi_err(c, call, MPI_ERR_INTERN,
                       "a malformed connect request from rank %d for port '%s'", st.source,
                       port_name);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_send(&req, sizeof(req), st.source, 3 * id + 1, rcmsg_comm_world_private());
    }
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, s);
    }
    *id_p = id;
    *from_p = st.source;
    return MPI_SUCCESS;
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_accept";
    int err = MPI_SUCCESS, id = 0, from = 0;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE(call);
    (void)info;
    if ((c = dpm_group(call, comm, root, newcomm, &err)) == NULL) {
        return err;
    }
    if (c->rank == root) {
        err = accept_request(c, port_name, &id, &from);
    }
    return mpi_inter_connect(c, call, root, err, rcmsg_comm_world_private(), from, 3 * id + 2, true,
                             newcomm);
}
MPI_PMPI_ALIAS(Comm_accept,
               (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));

/* A connect's bound on its answer: info's "timeout" (seconds), else DPM_CONNECT_WAIT_S */
static double connect_wait(MPI_Info info)
{
    mpi_info_t *i = info != MPI_INFO_NULL ? mpi_info_get(info) : NULL;
    int k = i != NULL ? mpi_info_find(i, "timeout") : -1;
    double t = k >= 0 ? strtod(i->values[k], NULL) : 0;

    return t > 0 ? t : DPM_CONNECT_WAIT_S;
}

static double dpm_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The connecting root: the request to the port's process, then its answer within wait seconds
 * (the request cancelled past it: MPI_ERR_PORT, unless an accept took it meanwhile). */
static int connect_request(mpi_comm_t *c, const char *port_name, double wait, int world, int id)
{
    static const char call[] = "MPI_Comm_connect";
    int req = id, ans = -1, flag = 0;
    rcmsg_request_t sr = RCMSG_REQUEST_NULL, rr = RCMSG_REQUEST_NULL;
    rcmsg_msg_status_t st;
    rcmsg_status_t s;
    double until = dpm_now() + wait;

    s = rcmsg_irecv(&ans, sizeof(ans), world, 3 * id + 1, rcmsg_comm_world_private(), &rr);
    if (s == RCMSG_OK) {
        s = rcmsg_isend(&req, sizeof(req), world, 3 * id, rcmsg_comm_world_private(), &sr);
    }
    while (s == RCMSG_OK && !flag && dpm_now() < until) {
        s = rcmsg_test(&rr, &flag, NULL);
        if (!flag) {
            mpi_mt_pause();
        }
    }
    if (s == RCMSG_OK && !flag) {
        (void)rcmsg_cancel(&sr); /* taken back unless an accept took it: then it answers */
        s = rcmsg_wait(&sr, &st);
        if (s == RCMSG_OK && st.cancelled) {
            (void)rcmsg_cancel(&rr);
            (void)rcmsg_wait(&rr, NULL);
            return mpi_err(c, call, MPI_ERR_PORT,
                           "no MPI_Comm_accept on port '%s' answered within %g s (closed, never "
                           "opened, or no accept)",
                           port_name, wait);
        }
    }
    if (s == RCMSG_OK && !flag) {
        s = rcmsg_wait(&rr, NULL);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_wait(&sr, NULL);
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

/* The connecting root's part: the port checked, then its request answered (*world_p, *id_p:
 * the port's process and id). */
static int connect_root(mpi_comm_t *c, const char *port_name, double wait, int *world_p, int *id_p)
{
    bool parsed = port_parse(port_name, world_p, id_p);

    if (!parsed || *world_p == rcmsg_rank()) {
        return mpi_err(c, "MPI_Comm_connect", MPI_ERR_PORT, "'%s' is %s",
                       port_name != NULL ? port_name : "(NULL)",
                       parsed ? "a port of this process itself (the groups must be disjoint)"
                              : "not a port of this job (MPI_Open_port)");
    }
    return connect_request(c, port_name, wait, *world_p, *id_p);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_connect";
    int err = MPI_SUCCESS, id = 0, world = 0;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE(call);
    if ((c = dpm_group(call, comm, root, newcomm, &err)) == NULL) {
        return err;
    }
    if (c->rank == root) {
        err = connect_root(c, port_name, connect_wait(info), &world, &id);
    }
    return mpi_inter_connect(c, call, root, err, rcmsg_comm_world_private(), world, 3 * id + 2,
                             false, newcomm);
}
MPI_PMPI_ALIAS(Comm_connect,
               (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));

/* All len bytes of buf to (out) or from the socket fd, each wait bounded by DPM_JOIN_WAIT_MS;
 * false with *why set on an error, the end of the stream or the time limit. */
static bool join_io(int fd, void *buf, size_t len, bool out, const char **why)
{
    for (size_t done = 0; done < len;) {
        struct pollfd p = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        int r = poll(&p, 1, DPM_JOIN_WAIT_MS);
        ssize_t n;

        if (r == 0) {
            *why = "the other end did not answer within 60 s";
            return false;
        }
        n = r < 0 ? -1
            : out ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
                  : recv(fd, (char *)buf + done, len - done, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n <= 0) {
            *why = n == 0 ? "the other end closed the socket" : "the socket failed";
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

/* Join, after the socket: the other end (theirs: job, rank, size; why: the socket's failure) */
static int join_meet(int fd, MPI_Comm *intercomm, const uint32_t theirs[3], const char *why)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_join";
    mpi_comm_t *self;
    int me = rcmsg_rank(), n = rcmsg_size();

    MPI_CHECK_ACTIVE(call);
    self = mpi_comm_get(MPI_COMM_SELF);
    if (intercomm == NULL || fd < 0) {
        return mpi_err(self, call, MPI_ERR_ARG,
                       intercomm == NULL ? "NULL intercomm" : "invalid socket descriptor %d", fd);
    }
    if (why != NULL) {
        return mpi_err(self, call, MPI_ERR_OTHER, "on socket %d: %s", fd, why);
    }
    if (theirs[0] != dpm_job() || theirs[2] != (uint32_t)n || theirs[1] >= (uint32_t)n ||
        theirs[1] == (uint32_t)me) {
        return mpi_err(self, call, MPI_ERR_ARG,
                       "the other end of socket %d is no other process of this job (rank %u of "
                       "%u; here rank %d of %d)",
                       fd, theirs[1], theirs[2], me, n);
    }
    return mpi_inter_connect(self, call, 0, MPI_SUCCESS, rcmsg_comm_world_private(), (int)theirs[1],
                             DPM_JOIN_TAG, me < (int)theirs[1], intercomm);
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    uint32_t mine[3] = {dpm_job(), (uint32_t)rcmsg_rank(), (uint32_t)rcmsg_size()};
    uint32_t theirs[3] = {0, 0, 0};
    const char *why = NULL;

    /* the socket is the program's: no core lock while waiting on it */
    if (fd >= 0 && intercomm != NULL && rcmsg_rank() >= 0 &&
        (!join_io(fd, mine, sizeof(mine), true, &why) ||
         !join_io(fd, theirs, sizeof(theirs), false, &why))) {
        why = why != NULL ? why : "the socket failed";
    }
    return join_meet(fd, intercomm, theirs, why);
}
MPI_PMPI_ALIAS(Comm_join, (int fd, MPI_Comm *intercomm));
