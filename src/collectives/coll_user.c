/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's datatypes and reduction operations (rcmsg_datatype_create,
 * rcmsg_op_create): two tables, a handle being the table index past the predefined values.
 * A nonblocking collective holds a reference on its op and datatype, so that one freed while
 * it runs stays valid until it completes; a slot is reused once freed and unreferenced.
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "base/mt.h"

#include <string.h>

typedef struct {
    size_t size;
    int refs; /* nonblocking collectives using it */
    bool live;
} coll_dtype_t;

typedef struct {
    rcmsg_user_fn_t *fn;
    int refs;
    bool live, commute;
} coll_op_t;

static struct {
    coll_dtype_t *dtypes;
    size_t ndtypes, dtypes_cap;
    coll_op_t *ops;
    size_t nops, ops_cap;
} user;

static coll_dtype_t *dtype_of(rcmsg_datatype_t dtype)
{
    size_t i = (size_t)(unsigned)dtype - RCMSG_DATATYPE_COUNT;

    return (unsigned)dtype >= RCMSG_DATATYPE_COUNT && i < user.ndtypes ? &user.dtypes[i] : NULL;
}

static coll_op_t *op_of(rcmsg_op_t op)
{
    size_t i = (size_t)(unsigned)op - RCMSG_OP_COUNT;

    return (unsigned)op >= RCMSG_OP_COUNT && i < user.nops ? &user.ops[i] : NULL;
}

size_t rcmsg_coll_type_size(rcmsg_datatype_t dtype)
{
    coll_dtype_t *d;

    if ((unsigned)dtype < RCMSG_DATATYPE_COUNT) {
        return rcmsg_coll_dtype_size(dtype);
    }
    d = dtype_of(dtype);
    return d != NULL && d->live ? d->size : 0;
}

bool rcmsg_coll_op_user(rcmsg_op_t op)
{
    coll_op_t *o = op_of(op);

    return o != NULL && o->live;
}

bool rcmsg_coll_op_commutes(rcmsg_op_t op)
{
    coll_op_t *o;

    if ((unsigned)op < RCMSG_OP_COUNT) {
        return true; /* the predefined ones all commute */
    }
    o = op_of(op);
    return o == NULL || o->commute;
}

