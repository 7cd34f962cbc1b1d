/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports (MPI-3.1 10.4): MPI_Open_port, MPI_Close_port, MPI_Comm_accept, MPI_Comm_connect, among
 * the processes of one job (rcmsg starts no process and joins no other job: a port names a
 * process of this job's world, "rcmsg-port:WORLD_RANK:ID:JOB_SIZE").
 *
 * The connecting group's root sends a request to the port's process on
 * rcmsg_comm_world_private (tag 2 x ID: no receive of the program sees it); the accepting
 * group's root takes one request for its port from any rank, and the two roots then swap their
 * groups there (tag 2 x ID + 1) as MPI_Intercomm_create's leaders do (mpi_inter_connect): each
 * group gets the intercommunicator, the accepting group's ranks first in neither (each side's
 * local group is its own communicator, in its order). Accepts on one port take the requests one
 * at a time; a connect waits for its accept as a receive waits for its send (a lost port
 * process fails it: the liveness checks).
 *
 * MPI_Comm_join (10.5.4): the two processes at the ends of a socket write each other their
 * world rank and the job's size on it, then meet as two groups of one over
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
#include <unistd.h>

#define DPM_PREFIX       "rcmsg-port:"
#define DPM_MAX_IDS      (1 << 29) /* two tags per port id, within rcmsg's non-negative int tags */
#define DPM_JOIN_TAG     (2 * DPM_MAX_IDS)
#define DPM_JOIN_WAIT_MS 60000 /* the bound on the other end's answer on the socket */

/* this process's open ports, by id (the ids of closed ports are not reused) */
static struct {
    int *ids;
    int n, cap;
    int next;
} ports;

static bool port_is_open(int id)
{
    for (int i = 0; i < ports.n; i++) {
        if (ports.ids[i] == id) {
            return true;
        }
    }
    return false;
}

/* port_name's process and id; false when it names no port of this job */
static bool port_parse(const char *port_name, int *world_p, int *id_p)
{
    int world, id, size, used = 0;

    if (port_name == NULL ||
        sscanf(port_name, DPM_PREFIX "%d:%d:%d%n", &world, &id, &size, &used) != 3 ||
        port_name[used] != '\0' || size != rcmsg_size() || world < 0 || world >= size || id < 0 ||
        id >= DPM_MAX_IDS) {
        return false;
    }
    *world_p = world;
    *id_p = id;
    return true;
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
        return mpi_err(NULL, call, MPI_ERR_PORT, "this process opened %d ports: no id is left",
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
    snprintf(port_name, MPI_MAX_PORT_NAME, DPM_PREFIX "%d:%d:%d", rcmsg_rank(), ports.next++,
             rcmsg_size());
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Open_port, (MPI_Info info, char *port_name));

int MPI_Close_port(const char *port_name)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Close_port";
    int world, id;

    MPI_CHECK_ACTIVE(call);
    if (!port_parse(port_name, &world, &id) || world != rcmsg_rank() || !port_is_open(id)) {
        return mpi_err(NULL, call, MPI_ERR_PORT, "'%s' is not a port this process opened",
                       port_name != NULL ? port_name : "(NULL)");
    }
    for (int i = 0; i < ports.n; i++) {
        if (ports.ids[i] == id) {
            ports.ids[i] = ports.ids[--ports.n];
            break;
        }
    }
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

/* The accepting root: a request for its port, from any rank; *from_p: the connecting root. */
static int accept_request(mpi_comm_t *c, const char *port_name, int *id_p, int *from_p)
{
    static const char call[] = "MPI_Comm_accept";
    int world, id, req[2];
    rcmsg_msg_status_t st;
    rcmsg_status_t s;

    if (!port_parse(port_name, &world, &id) || world != rcmsg_rank() || !port_is_open(id)) {
        return mpi_err(c, call, MPI_ERR_PORT, "'%s' is not a port this process opened",
                       port_name != NULL ? port_name : "(NULL)");
    }
    s = rcmsg_recv(req, sizeof(req), RCMSG_ANY_SOURCE, 2 * id, rcmsg_comm_world_private(), &st);
    if (s == RCMSG_OK && (st.count != sizeof(req) || req[0] != id)) {
        return mpi_err(c, call, MPI_ERR_INTERN,
                       "a malformed connect request from rank %d for port '%s'", st.source,
                       port_name);
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
    return mpi_inter_connect(c, call, root, err, rcmsg_comm_world_private(), from, from, 2 * id + 1,
                             newcomm);
}
MPI_PMPI_ALIAS(Comm_accept,
               (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_connect";
    int err = MPI_SUCCESS, id = 0, world = 0, req[2];
    mpi_comm_t *c;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE(call);
    (void)info;
    if ((c = dpm_group(call, comm, root, newcomm, &err)) == NULL) {
        return err;
    }
    if (c->rank == root && !port_parse(port_name, &world, &id)) {
        err = mpi_err(c, call, MPI_ERR_PORT, "'%s' is not a port of this job (MPI_Open_port)",
                      port_name != NULL ? port_name : "(NULL)");
    } else if (c->rank == root) {
        req[0] = id;
        req[1] = c->size;
        s = rcmsg_send(req, sizeof(req), world, 2 * id, rcmsg_comm_world_private());
        err = s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    return mpi_inter_connect(c, call, root, err, rcmsg_comm_world_private(), world, world,
                             2 * id + 1, newcomm);
}
MPI_PMPI_ALIAS(Comm_connect,
               (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));

/* All len bytes of buf to (out) or from fd, each wait bounded by DPM_JOIN_WAIT_MS; false with
 * *why set on an error, the end of the stream or the time limit. */
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
            : out ? write(fd, (char *)buf + done, len - done)
                  : read(fd, (char *)buf + done, len - done);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n <= 0) {
            *why = n == 0 ? "the other end closed the socket" : strerror(errno);
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Comm_join";
    mpi_comm_t *self = mpi_comm_get(MPI_COMM_SELF);
    int32_t mine[2] = {rcmsg_rank(), rcmsg_size()}, theirs[2] = {-1, -1};
    const char *why = NULL;

    MPI_CHECK_ACTIVE(call);
    if (intercomm == NULL) {
        return mpi_err(self, call, MPI_ERR_ARG, "NULL intercomm");
    }
    if (fd < 0) {
        return mpi_err(self, call, MPI_ERR_ARG, "invalid socket descriptor %d", fd);
    }
    if (!join_io(fd, mine, sizeof(mine), true, &why) ||
        !join_io(fd, theirs, sizeof(theirs), false, &why)) {
        return mpi_err(self, call, MPI_ERR_OTHER, "on socket %d: %s", fd, why);
    }
    if (theirs[1] != mine[1] || theirs[0] < 0 || theirs[0] >= mine[1] || theirs[0] == mine[0]) {
        return mpi_err(self, call, MPI_ERR_ARG,
                       "the other end of socket %d is no other process of this job (rank %d of "
                       "%d; here rank %d of %d)",
                       fd, theirs[0], theirs[1], mine[0], mine[1]);
    }
    return mpi_inter_connect(self, call, 0, MPI_SUCCESS, rcmsg_comm_world_private(), theirs[0],
                             theirs[0], DPM_JOIN_TAG, intercomm);
}
MPI_PMPI_ALIAS(Comm_join, (int fd, MPI_Comm *intercomm));
