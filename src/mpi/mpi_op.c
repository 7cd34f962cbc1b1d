/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction operations. A predefined operation applies a kernel of the element's C type,
 * chosen through the datatype: a predefined type names its kernel and its class (C integer,
 * floating point, logical, complex, byte, pair), and each operation is defined on the classes
 * MPI 3.1 section 5.9.2 lists for it. A derived type made of one basic type (the datatype
 * engine knows it as an rcmsg reduction type) is packed, reduced as that type and unpacked.
 * User operations (MPI_Op_create) call the user's function on the buffers as they are.
 *
 * Integer sums and products wrap modulo 2^bits (computed unsigned: no signed overflow), as
 * rcmsg's own reductions do, so both paths agree bit for bit.
 *
 * Handles: the predefined operations are static objects at the indices of mpi.h's MPI_OP_(n);
 * their slots in the handle table are reserved before the first user operation takes one.
 * Live user operations are kept on a list (reachable until Finalize, freed by the program's
 * MPI_Op_free).
 */
#include "mpi/mpi_impl.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

/* the classes of MPI 3.1, 5.9.2 (multi-language types, MPI_AINT..., count as C integer) */
enum {
    OPC_INT = 1,
    OPC_FLT = 2,
    OPC_LOGICAL = 4,
    OPC_CPLX = 8,
    OPC_BYTE = 16,
    OPC_PAIR = 32,
};

enum {
    OP_MAX = 1,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_BAND,
    OP_LOR,
    OP_BOR,
    OP_LXOR,
    OP_BXOR,
    OP_MINLOC,
    OP_MAXLOC,
};

typedef struct mpi_op {
    int index; /* OP_*: predefined; 0: a user operation */
    const char *name;
    int classes; /* predefined: the classes it is defined on */
    int rop;     /* predefined: the rcmsg_op_t, or -1 */
    MPI_User_function *fn;
    bool commute;
    MPI_Op handle;
    struct mpi_op *next; /* the list of live user operations */
} mpi_op_t;

static mpi_op_t op_predef[MPI_OP_PREDEFINED_COUNT_] = {
    [OP_MAX] = {OP_MAX, "MPI_MAX", OPC_INT | OPC_FLT, RCMSG_MAX, NULL, true, MPI_MAX, NULL},
    [OP_MIN] = {OP_MIN, "MPI_MIN", OPC_INT | OPC_FLT, RCMSG_MIN, NULL, true, MPI_MIN, NULL},
    [OP_SUM] = {OP_SUM, "MPI_SUM", OPC_INT | OPC_FLT | OPC_CPLX, RCMSG_SUM, NULL, true, MPI_SUM,
                NULL},
    [OP_PROD] = {OP_PROD, "MPI_PROD", OPC_INT | OPC_FLT | OPC_CPLX, RCMSG_PROD, NULL, true,
                 MPI_PROD, NULL},
    [OP_LAND] = {OP_LAND, "MPI_LAND", OPC_INT | OPC_LOGICAL, RCMSG_LAND, NULL, true, MPI_LAND,
                 NULL},
    [OP_BAND] = {OP_BAND, "MPI_BAND", OPC_INT | OPC_BYTE, RCMSG_BAND, NULL, true, MPI_BAND, NULL},
    [OP_LOR] = {OP_LOR, "MPI_LOR", OPC_INT | OPC_LOGICAL, RCMSG_LOR, NULL, true, MPI_LOR, NULL},
    [OP_BOR] = {OP_BOR, "MPI_BOR", OPC_INT | OPC_BYTE, RCMSG_BOR, NULL, true, MPI_BOR, NULL},
    [OP_LXOR] = {OP_LXOR, "MPI_LXOR", OPC_INT | OPC_LOGICAL, RCMSG_LXOR, NULL, true, MPI_LXOR,
                 NULL},
    [OP_BXOR] = {OP_BXOR, "MPI_BXOR", OPC_INT | OPC_BYTE, RCMSG_BXOR, NULL, true, MPI_BXOR, NULL},
    [OP_MINLOC] = {OP_MINLOC, "MPI_MINLOC", OPC_PAIR, -1, NULL, true, MPI_MINLOC, NULL},
    [OP_MAXLOC] = {OP_MAXLOC, "MPI_MAXLOC", OPC_PAIR, -1, NULL, true, MPI_MAXLOC, NULL},
};

