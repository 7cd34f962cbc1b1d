/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction kernels: one loop per (operation, datatype), generated from the two X-lists. */
#include "config.h"

#include "coll_op.h"

#include "base/compiler.h"

#define OP_SUM(a, b)  ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_MIN(a, b)  ((a) < (b) ? (a) : (b))
#define OP_MAX(a, b)  ((a) > (b) ? (a) : (b))
#define OP_LAND(a, b) (((a) != 0) && ((b) != 0))
#define OP_LOR(a, b)  (((a) != 0) || ((b) != 0))
#define OP_LXOR(a, b) (((a) != 0) != ((b) != 0))
#define OP_BAND(a, b) ((a) & (b))
#define OP_BOR(a, b)  ((a) | (b))
#define OP_BXOR(a, b) ((a) ^ (b))

/* A loop: out[i] = x[i] OP y[i], out possibly x or y (element i is read before it is
 * written). Integer sums, products and bitwise operations are computed in uint64_t and
 * truncated to the type: they wrap modulo 2^bits, never overflow into undefined behaviour
 * (small types would otherwise be promoted to int). */
#define REDUCE_LOOP(opname, type, utype)                                                           \
    for (size_t i = 0; i < count; i++) {                                                           \
        utype a = (utype)((const type *)x)[i], b = (utype)((const type *)y)[i];                    \
        ((type *)out)[i] = (type)OP_##opname(a, b);                                                \
    }

#define REDUCE_LOOP_FP(opname, type)                                                               \
    for (size_t i = 0; i < count; i++) {                                                           \
        ((type *)out)[i] = (type)OP_##opname(((const type *)x)[i], ((const type *)y)[i]);          \
    }

/* min/max/logical ops compare values, so signed types stay signed for them */
#define REDUCE_INT(type, utype)                                                                    \
    switch (op) {                                                                                  \
    case RCMSG_SUM:                                                                                \
        REDUCE_LOOP(SUM, type, utype) break;                                                       \
    case RCMSG_PROD:                                                                               \
        REDUCE_LOOP(PROD, type, utype) break;                                                      \
    case RCMSG_MIN:                                                                                \
        REDUCE_LOOP(MIN, type, type) break;                                                        \
    case RCMSG_MAX:                                                                                \
        REDUCE_LOOP(MAX, type, type) break;                                                        \
    case RCMSG_LAND:                                                                               \
        REDUCE_LOOP(LAND, type, type) break;                                                       \
    case RCMSG_LOR:                                                                                \
        REDUCE_LOOP(LOR, type, type) break;                                                        \
    case RCMSG_LXOR:                                                                               \
        REDUCE_LOOP(LXOR, type, type) break;                                                       \
    case RCMSG_BAND:                                                                               \
        REDUCE_LOOP(BAND, type, utype) break;                                                      \
    case RCMSG_BOR:                                                                                \
        REDUCE_LOOP(BOR, type, utype) break;                                                       \
    case RCMSG_BXOR:                                                                               \
        REDUCE_LOOP(BXOR, type, utype) break;                                                      \
    default:                                                                                       \
        return RCMSG_ERR_INVALID_PARAM;                                                            \
    }                                                                                              \
    return RCMSG_OK;

#define REDUCE_FP(type)                                                                            \
    switch (op) {                                                                                  \
    case RCMSG_SUM:                                                                                \
        REDUCE_LOOP_FP(SUM, type) break;                                                           \
    case RCMSG_PROD:                                                                               \
        REDUCE_LOOP_FP(PROD, type) break;                                                          \
    case RCMSG_MIN:                                                                                \
        REDUCE_LOOP_FP(MIN, type) break;                                                           \
    case RCMSG_MAX:                                                                                \
        REDUCE_LOOP_FP(MAX, type) break;                                                           \
    default:                                                                                       \
        return RCMSG_ERR_UNSUPPORTED;                                                              \
    }                                                                                              \
    return RCMSG_OK;

static const struct {
    const char *name;
    size_t size;
    int fp; /* floating point: no bitwise or logical operations */
} dtypes[RCMSG_DATATYPE_COUNT] = {
#define DTYPE_INFO(name, type) {#name, sizeof(type), (type)0.5 != 0},
    RCMSG_DATATYPE_LIST(DTYPE_INFO)
#undef DTYPE_INFO
};

static const char *const op_names[RCMSG_OP_COUNT] = {
#define OP_NAME(name) #name,
    RCMSG_OP_LIST(OP_NAME)
#undef OP_NAME
};

size_t rcmsg_coll_dtype_size(rcmsg_datatype_t dtype)
{
    return (unsigned)dtype < RCMSG_DATATYPE_COUNT ? dtypes[dtype].size : 0;
}

const char *rcmsg_coll_dtype_name(rcmsg_datatype_t dtype)
{
    return (unsigned)dtype < RCMSG_DATATYPE_COUNT ? dtypes[dtype].name : "UNKNOWN";
}

const char *rcmsg_coll_op_name(rcmsg_op_t op)
{
    return (unsigned)op < RCMSG_OP_COUNT ? op_names[op] : "UNKNOWN";
}

int rcmsg_coll_op_valid(rcmsg_op_t op, rcmsg_datatype_t dtype)
{
    if ((unsigned)op >= RCMSG_OP_COUNT || (unsigned)dtype >= RCMSG_DATATYPE_COUNT) {
        return 0;
    }
    return !dtypes[dtype].fp || op <= RCMSG_MAX;
}

RCMSG_VECTORIZE rcmsg_status_t rcmsg_coll_op_reduce3(rcmsg_op_t op, rcmsg_datatype_t dtype,
                                                     const void *x, const void *y, void *out,
                                                     size_t count)
{
    if ((unsigned)op >= RCMSG_OP_COUNT || (count > 0 && (x == NULL || y == NULL || out == NULL))) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    switch (dtype) {
    case RCMSG_INT8:
        REDUCE_INT(int8_t, uint64_t)
    case RCMSG_UINT8:
        REDUCE_INT(uint8_t, uint64_t)
    case RCMSG_INT16:
        REDUCE_INT(int16_t, uint64_t)
    case RCMSG_UINT16:
        REDUCE_INT(uint16_t, uint64_t)
    case RCMSG_INT32:
        REDUCE_INT(int32_t, uint64_t)
    case RCMSG_UINT32:
        REDUCE_INT(uint32_t, uint64_t)
    case RCMSG_INT64:
        REDUCE_INT(int64_t, uint64_t)
    case RCMSG_UINT64:
        REDUCE_INT(uint64_t, uint64_t)
    case RCMSG_FLOAT:
        REDUCE_FP(float)
    case RCMSG_DOUBLE:
        REDUCE_FP(double)
    case RCMSG_DATATYPE_COUNT:
        break;
    }
    return RCMSG_ERR_INVALID_PARAM;
}

rcmsg_status_t rcmsg_coll_op_reduce(rcmsg_op_t op, rcmsg_datatype_t dtype, const void *in,
                                    void *inout, size_t count)
{
    return rcmsg_coll_op_reduce3(op, dtype, in, inout, inout, count);
}
