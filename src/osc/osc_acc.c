/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided: accumulates (rcmsg.h). Always by message (osc_am.c), whatever the transport: the
 * target applies each request whole in its progress hook, one at a time, so the accumulates
 * on a location are atomic with each other element by element (MPI's rule), the target's own
 * ones included (they go to itself the same way). Longer ones go in pieces of whole elements.
 */
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "base/mt.h"
#include "collectives/coll_op.h"

#include <string.h>

/* The checks of an accumulate: a basic datatype, an operation it has, the bytes in the
 * window (osc_check's, by the element size). */
static rcmsg_status_t osc_acc_check(const char *call, rcmsg_win_t win, int target, size_t disp,
                                    size_t count, rcmsg_datatype_t dtype, rcmsg_op_t op,
                                    size_t *esize_p)
{
    size_t esize = (unsigned)dtype < RCMSG_DATATYPE_COUNT ? rcmsg_coll_dtype_size(dtype) : 0;

    if (esize == 0) {
        rcmsg_error("%s: the datatype must be a basic one", call);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (op != RCMSG_OP_REPLACE && op != RCMSG_OP_NO_OP &&
        ((unsigned)op >= RCMSG_OP_COUNT || !rcmsg_coll_op_valid(op, dtype))) {
        rcmsg_error("%s: operation %d is not defined on %s", call, (int)op,
                    rcmsg_coll_dtype_name(dtype));
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (count > SIZE_MAX / esize) {
        rcmsg_error("%s: count %zu is too large", call, count);
        return RCMSG_ERR_INVALID_PARAM;
    }
    *esize_p = esize;
    return osc_check(call, win, target, disp, count * esize, false);
}

static rcmsg_status_t osc_acc(rcmsg_win_t win, osc_am_kind_t kind, const void *origin, void *result,
                              size_t count, size_t esize, rcmsg_datatype_t dtype, rcmsg_op_t op,
                              int target, size_t disp)
{
    size_t len = count * esize, max = OSC_AM_MAX / esize * esize;
    rcmsg_status_t s = RCMSG_OK;

    for (size_t off = 0; s == RCMSG_OK && off < len; off += max) {
        size_t piece = len - off < max ? len - off : max;
        s = osc_am_start(
            win, &(osc_am_call_t){.kind = kind,
                                  .target = target,
                                  .disp = disp + off,
                                  .len = piece,
                                  .data = origin != NULL ? (const char *)origin + off : NULL,
                                  .dlen = origin != NULL ? piece : 0,
                                  .result = result != NULL ? (char *)result + off : NULL,
                                  .rlen = kind == OSC_AM_GACC ? piece : 0,
                                  .operand = (uint64_t)(int64_t)op,
                                  .compare = (uint64_t)dtype});
    }
    return s;
}

rcmsg_status_t rcmsg_accumulate(const void *origin, size_t count, rcmsg_datatype_t dtype,
                                rcmsg_op_t op, int target, size_t disp, rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    size_t esize;
    rcmsg_status_t s =
        osc_acc_check("rcmsg_accumulate", win, target, disp, count, dtype, op, &esize);

    if (s == RCMSG_OK && origin == NULL && count > 0) {
        rcmsg_error("rcmsg_accumulate: origin is NULL");
        s = RCMSG_ERR_INVALID_PARAM;
    }
    if (s == RCMSG_OK && op == RCMSG_OP_NO_OP) {
        return RCMSG_OK; /* nothing changes, nothing is answered */
    }
    return s != RCMSG_OK
               ? s
               : osc_acc(win, OSC_AM_ACC, origin, NULL, count, esize, dtype, op, target, disp);
}

rcmsg_status_t rcmsg_get_accumulate(const void *origin, void *result, size_t count,
                                    rcmsg_datatype_t dtype, rcmsg_op_t op, int target, size_t disp,
                                    rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    static const char call[] = "rcmsg_get_accumulate";
    size_t esize;
    rcmsg_status_t s = osc_acc_check(call, win, target, disp, count, dtype, op, &esize);
    /* NO_OP sends no data: the request carries as many zero bytes, not read */
    static const char zeros[OSC_AM_MAX];

    if (s == RCMSG_OK && count > 0 &&
        ((origin == NULL && op != RCMSG_OP_NO_OP) || result == NULL)) {
        rcmsg_error("%s: %s is NULL", call, result == NULL ? "result" : "origin");
        s = RCMSG_ERR_INVALID_PARAM;
    }
    if (s == RCMSG_OK && op == RCMSG_OP_NO_OP) {
        origin = NULL;
        for (size_t off = 0; s == RCMSG_OK && off < count * esize; off += OSC_AM_MAX) {
            size_t piece = count * esize - off < OSC_AM_MAX ? count * esize - off : OSC_AM_MAX;
            s = osc_acc(win, OSC_AM_GACC, zeros, (char *)result + off, piece / esize, esize, dtype,
                        op, target, disp + off);
        }
        return s;
    }
    return s != RCMSG_OK
               ? s
               : osc_acc(win, OSC_AM_GACC, origin, result, count, esize, dtype, op, target, disp);
}

rcmsg_status_t rcmsg_acc_compare_swap(const void *compare, const void *swap, void *result,
                                      rcmsg_datatype_t dtype, int target, size_t disp,
                                      rcmsg_win_t win)
{
    RCMSG_MT_GUARD();
    static const char call[] = "rcmsg_acc_compare_swap";
    char data[16];
    size_t esize;
    rcmsg_status_t s = osc_acc_check(call, win, target, disp, 1, dtype, RCMSG_OP_REPLACE, &esize);

    if (s == RCMSG_OK && (compare == NULL || swap == NULL || result == NULL)) {
        rcmsg_error("%s: compare, swap and result must not be NULL", call);
        s = RCMSG_ERR_INVALID_PARAM;
    }
    if (s != RCMSG_OK) {
        return s;
    }
    memcpy(data, compare, esize);
    memcpy(data + esize, swap, esize);
    return osc_am_start(win, &(osc_am_call_t){.kind = OSC_AM_ACAS,
                                              .target = target,
                                              .disp = disp,
                                              .len = esize,
                                              .data = data,
                                              .dlen = 2 * esize,
                                              .result = result,
                                              .rlen = esize,
                                              .compare = (uint64_t)dtype});
}
