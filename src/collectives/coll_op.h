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

/* X(NAME, C type, kind): kind 0 unsigned, 1 signed, 2 floating point */
#define RCMSG_COLL_DTYPE_LIST(X)                                                                   \
    X(INT8, int8_t, 1)                                                                             \
    X(UINT8, uint8_t, 0)                                                                           \
    X(INT16, int16_t, 1)                                                                           \
    X(UINT16, uint16_t, 0)                                                                         \
    X(INT32, int32_t, 1)                                                                           \
    X(UINT32, uint32_t, 0)                                                                         \
    X(INT64, int64_t, 1)                                                                           \
    X(UINT64, uint64_t, 0)                                                                         \
    X(FLOAT, float, 2)                                                                             \
    X(DOUBLE, double, 2)

/* X(NAME): sum, product, minimum, maximum, logical and/or/xor, bitwise and/or/xor */
#define RCMSG_COLL_OP_LIST(X)                                                                      \
    X(SUM) X(PROD) X(MIN) X(MAX) X(LAND) X(LOR) X(LXOR) X(BAND) X(BOR) X(BXOR)

typedef enum {
#define RCMSG_COLL_DTYPE_ENUM(name, type, kind) RCMSG_COLL_##name,
    RCMSG_COLL_DTYPE_LIST(RCMSG_COLL_DTYPE_ENUM)
#undef RCMSG_COLL_DTYPE_ENUM
        RCMSG_COLL_DTYPE_COUNT
} rcmsg_coll_dtype_t;

typedef enum {
#define RCMSG_COLL_OP_ENUM(name) RCMSG_COLL_OP_##name,
    RCMSG_COLL_OP_LIST(RCMSG_COLL_OP_ENUM)
#undef RCMSG_COLL_OP_ENUM
        RCMSG_COLL_OP_COUNT
} rcmsg_coll_op_t;

/* Size of one element, 0 for an invalid datatype. */
size_t rcmsg_coll_dtype_size(rcmsg_coll_dtype_t dtype);
const char *rcmsg_coll_dtype_name(rcmsg_coll_dtype_t dtype);
const char *rcmsg_coll_op_name(rcmsg_coll_op_t op);

/* Whether op is defined on dtype (bitwise and logical operations are not on floating point). */
int rcmsg_coll_op_valid(rcmsg_coll_op_t op, rcmsg_coll_dtype_t dtype);

/*
 * inout[i] = in[i] op inout[i] for i < count. RCMSG_ERR_INVALID_PARAM for an unknown
 * datatype or operation, RCMSG_ERR_UNSUPPORTED for an operation the datatype does not have.
 */
rcmsg_status_t rcmsg_coll_op_reduce(rcmsg_coll_op_t op, rcmsg_coll_dtype_t dtype, const void *in,
                                    void *inout, size_t count);

#endif /* RCMSG_COLL_OP_H */