static mpi_op_t *op_users; /* live user operations */

/* ---- kernels: io[i] = in[i] op io[i] ------------------------------------------------------ */
typedef void op_kernel_t(int op, const void *in, void *io, size_t n);

#define OP_LOOP(T, expr)                                                                           \
    for (size_t i = 0; i < n; i++) {                                                               \
        T a = in[i], b = io[i];                                                                    \
        io[i] = (T)(expr);                                                                         \
    }                                                                                              \
    break

#define OP_INT_KERNEL(name, T)                                                                     \
    static void name(int op, const void *in_, void *io_, size_t n)                                 \
    {                                                                                              \
        const T *in = in_;                                                                         \
        T *io = io_;                                                                               \
        typedef unsigned long long u_t;                                                            \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            OP_LOOP(T, a > b ? a : b);                                                             \
        case OP_MIN:                                                                               \
            OP_LOOP(T, a < b ? a : b);                                                             \
        case OP_SUM:                                                                               \
            OP_LOOP(T, (u_t)a + (u_t)b);                                                           \
        case OP_PROD:                                                                              \
            OP_LOOP(T, (u_t)a *(u_t)b);                                                            \
        case OP_LAND:                                                                              \
            OP_LOOP(T, a &&b);                                                                     \
        case OP_LOR:                                                                               \
            OP_LOOP(T, a || b);                                                                    \
        case OP_LXOR:                                                                              \
            OP_LOOP(T, !a != !b);                                                                  \
        case OP_BAND:                                                                              \
            OP_LOOP(T, a &b);                                                                      \
        case OP_BOR:                                                                               \
            OP_LOOP(T, a | b);                                                                     \
        case OP_BXOR:                                                                              \
            OP_LOOP(T, a ^ b);                                                                     \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

#define OP_FLT_KERNEL(name, T)                                                                     \
    static void name(int op, const void *in_, void *io_, size_t n)                                 \
    {                                                                                              \
        const T *in = in_;                                                                         \
        T *io = io_;                                                                               \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            OP_LOOP(T, a > b ? a : b);                                                             \
        case OP_MIN:                                                                               \
            OP_LOOP(T, a < b ? a : b);                                                             \
        case OP_SUM:                                                                               \
            OP_LOOP(T, a + b);                                                                     \
        case OP_PROD:                                                                              \
            OP_LOOP(T, a *b);                                                                      \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

#define OP_CPLX_KERNEL(name, T)                                                                    \
    static void name(int op, const void *in_, void *io_, size_t n)                                 \
    {                                                                                              \
        const T *in = in_;                                                                         \
        T *io = io_;                                                                               \
        switch (op) {                                                                              \
        case OP_SUM:                                                                               \
            OP_LOOP(T, a + b);                                                                     \
        case OP_PROD:                                                                              \
            OP_LOOP(T, a *b);                                                                      \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

/* MINLOC/MAXLOC: the better value; on a tie, the smaller index */
#define OP_PAIR_KERNEL(name, VT)                                                                   \
    static void name(int op, const void *in_, void *io_, size_t n)                                 \
    {                                                                                              \
        const struct {                                                                             \
            VT v;                                                                                  \
            int i;                                                                                 \
        } *in = in_;                                                                               \
        struct {                                                                                   \
            VT v;                                                                                  \
            int i;                                                                                 \
        } *io = io_;                                                                               \
        for (size_t k = 0; k < n; k++) {                                                           \
            bool better = op == OP_MINLOC ? in[k].v < io[k].v : in[k].v > io[k].v;                 \
            if (better) {                                                                          \
                io[k].v = in[k].v;                                                                 \
                io[k].i = in[k].i;                                                                 \
            } else if (in[k].v == io[k].v && in[k].i < io[k].i) {                                  \
                io[k].i = in[k].i;                                                                 \
            }                                                                                      \
        }                                                                                          \
    }

OP_INT_KERNEL(op_schar, signed char)
OP_INT_KERNEL(op_uchar, unsigned char)
OP_INT_KERNEL(op_short, short)
OP_INT_KERNEL(op_ushort, unsigned short)
OP_INT_KERNEL(op_int, int)
OP_INT_KERNEL(op_uint, unsigned)
OP_INT_KERNEL(op_long, long)
OP_INT_KERNEL(op_ulong, unsigned long)
OP_INT_KERNEL(op_llong, long long)
OP_INT_KERNEL(op_ullong, unsigned long long)

static void op_bool(int op, const void *in_, void *io_, size_t n)
{
    const _Bool *in = in_;
    _Bool *io = io_;

    switch (op) {
    case OP_LAND:
        OP_LOOP(_Bool, a && b);
    case OP_LOR:
        OP_LOOP(_Bool, a || b);
    case OP_LXOR:
        OP_LOOP(_Bool, a != b);
    default:
        break;
    }
}

OP_INT_KERNEL(op_i8, int8_t)
OP_INT_KERNEL(op_i16, int16_t)
OP_INT_KERNEL(op_i32, int32_t)
OP_INT_KERNEL(op_i64, int64_t)
OP_INT_KERNEL(op_u8, uint8_t)
OP_INT_KERNEL(op_u16, uint16_t)
OP_INT_KERNEL(op_u32, uint32_t)
OP_INT_KERNEL(op_u64, uint64_t)
OP_INT_KERNEL(op_aint, MPI_Aint)
OP_FLT_KERNEL(op_float, float)
OP_FLT_KERNEL(op_double, double)
OP_FLT_KERNEL(op_ldouble, long double)
OP_CPLX_KERNEL(op_cfloat, float _Complex)
OP_CPLX_KERNEL(op_cdouble, double _Complex)
OP_CPLX_KERNEL(op_cldouble, long double _Complex)
OP_PAIR_KERNEL(op_float_int, float)
OP_PAIR_KERNEL(op_double_int, double)
OP_PAIR_KERNEL(op_long_int, long)
OP_PAIR_KERNEL(op_2int, int)
OP_PAIR_KERNEL(op_short_int, short)
OP_PAIR_KERNEL(op_long_double_int, long double)

/* X(datatype, class, kernel): every predefined datatype (class 0: no operation on it) */
#define OP_TYPE_LIST(X)                                                                            \
    X(MPI_CHAR, 0, NULL)                                                                           \
    X(MPI_SIGNED_CHAR, OPC_INT, op_schar)                                                          \
    X(MPI_UNSIGNED_CHAR, OPC_INT, op_uchar)                                                        \
    X(MPI_BYTE, OPC_BYTE, op_uchar)                                                                \
    X(MPI_WCHAR, 0, NULL)                                                                          \
    X(MPI_SHORT, OPC_INT, op_short)                                                                \
    X(MPI_UNSIGNED_SHORT, OPC_INT, op_ushort)                                                      \
    X(MPI_INT, OPC_INT, op_int)                                                                    \
    X(MPI_UNSIGNED, OPC_INT, op_uint)                                                              \
    X(MPI_LONG, OPC_INT, op_long)                                                                  \
    X(MPI_UNSIGNED_LONG, OPC_INT, op_ulong)                                                        \
    X(MPI_LONG_LONG_INT, OPC_INT, op_llong)                                                        \
    X(MPI_UNSIGNED_LONG_LONG, OPC_INT, op_ullong)                                                  \
    X(MPI_FLOAT, OPC_FLT, op_float)                                                                \
    X(MPI_DOUBLE, OPC_FLT, op_double)                                                              \
    X(MPI_LONG_DOUBLE, OPC_FLT, op_ldouble)                                                        \
    X(MPI_C_BOOL, OPC_LOGICAL, op_bool)                                                            \
    X(MPI_INT8_T, OPC_INT, op_i8)                                                                  \
    X(MPI_INT16_T, OPC_INT, op_i16)                                                                \
    X(MPI_INT32_T, OPC_INT, op_i32)                                                                \
    X(MPI_INT64_T, OPC_INT, op_i64)                                                                \
    X(MPI_UINT8_T, OPC_INT, op_u8)                                                                 \
    X(MPI_UINT16_T, OPC_INT, op_u16)                                                               \
    X(MPI_UINT32_T, OPC_INT, op_u32)                                                               \
    X(MPI_UINT64_T, OPC_INT, op_u64)                                                               \
    X(MPI_AINT, OPC_INT, op_aint)                                                                  \
    X(MPI_COUNT, OPC_INT, op_llong)                                                                \
    X(MPI_OFFSET, OPC_INT, op_llong)                                                               \
    X(MPI_C_FLOAT_COMPLEX, OPC_CPLX, op_cfloat)                                                    \
    X(MPI_C_DOUBLE_COMPLEX, OPC_CPLX, op_cdouble)                                                  \
    X(MPI_C_LONG_DOUBLE_COMPLEX, OPC_CPLX, op_cldouble)                                            \
    X(MPI_PACKED, 0, NULL)                                                                         \
    X(MPI_FLOAT_INT, OPC_PAIR, op_float_int)                                                       \
    X(MPI_DOUBLE_INT, OPC_PAIR, op_double_int)                                                     \
    X(MPI_LONG_INT, OPC_PAIR, op_long_int)                                                         \
    X(MPI_2INT, OPC_PAIR, op_2int)                                                                 \
    X(MPI_SHORT_INT, OPC_PAIR, op_short_int)                                                       \
    X(MPI_LONG_DOUBLE_INT, OPC_PAIR, op_long_double_int)

typedef struct {
    const char *name;
    int cls;
    op_kernel_t *kernel;
} op_type_t;

static const op_type_t op_types[MPI_DT_PREDEFINED_COUNT_] = {
#define OP_TYPE_ENTRY(dt, cls, kernel) [(dt)&MPI_HANDLE_INDEX_MASK] = {#dt, cls, kernel},
    OP_TYPE_LIST(OP_TYPE_ENTRY)
#undef OP_TYPE_ENTRY
};

/* the kernels of the basic types of derived ones, by rcmsg type */
static op_kernel_t *const op_rdt_kernels[RCMSG_DATATYPE_COUNT] = {
    [RCMSG_INT8] = op_i8,       [RCMSG_UINT8] = op_u8,   [RCMSG_INT16] = op_i16,
    [RCMSG_UINT16] = op_u16,    [RCMSG_INT32] = op_i32,  [RCMSG_UINT32] = op_u32,
    [RCMSG_INT64] = op_i64,     [RCMSG_UINT64] = op_u64, [RCMSG_FLOAT] = op_float,
    [RCMSG_DOUBLE] = op_double,
};

/* ---- lookups ------------------------------------------------------------------------------ */
static mpi_op_t *op_get(MPI_Op op)
{
    unsigned idx = (unsigned)op & MPI_HANDLE_INDEX_MASK;

    if (((unsigned)op >> MPI_HANDLE_KIND_SHIFT) != MPI_KIND_OP_) {
        return NULL;
    }
    if (idx > 0 && idx < MPI_OP_PREDEFINED_COUNT_) {
        return &op_predef[idx];
    }
    return mpi_handle_get(MPI_KIND_OP_, op);
}

/* The predefined type dt is, or NULL for a derived one. */
static const op_type_t *op_type_predef(MPI_Datatype dt)
{
    unsigned idx = (unsigned)dt & MPI_HANDLE_INDEX_MASK;

    if (((unsigned)dt >> MPI_HANDLE_KIND_SHIFT) != MPI_KIND_DATATYPE_ || idx == 0 ||
        idx >= MPI_DT_PREDEFINED_COUNT_) {
        return NULL;
    }
    return &op_types[idx];
}

/* The class and kernel of dt's elements (class 0: no predefined operation is defined). */
static int op_type_class(MPI_Datatype dt, op_kernel_t **kernel_p, rcmsg_datatype_t *rdt_p)
{
    const op_type_t *pt = op_type_predef(dt);
    mpi_type_t *t = mpi_type_get(dt);
    rcmsg_datatype_t rdt;
    bool ok = false;

    if (pt != NULL) {
        *kernel_p = pt->kernel;
        return pt->cls;
    }
    if (t == NULL) {
        return 0;
    }
    rdt = mpi_type_rcmsg(t, &ok);
    if (!ok || rdt >= RCMSG_DATATYPE_COUNT) {
        return 0;
    }
    *kernel_p = op_rdt_kernels[rdt];
    *rdt_p = rdt;
    return rdt == RCMSG_FLOAT || rdt == RCMSG_DOUBLE ? OPC_FLT : OPC_INT;
}

/* ---- the internal interface (mpi_impl.h) --------------------------------------------------- */
int mpi_op_check(mpi_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt)
{
    mpi_op_t *o = op_get(op);
    mpi_type_t *t = mpi_type_get(dt);
    const op_type_t *pt = op_type_predef(dt);
    op_kernel_t *kernel = NULL;
    rcmsg_datatype_t rdt;

    if (o == NULL) {
        return mpi_err(c, call, MPI_ERR_OP,
                       op == MPI_OP_NULL ? "MPI_OP_NULL is not an operation"
                                         : "invalid operation %#x",
                       (unsigned)op);
    }
    if (t == NULL || !mpi_type_committed(t)) {
        return mpi_err(c, call, MPI_ERR_TYPE,
                       t == NULL ? "invalid datatype %#x" : "datatype %#x is not committed",
                       (unsigned)dt);
    }
    if (o->index == 0 || (op_type_class(dt, &kernel, &rdt) & o->classes) != 0) {
        return MPI_SUCCESS;
    }
    if (pt != NULL) {
        return mpi_err(c, call, MPI_ERR_OP, "%s is not defined on %s", o->name, pt->name);
    }
    return mpi_err(c, call, MPI_ERR_OP,
                   "%s is not defined on derived datatype %#x (predefined operations take "
                   "derived types of one basic integer or floating-point type)",
                   o->name, (unsigned)dt);
}

bool mpi_op_commutative(MPI_Op op)
{
    mpi_op_t *o = op_get(op);

    return o == NULL || o->commute;
}

bool mpi_op_rcmsg(MPI_Op op, MPI_Datatype dt, rcmsg_op_t *op_p, rcmsg_datatype_t *dt_p)
{
    mpi_op_t *o = op_get(op);
    mpi_type_t *t = mpi_type_get(dt);
    op_kernel_t *kernel = NULL;
    rcmsg_datatype_t rdt;
    bool ok = false;
    int cls;

    if (o == NULL || t == NULL || o->rop < 0) {
        return false;
    }
    cls = op_type_class(dt, &kernel, &rdt);
    if ((cls & o->classes) == 0 || (cls & (OPC_INT | OPC_FLT | OPC_LOGICAL | OPC_BYTE)) == 0) {
        return false;
    }
    rdt = mpi_type_rcmsg(t, &ok);
    if (!ok) {
        return false; /* long double */
    }
    *op_p = (rcmsg_op_t)o->rop;
    *dt_p = rdt;
    return true;
}

/* A predefined op on a derived type: pack both, reduce the basic elements, unpack. */
static int op_apply_derived(mpi_op_t *o, op_kernel_t *kernel, rcmsg_datatype_t rdt, const void *in,
                            void *inout, int count, mpi_type_t *t)
{
    size_t bytes = mpi_type_size(t) * (size_t)count;
    char *a = malloc(bytes > 0 ? 2 * bytes : 1);

    if (a == NULL) {
        return MPI_ERR_NO_MEM;
    }
    mpi_type_pack(t, in, (size_t)count, a);
    mpi_type_pack(t, inout, (size_t)count, a + bytes);
    kernel(o->index, a, a + bytes, bytes / rcmsg_datatype_size(rdt));
    mpi_type_unpack(t, a + bytes, (size_t)count, inout);
    free(a);
    return MPI_SUCCESS;
}

int mpi_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt)
{
    mpi_op_t *o = op_get(op);
    mpi_type_t *t = mpi_type_get(dt);
    op_kernel_t *kernel = NULL;
    rcmsg_datatype_t rdt = RCMSG_UINT8;
    int cls;

    if (o == NULL || t == NULL) {
        return o == NULL ? MPI_ERR_OP : MPI_ERR_TYPE;
    }
    if (count <= 0) {
        return MPI_SUCCESS;
    }
    if (o->index == 0) {
        o->fn((void *)in, inout, &count, &dt);
        return MPI_SUCCESS;
    }
    cls = op_type_class(dt, &kernel, &rdt);
    if ((cls & o->classes) == 0 || kernel == NULL) {
        return MPI_ERR_OP;
    }
    if (op_type_predef(dt) == NULL) {
        return op_apply_derived(o, kernel, rdt, in, inout, count, t);
    }
    kernel(o->index, in, inout, (size_t)count);
    return MPI_SUCCESS;
}

/* ---- the MPI calls ------------------------------------------------------------------------- */

/* the predefined operations' slots, so that user operations get other indices */
static int op_reserve(void)
{
    int err = MPI_SUCCESS;

    for (int i = 1; i < MPI_OP_PREDEFINED_COUNT_ && err == MPI_SUCCESS; i++) {
        if (mpi_handle_get(MPI_KIND_OP_, op_predef[i].handle) == NULL) {
            err = mpi_handle_set(MPI_KIND_OP_, i, &op_predef[i]);
        }
    }
    return err;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    mpi_op_t *o;
    int err;

    MPI_CHECK_ACTIVE("MPI_Op_create");
    if (user_fn == NULL || op == NULL) {
        return mpi_err(NULL, "MPI_Op_create", MPI_ERR_ARG, "NULL %s",
                       user_fn == NULL ? "user function" : "op");
    }
    o = calloc(1, sizeof(*o));
    err = o == NULL ? MPI_ERR_NO_MEM : op_reserve();
    if (err == MPI_SUCCESS) {
        err = mpi_handle_alloc(MPI_KIND_OP_, o, &o->handle);
    }
    if (err != MPI_SUCCESS) {
        free(o);
        return mpi_err(NULL, "MPI_Op_create", err, "out of memory for a new operation");
    }
    o->name = "user operation";
    o->rop = -1;
    o->fn = user_fn;
    o->commute = commute != 0;
    o->next = op_users;
    op_users = o;
    *op = o->handle;
    return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op)
{
    mpi_op_t *o;
    mpi_op_t **pp;

    MPI_CHECK_ACTIVE("MPI_Op_free");
    o = op != NULL ? op_get(*op) : NULL;
    if (o == NULL || o->index != 0) {
        return mpi_err(NULL, "MPI_Op_free", MPI_ERR_OP, "%s",
                       o != NULL ? "a predefined operation cannot be freed" : "invalid operation");
    }
    for (pp = &op_users; *pp != o; pp = &(*pp)->next) {
    }
    *pp = o->next;
    mpi_handle_release(MPI_KIND_OP_, o->handle);
    free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    mpi_op_t *o;

    MPI_CHECK_ACTIVE("MPI_Op_commutative");
    o = op_get(op);
    if (o == NULL || commute == NULL) {
        return mpi_err(NULL, "MPI_Op_commutative", o == NULL ? MPI_ERR_OP : MPI_ERR_ARG, "%s",
                       o == NULL ? "invalid operation" : "NULL commute");
    }
    *commute = o->commute;
    return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    int err;

    MPI_CHECK_ACTIVE("MPI_Reduce_local");
    if (count < 0) {
        return mpi_err(NULL, "MPI_Reduce_local", MPI_ERR_COUNT, "negative count %d", count);
    }
    err = mpi_op_check(NULL, "MPI_Reduce_local", op, datatype);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
        return mpi_err(NULL, "MPI_Reduce_local", MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed");
    }
    err = mpi_op_apply(op, inbuf, inoutbuf, count, datatype);
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, "MPI_Reduce_local", err, "out of memory");
    }
    return MPI_SUCCESS;
}
