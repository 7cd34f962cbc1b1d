/* SPDX-License-Identifier: BSD-3-Clause */
/* Stubs of the calls of issue 39 until the engine lands (temporary). */
#include "config.h"

#include <rcmsg.h>

rcmsg_status_t rcmsg_datatype_create(size_t size, rcmsg_datatype_t *dtype_p)
{
    (void)size;
    (void)dtype_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_datatype_free(rcmsg_datatype_t *dtype_p)
{
    (void)dtype_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_op_create(rcmsg_user_fn_t *fn, int commute, rcmsg_op_t *op_p)
{
    (void)fn;
    (void)commute;
    (void)op_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_op_free(rcmsg_op_t *op_p)
{
    (void)op_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                             const size_t recvcounts[], const size_t displs[],
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)sendcount;
    (void)recvbuf;
    (void)recvcounts;
    (void)displs;
    (void)dtype;
    (void)root;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_scatterv(const void *sendbuf, const size_t sendcounts[], const size_t displs[],
                              void *recvbuf, size_t recvcount, rcmsg_datatype_t dtype, int root,
                              rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)sendcounts;
    (void)displs;
    (void)recvbuf;
    (void)recvcount;
    (void)dtype;
    (void)root;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                const size_t recvcounts[], const size_t displs[],
                                rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)sendcount;
    (void)recvbuf;
    (void)recvcounts;
    (void)displs;
    (void)dtype;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_alltoallv(const void *sendbuf, const size_t sendcounts[],
                               const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                               const size_t rdispls[], rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)sendcounts;
    (void)sdispls;
    (void)recvbuf;
    (void)recvcounts;
    (void)rdispls;
    (void)dtype;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                    rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)recvcounts;
    (void)dtype;
    (void)op;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_scan(const void *sendbuf, void *recvbuf, size_t count, rcmsg_datatype_t dtype,
                          rcmsg_op_t op, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_exscan(const void *sendbuf, void *recvbuf, size_t count,
                            rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ibarrier(rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ibcast(void *buf, size_t count, rcmsg_datatype_t dtype, int root,
                            rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)buf;
    (void)count;
    (void)dtype;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ireduce(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, rcmsg_op_t op, int root, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iallreduce(const void *sendbuf, void *recvbuf, size_t count,
                                rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_igather(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iscatter(const void *sendbuf, void *recvbuf, size_t count,
                              rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                              rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iallgather(const void *sendbuf, void *recvbuf, size_t count,
                                rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ialltoall(const void *sendbuf, void *recvbuf, size_t count,
                               rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t count,
                                           rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                           rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                              const size_t recvcounts[], const size_t displs[],
                              rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                              rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)sendcount;
    (void)recvbuf;
    (void)recvcounts;
    (void)displs;
    (void)dtype;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iscatterv(const void *sendbuf, const size_t sendcounts[],
                               const size_t displs[], void *recvbuf, size_t recvcount,
                               rcmsg_datatype_t dtype, int root, rcmsg_comm_t comm,
                               rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)sendcounts;
    (void)displs;
    (void)recvbuf;
    (void)recvcount;
    (void)dtype;
    (void)root;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                                 const size_t recvcounts[], const size_t displs[],
                                 rcmsg_datatype_t dtype, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)sendcount;
    (void)recvbuf;
    (void)recvcounts;
    (void)displs;
    (void)dtype;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ialltoallv(const void *sendbuf, const size_t sendcounts[],
                                const size_t sdispls[], void *recvbuf, const size_t recvcounts[],
                                const size_t rdispls[], rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)sendcounts;
    (void)sdispls;
    (void)recvbuf;
    (void)recvcounts;
    (void)rdispls;
    (void)dtype;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_ireduce_scatter(const void *sendbuf, void *recvbuf, const size_t recvcounts[],
                                     rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                                     rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)recvcounts;
    (void)dtype;
    (void)op;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iscan(const void *sendbuf, void *recvbuf, size_t count, rcmsg_datatype_t dtype,
                           rcmsg_op_t op, rcmsg_comm_t comm, rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_iexscan(const void *sendbuf, void *recvbuf, size_t count,
                             rcmsg_datatype_t dtype, rcmsg_op_t op, rcmsg_comm_t comm,
                             rcmsg_request_t *req_p)
{
    (void)sendbuf;
    (void)recvbuf;
    (void)count;
    (void)dtype;
    (void)op;
    (void)comm;
    (void)req_p;
    return RCMSG_ERR_UNSUPPORTED;
}
