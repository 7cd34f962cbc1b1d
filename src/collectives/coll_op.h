/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction kernels for the collectives: every (operation, datatype) pair MPI defines for
 * C integers and floating point, applied element by element in a fixed order so that the
 * same inputs always give the bitwise same result.
 */
#ifndef RCMSG_COLL_OP_H
#define RCMSG_COLL_OP_H

#include <rcmsg.h>
#include <stddef.h>
#include <stdint.h>

/* Size of one element, 0 for an invalid datatype. */
size_t rcmsg_coll_dtype_size(rcmsg_datatype_t dtype);
const char *rcmsg_coll_dtype_name(rcmsg_datatype_t dtype);
const char *rcmsg_coll_op_name(rcmsg_op_t op);

/* Whether op is defined on dtype (bitwise and logical operations are not on floating point). */
int rcmsg_coll_op_valid(rcmsg_op_t op, rcmsg_datatype_t dtype);

/*
 * inout[i] = in[i] op inout[i] for i < count. RCMSG_ERR_INVALID_PARAM for an unknown
 * datatype or operation, RCMSG_ERR_UNSUPPORTED for an operation the datatype does not have.
 */
rcmsg_status_t rcmsg_coll_op_reduce(rcmsg_op_t op, rcmsg_datatype_t dtype, const void *in,
                                    void *inout, size_t count);

/* out[i] = x[i] op y[i] for i < count; out may be x or y (but must not overlap them
 * otherwise). Errors as rcmsg_coll_op_reduce. */
rcmsg_status_t rcmsg_coll_op_reduce3(rcmsg_op_t op, rcmsg_datatype_t dtype, const void *x,
                                     const void *y, void *out, size_t count);

#endif /* RCMSG_COLL_OP_H */