rcmsg_status_t rcmsg_coll_op_check(int coll, rcmsg_op_t op, rcmsg_datatype_t dtype)
{
    const char *call;

    if ((unsigned)op < RCMSG_OP_COUNT && rcmsg_coll_op_valid(op, dtype)) {
        return RCMSG_OK; /* the usual case first */
    }
    if (rcmsg_coll_op_user(op)) {
        return RCMSG_OK; /* a user operation works on every datatype */
    }
    call = rcmsg_coll_name(coll);
    if ((unsigned)op >= RCMSG_OP_COUNT) {
        rcmsg_error("rcmsg_%s: unknown operation %d", call, (int)op);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((unsigned)dtype >= RCMSG_DATATYPE_COUNT) {
        rcmsg_error(
            "rcmsg_%s: the predefined operation %s is not defined on the created datatype %d "
            "(a user operation is: rcmsg_op_create)",
            call, rcmsg_coll_op_name(op), (int)dtype);
        return RCMSG_ERR_UNSUPPORTED;
    }
    rcmsg_error("rcmsg_%s: operation %s is not defined on %s", call, rcmsg_coll_op_name(op),
                rcmsg_coll_dtype_name(dtype));
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_coll_apply(int coll, rcmsg_op_t op, rcmsg_datatype_t dtype, const void *x,
                                const void *y, void *out, size_t count)
{
    coll_op_t *o = op_of(op);
    rcmsg_status_t s;

    if (o == NULL) {
        s = rcmsg_coll_op_reduce3(op, dtype, x, y, out, count);
        if (s != RCMSG_OK) {
            rcmsg_error("%s: reduction %s on %s failed: %s", rcmsg_coll_name(coll),
                        rcmsg_coll_op_name(op), rcmsg_coll_dtype_name(dtype), rcmsg_strerror(s));
        }
        return s;
    }
    if (out == y) { /* the function's own form: inout = in op inout */
        o->fn(x, out, count, dtype, op);
    } else if (out == x && o->commute) {
        o->fn(y, out, count, dtype, op);
    } else if (out != x) {
        coll_dtype_t *d = dtype_of(dtype); /* freed or not: a collective may still hold it */

        memmove(out, y, count * (d != NULL ? d->size : rcmsg_coll_dtype_size(dtype)));
        o->fn(x, out, count, dtype, op);
    } else {
        rcmsg_error("%s: a non-commutative operation cannot reduce into its left operand (a bug)",
                    rcmsg_coll_name(coll));
        return RCMSG_ERR_STATE;
    }
    return RCMSG_OK;
}

void rcmsg_coll_user_ref(rcmsg_op_t op, rcmsg_datatype_t dtype)
{
    coll_op_t *o = op_of(op);
    coll_dtype_t *d = dtype_of(dtype);

    if (o != NULL) {
        o->refs++;
    }
    if (d != NULL) {
        d->refs++;
    }
}

void rcmsg_coll_user_unref(rcmsg_op_t op, rcmsg_datatype_t dtype)
{
    coll_op_t *o = op_of(op);
    coll_dtype_t *d = dtype_of(dtype);

    if (o != NULL && o->refs > 0) {
        o->refs--;
    }
    if (d != NULL && d->refs > 0) {
        d->refs--;
    }
}

/* A free slot of a table (one freed and unreferenced, or a new one): its index, or -1. */
#define SLOT_OF(tab, n, cap)                                                                       \
    ({                                                                                             \
        long _i = -1;                                                                              \
        for (size_t _k = 0; _k < (n); _k++) {                                                      \
            if (!(tab)[_k].live && (tab)[_k].refs == 0) {                                          \
                _i = (long)_k;                                                                     \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (_i < 0 && rcmsg_coll_table_grow((void **)&(tab), sizeof(*(tab)), &(cap), (n) + 1)) {   \
            _i = (long)(n)++;                                                                      \
        }                                                                                          \
        _i;                                                                                        \
    })

rcmsg_status_t rcmsg_datatype_create(size_t size, rcmsg_datatype_t *dtype_p)
{
    RCMSG_MT_GUARD();
    long i;

    if (dtype_p == NULL || size == 0 || size > SIZE_MAX / 8) {
        rcmsg_error("rcmsg_datatype_create: %s",
                    dtype_p == NULL ? "dtype_p is NULL" : "the size must be 1 byte or more");
        return RCMSG_ERR_INVALID_PARAM;
    }
    i = SLOT_OF(user.dtypes, user.ndtypes, user.dtypes_cap);
    if (i < 0 || (unsigned long)i > (unsigned long)INT32_MAX - RCMSG_DATATYPE_COUNT) {
        return RCMSG_ERR_NO_MEMORY;
    }
    user.dtypes[i] = (coll_dtype_t){.size = size, .live = true};
    *dtype_p = (rcmsg_datatype_t)(RCMSG_DATATYPE_COUNT + i);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_datatype_free(rcmsg_datatype_t *dtype_p)
{
    RCMSG_MT_GUARD();
    coll_dtype_t *d = dtype_p != NULL ? dtype_of(*dtype_p) : NULL;

    if (d == NULL || !d->live) {
        rcmsg_error("rcmsg_datatype_free: %s", dtype_p == NULL ? "dtype_p is NULL"
                                               : (unsigned)*dtype_p < RCMSG_DATATYPE_COUNT
                                                   ? "a predefined datatype cannot be freed"
                                                   : "not a datatype of rcmsg_datatype_create");
        return RCMSG_ERR_INVALID_PARAM;
    }
    d->live = false;
    *dtype_p = RCMSG_DATATYPE_NULL;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_op_create(rcmsg_user_fn_t *fn, int commute, rcmsg_op_t *op_p)
{
    RCMSG_MT_GUARD();
    long i;

    if (fn == NULL || op_p == NULL) {
        rcmsg_error("rcmsg_op_create: %s is NULL", fn == NULL ? "fn" : "op_p");
        return RCMSG_ERR_INVALID_PARAM;
    }
    i = SLOT_OF(user.ops, user.nops, user.ops_cap);
    if (i < 0 || (unsigned long)i > (unsigned long)INT32_MAX - RCMSG_OP_COUNT) {
        return RCMSG_ERR_NO_MEMORY;
    }
    user.ops[i] = (coll_op_t){.fn = fn, .commute = commute != 0, .live = true};
    *op_p = (rcmsg_op_t)(RCMSG_OP_COUNT + i);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_op_free(rcmsg_op_t *op_p)
{
    RCMSG_MT_GUARD();
    coll_op_t *o = op_p != NULL ? op_of(*op_p) : NULL;

    if (o == NULL || !o->live) {
        rcmsg_error("rcmsg_op_free: %s", op_p == NULL ? "op_p is NULL"
                                         : (unsigned)*op_p < RCMSG_OP_COUNT
                                             ? "a predefined operation cannot be freed"
                                             : "not an operation of rcmsg_op_create");
        return RCMSG_ERR_INVALID_PARAM;
    }
    o->live = false;
    *op_p = RCMSG_OP_NULL;
    return RCMSG_OK;
}
