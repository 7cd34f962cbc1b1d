/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking collectives on intracommunicators. Contiguous data of a type and operation rcmsg
 * knows goes to rcmsg's own collectives (zero copy, its algorithms); noncontiguous data is
 * packed first. What rcmsg cannot do (user operations, MINLOC/MAXLOC, long double, complex,
 * the v/w variants, scans) runs here over point-to-point on the communicator's hidden
 * duplicate (mpi_coll_comm), one tag per collective (mpi_coll_tag).
 */
#include "mpi/mpi_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the hidden communicator ---------------------------------------------------------------- */
rcmsg_comm_t mpi_coll_comm(mpi_comm_t *c, const char *call, int *err_p)
{
    rcmsg_status_t s;

    if (c->coll == NULL) {
        s = rcmsg_comm_dup(c->rc, &c->coll);
        if (s != RCMSG_OK) {
            c->coll = NULL;
            *err_p = mpi_err_rcmsg(c, call, s);
            return NULL;
        }
    }
    return c->coll;
}

int mpi_coll_tag(mpi_comm_t *c)
{
    int tag = c->coll_seq;

    c->coll_seq = c->coll_seq == INT_MAX ? 0 : c->coll_seq + 1;
    return tag;
}
