/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatypes of the MPI face: the predefined types, the constructors, commit/dup/free, size
 * and extents. A type is flattened at construction (mpi_type.h); mpi_pack.c moves the data. */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_type.h"

#include <complex.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- building a type from placements ---- */

static mpi_type_t *type_live; /* every derived type not yet destroyed */

/* Append the block (off, len) to t, merged into the last block when adjacent. */
static int type_add_block(mpi_type_t *t, size_t *cap_p, MPI_Aint off, size_t len)
{
    mpi_type_block_t *last = t->nblocks ? &t->blocks[t->nblocks - 1] : NULL;

    if (len == 0) {
        return MPI_SUCCESS;
    }
    if (last != NULL && last->off + (MPI_Aint)last->len == off) {
        last->len += len;
        return MPI_SUCCESS;
    }
    if (t->nblocks == *cap_p) {
        size_t cap = *cap_p ? 2 * *cap_p : 4;
        mpi_type_block_t *b = realloc(t->blocks, cap * sizeof(*b));

        if (b == NULL) {
            return MPI_ERR_NO_MEM;
        }
        t->blocks = b;
        *cap_p = cap;
    }
    t->blocks[t->nblocks++] = (mpi_type_block_t){.off = off, .len = len};
    return MPI_SUCCESS;
}

/* Append the blocks of p->count elements of p->child at p->disp. */
static int type_add_place_blocks(mpi_type_t *t, size_t *cap_p, const mpi_type_place_t *p)
{
    const mpi_type_t *c = p->child;
    int rc = MPI_SUCCESS;

    if (c->contig) {
        return type_add_block(t, cap_p, p->disp + c->true_lb, p->count * c->size);
    }
    for (size_t j = 0; j < p->count && rc == MPI_SUCCESS; j++) {
        MPI_Aint base = p->disp + (MPI_Aint)j * c->extent;

        for (size_t k = 0; k < c->nblocks && rc == MPI_SUCCESS; k++) {
            rc = type_add_block(t, cap_p, base + c->blocks[k].off, c->blocks[k].len);
        }
    }
    return rc;
}

/* Append count copies of child to the signature (merged with the last run of the same child);
 * the run holds a reference on child. */
static int type_add_sig(mpi_type_t *t, mpi_type_t *child, size_t count)
{
    mpi_type_sig_t *s;

    if (t->nsig > 0 && t->sig[t->nsig - 1].child == child) {
        t->sig[t->nsig - 1].count += count;
        return MPI_SUCCESS;
    }
    s = realloc(t->sig, (t->nsig + 1) * sizeof(*s));
    if (s == NULL) {
        return MPI_ERR_NO_MEM;
    }
    t->sig = s;
    t->sig[t->nsig++] = (mpi_type_sig_t){.child = child, .count = count};
    mpi_type_retain(child);
    return MPI_SUCCESS;
}

/* Widen [*lo_p, *hi_p) to the span [disp + lo + min(0, step), disp + hi + max(0, step)) of
 * count copies spaced by ext (step = (count - 1) * ext). */
static void type_span(bool *first_p, MPI_Aint *lo_p, MPI_Aint *hi_p, MPI_Aint disp, MPI_Aint lo,
                      MPI_Aint hi, MPI_Aint ext, size_t count)
{
    MPI_Aint step = (MPI_Aint)(count - 1) * ext;
    MPI_Aint a = disp + lo + (step < 0 ? step : 0);
    MPI_Aint b = disp + hi + (step > 0 ? step : 0);

    if (*first_p || a < *lo_p) {
        *lo_p = a;
    }
    if (*first_p || b > *hi_p) {
        *hi_p = b;
    }
    *first_p = false;
}

/* contig: count elements are one block at buf + true_lb. rdt_ok: every basic element of a
 * derived type is the same rcmsg reduction type. */
static void type_finish(mpi_type_t *t)
{
    if (!t->predefined) {
        t->rdt_ok = t->nsig > 0;
        for (size_t i = 0; i < t->nsig && t->rdt_ok; i++) {
            t->rdt_ok = t->sig[i].child->rdt_ok && t->sig[i].child->rdt == t->sig[0].child->rdt;
        }
        t->rdt = t->nsig > 0 ? t->sig[0].child->rdt : RCMSG_UINT8;
    }
    if (t->size == 0) {
        t->true_lb = t->true_ub = 0;
    }
    t->contig = t->size == 0 || (t->nblocks == 1 && t->extent == (MPI_Aint)t->size);
}

/* Size, basic count, bounds and alignment of one placement. */
static int type_add_place(mpi_type_t *t, const mpi_type_place_t *p, bool *first_p, bool *tfirst_p,
                          MPI_Aint *ub_p)
{
    const mpi_type_t *c = p->child;
    size_t bytes;

    if (__builtin_mul_overflow(p->count, c->size, &bytes) ||
        __builtin_add_overflow(t->size, bytes, &t->size)) {
        return MPI_ERR_ARG;
    }
    t->basic += (MPI_Count)p->count * c->basic;
    t->align = c->align > t->align ? c->align : t->align;
    type_span(first_p, &t->lb, ub_p, p->disp, c->lb, c->lb + c->extent, c->extent, p->count);
    if (c->size > 0) {
        type_span(tfirst_p, &t->true_lb, &t->true_ub, p->disp, c->true_lb, c->true_ub, c->extent,
                  p->count);
    }
    return MPI_SUCCESS;
}

int mpi_type_build(const mpi_type_place_t *place, size_t n, bool is_struct, mpi_type_t **type_p)
{
    mpi_type_t *t = calloc(1, sizeof(*t));
    bool first = true, tfirst = true;
    size_t cap = 0;
    MPI_Aint ub = 0;
    int rc = MPI_SUCCESS;

    if (t == NULL) {
        return MPI_ERR_NO_MEM;
    }
    t->refs = 1;
    t->align = 1;
    t->handle = MPI_DATATYPE_NULL;
    t->next = type_live;
    if (type_live != NULL) {
        type_live->prev = t;
    }
    type_live = t;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (place[i].count == 0) {
            continue;
        }
        rc = type_add_place(t, &place[i], &first, &tfirst, &ub);
        if (rc == MPI_SUCCESS) {
            rc = type_add_place_blocks(t, &cap, &place[i]);
        }
        if (rc == MPI_SUCCESS) {
            rc = type_add_sig(t, place[i].child, place[i].count);
        }
    }
    if (rc != MPI_SUCCESS) {
        mpi_type_release(t);
        return rc;
    }
    t->extent = ub - t->lb;
    if (is_struct && t->extent % (MPI_Aint)t->align != 0) {
        t->extent += (MPI_Aint)t->align - t->extent % (MPI_Aint)t->align;
    }
    type_finish(t);
    *type_p = t;
    return MPI_SUCCESS;
}

int mpi_type_build_resized(mpi_type_t *old, MPI_Aint lb, MPI_Aint extent, mpi_type_t **type_p)
{
    mpi_type_place_t p = {.child = old, .disp = 0, .count = 1};
    mpi_type_t *t = NULL;
    int rc = mpi_type_build(&p, 1, false, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->lb = lb;
    t->extent = extent;
    type_finish(t);
    *type_p = t;
    return MPI_SUCCESS;
}

static void type_unlink(mpi_type_t *t)
{
    if (t->prev != NULL) {
        t->prev->next = t->next;
    } else {
        type_live = t->next;
    }
    if (t->next != NULL) {
        t->next->prev = t->prev;
    }
    t->prev = t->next = NULL;
}

void mpi_type_retain(mpi_type_t *t)
{
    t->refs++;
}

void mpi_type_release(mpi_type_t *t)
{
    if (t == NULL || t->predefined || --t->refs > 0) {
        return;
    }
    for (size_t i = 0; i < t->nsig; i++) {
        mpi_type_release(t->sig[i].child);
    }
    type_unlink(t);
    free(t->sig);
    free(t->blocks);
    free(t);
}

/* Release the handles the program did not free (a release can free other types of the list:
 * start over after each). */
void mpi_type_fini(void)
{
    mpi_type_t *t = type_live;

    while (t != NULL) {
        if (t->handle == MPI_DATATYPE_NULL) {
            t = t->next;
            continue;
        }
        t->handle = MPI_DATATYPE_NULL;
        mpi_type_release(t);
        t = type_live;
    }
}

/* ---- predefined types ---- */

/* X(handle, C type, kind): the basic types; kind INT (integer reductions by size and
 * signedness), FLT (float/double), NONE (no rcmsg reduction type). */
#define MPI_TYPE_BASIC_LIST(X)                                                                     \
    X(MPI_CHAR, char, INT)                                                                         \
    X(MPI_SIGNED_CHAR, signed char, INT)                                                           \
    X(MPI_UNSIGNED_CHAR, unsigned char, INT)                                                       \
    X(MPI_BYTE, unsigned char, INT)                                                                \
    X(MPI_WCHAR, wchar_t, INT)                                                                     \
    X(MPI_SHORT, short, INT)                                                                       \
    X(MPI_UNSIGNED_SHORT, unsigned short, INT)                                                     \
    X(MPI_INT, int, INT)                                                                           \
    X(MPI_UNSIGNED, unsigned, INT)                                                                 \
    X(MPI_LONG, long, INT)                                                                         \
    X(MPI_UNSIGNED_LONG, unsigned long, INT)                                                       \
    X(MPI_LONG_LONG_INT, long long, INT)                                                           \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, INT)                                             \
    X(MPI_FLOAT, float, FLT)                                                                       \
    X(MPI_DOUBLE, double, FLT)                                                                     \
    X(MPI_LONG_DOUBLE, long double, NONE)                                                          \
    X(MPI_C_BOOL, _Bool, INT)                                                                      \
    X(MPI_INT8_T, int8_t, INT)                                                                     \
    X(MPI_INT16_T, int16_t, INT)                                                                   \
    X(MPI_INT32_T, int32_t, INT)                                                                   \
    X(MPI_INT64_T, int64_t, INT)                                                                   \
    X(MPI_UINT8_T, uint8_t, INT)                                                                   \
    X(MPI_UINT16_T, uint16_t, INT)                                                                 \
    X(MPI_UINT32_T, uint32_t, INT)                                                                 \
    X(MPI_UINT64_T, uint64_t, INT)                                                                 \
    X(MPI_AINT, MPI_Aint, INT)                                                                     \
    X(MPI_COUNT, MPI_Count, INT)                                                                   \
    X(MPI_OFFSET, MPI_Offset, INT)                                                                 \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, NONE)                                                   \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, NONE)                                                 \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, NONE)                                       \
    X(MPI_PACKED, unsigned char, NONE)

/* The pair types of MINLOC/MAXLOC, with their true C layout (padding included). */
struct mpi_float_int {
    float v;
    int i;
};
struct mpi_double_int {
    double v;
    int i;
};
struct mpi_long_int {
    long v;
    int i;
};
struct mpi_2int {
    int v;
    int i;
};
struct mpi_short_int {
    short v;
    int i;
};
struct mpi_long_double_int {
    long double v;
    int i;
};
/* X(handle, value type, struct) */
#define MPI_TYPE_PAIR_LIST(X)                                                                      \
    X(MPI_FLOAT_INT, MPI_FLOAT, mpi_float_int)                                                     \
    X(MPI_DOUBLE_INT, MPI_DOUBLE, mpi_double_int)                                                  \
    X(MPI_LONG_INT, MPI_LONG, mpi_long_int)                                                        \
    X(MPI_2INT, MPI_INT, mpi_2int)                                                                 \
    X(MPI_SHORT_INT, MPI_SHORT, mpi_short_int)                                                     \
    X(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, mpi_long_double_int)

#define TYPE_INDEX(dt) ((dt)&MPI_HANDLE_INDEX_MASK)
#define TYPE_KIND(dt)  ((unsigned)(dt) >> MPI_HANDLE_KIND_SHIFT)

mpi_type_t mpi_type_predef[MPI_DT_PREDEFINED_COUNT_];
bool mpi_type_predef_ready;

static rcmsg_datatype_t type_rdt_int(size_t size, bool is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? RCMSG_INT8 : RCMSG_UINT8;
    case 2:
        return is_signed ? RCMSG_INT16 : RCMSG_UINT16;
    case 4:
        return is_signed ? RCMSG_INT32 : RCMSG_UINT32;
    default:
        return is_signed ? RCMSG_INT64 : RCMSG_UINT64;
    }
}

static void type_init_basic(MPI_Datatype dt, size_t size, size_t align, bool ok,
                            rcmsg_datatype_t rdt)
{
    mpi_type_t *t = &mpi_type_predef[TYPE_INDEX(dt)];

    *t = (mpi_type_t){.refs = 1,
                      .predefined = true,
                      .committed = true,
                      .handle = dt,
                      .size = size,
                      .extent = (MPI_Aint)size,
                      .true_ub = (MPI_Aint)size,
                      .align = align,
                      .basic = 1,
                      .contig = true,
                      .rdt = rdt,
                      .rdt_ok = ok,
                      .nblocks = 1,
                      .block0 = {.off = 0, .len = size}};
    t->blocks = &t->block0;
}

/* A pair type: a struct {value; int} built as Type_create_struct would, then made predefined
 * with the C struct's size as its extent. */
static int type_init_pair(MPI_Datatype dt, MPI_Datatype vt, size_t ioff, size_t size)
{
    mpi_type_place_t p[2] = {
        {.child = &mpi_type_predef[TYPE_INDEX(vt)], .disp = 0, .count = 1},
        {.child = &mpi_type_predef[TYPE_INDEX(MPI_INT)], .disp = (MPI_Aint)ioff, .count = 1}};
    mpi_type_t *t = NULL;
    int rc = mpi_type_build(p, 2, true, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->extent = (MPI_Aint)size;
    t->predefined = t->committed = true;
    t->rdt_ok = false; /* MINLOC/MAXLOC only: no rcmsg reduction type */
    t->handle = dt;
    type_finish(t);
    type_unlink(t);
    mpi_type_predef[TYPE_INDEX(dt)] = *t;
    free(t); /* its blocks and signature now belong to the table's copy */
    return MPI_SUCCESS;
}

/* Fill the table of predefined types (once: it outlives Finalize). */
static int type_predef_init(void)
{
    int rc = MPI_SUCCESS;

    if (mpi_type_predef_ready) {
        return MPI_SUCCESS;
    }
#define TYPE_OK_INT       true
#define TYPE_OK_FLT       true
#define TYPE_OK_NONE      false
#define TYPE_RDT_INT(ct)  type_rdt_int(sizeof(ct), (ct)-1 < (ct)1)
#define TYPE_RDT_FLT(ct)  (sizeof(ct) == sizeof(float) ? RCMSG_FLOAT : RCMSG_DOUBLE)
#define TYPE_RDT_NONE(ct) RCMSG_UINT8
#define TYPE_BASIC(dt, ct, kind)                                                                   \
    type_init_basic(dt, sizeof(ct), _Alignof(ct), TYPE_OK_##kind, TYPE_RDT_##kind(ct));
    MPI_TYPE_BASIC_LIST(TYPE_BASIC)
#undef TYPE_BASIC
#define TYPE_PAIR(dt, vt, st)                                                                      \
    if (rc == MPI_SUCCESS) {                                                                       \
        rc = type_init_pair(dt, vt, offsetof(struct st, i), sizeof(struct st));                    \
    }
    MPI_TYPE_PAIR_LIST(TYPE_PAIR)
#undef TYPE_PAIR
    mpi_type_predef_ready = rc == MPI_SUCCESS;
    return rc;
}

/* ---- the internal interface (mpi_impl.h) ---- */

mpi_type_t *mpi_type_get(MPI_Datatype dt)
{
    return mpi_type_lookup(dt);
}

mpi_type_t *mpi_type_predef_first(MPI_Datatype dt)
{
    if (type_predef_init() != MPI_SUCCESS) {
        return NULL;
    }
    return mpi_type_lookup(dt);
}

bool mpi_type_is_contig(const mpi_type_t *t)
{
    return t->contig;
}

size_t mpi_type_size(const mpi_type_t *t)
{
    return t->size;
}

MPI_Aint mpi_type_extent(const mpi_type_t *t)
{
    return t->extent;
}

MPI_Aint mpi_type_true_lb(const mpi_type_t *t)
{
    return t->true_lb;
}

bool mpi_type_committed(const mpi_type_t *t)
{
    return t->committed;
}

rcmsg_datatype_t mpi_type_rcmsg(const mpi_type_t *t, bool *ok_p)
{
    *ok_p = t->rdt_ok;
    return t->rdt;
}

/* ---- the MPI calls ---- */

int mpi_type_check(mpi_comm_t *c, const char *call, MPI_Datatype dt, bool need_commit,
                   mpi_type_t **t_p)
{
    mpi_type_t *t = NULL;

    if (dt == MPI_DATATYPE_NULL) {
        return mpi_err(c, call, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    }
    t = mpi_type_get(dt);
    if (t == NULL) {
        return mpi_err(c, call, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)dt);
    }
    if (need_commit && !t->committed) {
        return mpi_err(c, call, MPI_ERR_TYPE, "datatype 0x%x is not committed", (unsigned)dt);
    }
    *t_p = t;
    return MPI_SUCCESS;
}

static int type_check(const char *call, MPI_Datatype dt, mpi_type_t **t_p)
{
    return mpi_type_check(NULL, call, dt, false, t_p);
}

/* Claim the handle slots of the predefined types, so that derived types come after them. */
static int type_claim_predef_slots(void)
{
    static bool claimed;
    int rc = MPI_SUCCESS;

    for (int i = 0; i < MPI_DT_PREDEFINED_COUNT_ && !claimed && rc == MPI_SUCCESS; i++) {
        rc = mpi_handle_set(MPI_KIND_DATATYPE_, i, &mpi_type_predef[i]);
    }
    claimed = rc == MPI_SUCCESS;
    return rc;
}

/* Give t (one reference, now the handle's) a handle in *newtype: never one of the predefined
 * types' slots (every constructor comes through here, MPI_Type_dup included). */
static int type_new_handle(const char *call, mpi_type_t *t, MPI_Datatype *newtype)
{
    int h;

    if (type_claim_predef_slots() != MPI_SUCCESS ||
        mpi_handle_alloc(MPI_KIND_DATATYPE_, t, &h) != MPI_SUCCESS) {
        mpi_type_release(t);
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for a datatype handle");
    }
    t->handle = h;
    *newtype = h;
    return MPI_SUCCESS;
}

/* Build from placements and give the type a handle in *newtype. */
static int type_new(const char *call, const mpi_type_place_t *p, size_t n, bool is_struct,
                    MPI_Datatype *newtype)
{
    mpi_type_t *t = NULL;
    int rc = mpi_type_build(p, n, is_struct, &t);

    if (rc != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "cannot build the type (%s)",
                       rc == MPI_ERR_ARG ? "its size overflows size_t" : "out of memory");
    }
    return type_new_handle(call, t, newtype);
}

/* Common checks of a constructor: count, the old type, the output pointer. */
static int type_check_ctor(const char *call, int count, MPI_Datatype oldtype, mpi_type_t **old_p,
                           const MPI_Datatype *newtype)
{
    if (count < 0) {
        return mpi_err(NULL, call, MPI_ERR_COUNT, "negative count %d", count);
    }
    if (newtype == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    }
    return old_p != NULL ? type_check(call, oldtype, old_p) : MPI_SUCCESS;
}

static int type_check_array(const char *call, int count, const void *array, const char *name)
{
    if (count > 0 && array == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s is NULL (count %d)", name, count);
    }
    return MPI_SUCCESS;
}

/* An array of count placements (freed by the caller), or an error raised. */
static int type_places(const char *call, int count, mpi_type_place_t **p_p)
{
    *p_p = calloc(count > 0 ? (size_t)count : 1, sizeof(**p_p));
    if (*p_p == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for %d blocks", count);
    }
    return MPI_SUCCESS;
}

static int type_check_bl(const char *call, int bl, int i)
{
    if (bl < 0) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "negative blocklength %d (block %d)", bl, i);
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    mpi_type_place_t p = {.disp = 0, .count = (size_t)count};
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, count, oldtype, &p.child, newtype);
    return rc != MPI_SUCCESS ? rc : type_new(call, &p, 1, false, newtype);
}

/* vector and hvector: count blocks of bl elements, block i at i * stride bytes. */
static int type_hvector(const char *call, int count, int bl, MPI_Aint stride, MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    mpi_type_t *old = NULL;
    int rc = type_check_ctor(call, count, oldtype, &old, newtype);

    if (rc == MPI_SUCCESS) {
        rc = type_check_bl(call, bl, 0);
    }
    if (rc != MPI_SUCCESS || (rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    for (int i = 0; i < count; i++) {
        p[i] = (mpi_type_place_t){.child = old, .disp = i * stride, .count = (size_t)bl};
    }
    rc = type_new(call, p, (size_t)count, false, newtype);
    free(p);
    return rc;
}

MPI_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    mpi_type_t *old = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, count, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return type_hvector(call, count, blocklength, (MPI_Aint)stride * old->extent, oldtype, newtype);
}

MPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_CHECK_ACTIVE("MPI_Type_create_hvector");
    return type_hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype);
}

/* indexed, hindexed, indexed_block: block i has bls[i] (bls NULL: bl) elements at idisp[i]
 * extents (idisp NULL: adisp[i] bytes). */
static int type_indexed(const char *call, int count, const int *bls, int bl, const int *idisp,
                        const MPI_Aint *adisp, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    mpi_type_t *old = NULL;
    int rc = type_check_ctor(call, count, oldtype, &old, newtype);

    if (rc == MPI_SUCCESS && idisp == NULL) {
        rc = type_check_array(call, count, adisp, "array_of_displacements");
    }
    if (rc != MPI_SUCCESS || (rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    if (bls == NULL && (rc = type_check_bl(call, bl, 0)) != MPI_SUCCESS) {
        free(p);
        return rc;
    }
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        int n = bls != NULL ? bls[i] : bl;

        rc = type_check_bl(call, n, i);
        p[i] = (mpi_type_place_t){.child = old,
                                  .disp = idisp != NULL ? idisp[i] * old->extent : adisp[i],
                                  .count = (size_t)n};
    }
    if (rc == MPI_SUCCESS) {
        rc = type_new(call, p, (size_t)count, false, newtype);
    }
    free(p);
    return rc;
}

MPI_API int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                             const int array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_indexed";

    MPI_CHECK_ACTIVE(call);
    if (type_check_array(call, count, array_of_blocklengths, "array_of_blocklengths") ||
        type_check_array(call, count, array_of_displacements, "array_of_displacements")) {
        return MPI_ERR_ARG;
    }
    return type_indexed(call, count, array_of_blocklengths, 0, array_of_displacements, NULL,
                        oldtype, newtype);
}

MPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed";

    MPI_CHECK_ACTIVE(call);
    if (type_check_array(call, count, array_of_blocklengths, "array_of_blocklengths")) {
        return MPI_ERR_ARG;
    }
    return type_indexed(call, count, array_of_blocklengths, 0, NULL, array_of_displacements,
                        oldtype, newtype);
}

MPI_API int MPI_Type_create_indexed_block(int count, int blocklength,
                                          const int array_of_displacements[], MPI_Datatype oldtype,
                                          MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_indexed_block";

    MPI_CHECK_ACTIVE(call);
    if (type_check_array(call, count, array_of_displacements, "array_of_displacements")) {
        return MPI_ERR_ARG;
    }
    return type_indexed(call, count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                        newtype);
}

MPI_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                           const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed_block";

    MPI_CHECK_ACTIVE(call);
    return type_indexed(call, count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                        newtype);
}

/* ---- subarray ---- */

/* The arguments of a subarray, checked (each dimension's subsize within its size); *runs_p
 * the number of runs of the fastest dimension. */
static int type_subarray_check(const char *call, int ndims, const int *sizes, const int *subs,
                               const int *starts, int order, size_t *runs_p)
{
    if (ndims <= 0 || sizes == NULL || subs == NULL || starts == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       ndims <= 0 ? "ndims %d is not positive" : "NULL sizes, subsizes or starts",
                       ndims);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "order %d is not MPI_ORDER_C or MPI_ORDER_FORTRAN",
                       order);
    }
    *runs_p = 1;
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] <= 0 || subs[d] <= 0 || starts[d] < 0 || subs[d] > sizes[d] - starts[d]) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "dimension %d: size %d, subsize %d, start %d (need size > 0, "
                           "subsize > 0, 0 <= start, start + subsize <= size)",
                           d, sizes[d], subs[d], starts[d]);
        }
        if (d != (order == MPI_ORDER_C ? ndims - 1 : 0)) {
            *runs_p *= (size_t)subs[d];
        }
    }
    return MPI_SUCCESS;
}

/* Placement i of a subarray: run i (in type-map order) of subs[fastest] elements. dim lists
 * the dimensions slowest first; i counts over all but the fastest, the last of them fastest. */
static mpi_type_place_t type_subarray_run(const int *dim, int ndims, const int *sizes,
                                          const int *subs, const int *starts, size_t i,
                                          mpi_type_t *old)
{
    MPI_Aint off = 0, stride = 1;

    for (int k = ndims - 1; k >= 0; k--) {
        int d = dim[k];
        MPI_Aint at = starts[d];

        if (k < ndims - 1) {
            at += (MPI_Aint)(i % (size_t)subs[d]);
            i /= (size_t)subs[d];
        }
        off += at * stride;
        stride *= sizes[d];
    }
    return (mpi_type_place_t){
        .child = old, .disp = off * old->extent, .count = (size_t)subs[dim[ndims - 1]]};
}

/* The placements of a subarray, then lb 0 and the extent of the whole array. */
static int type_subarray_build(int ndims, const int *sizes, const int *subs, const int *starts,
                               int order, mpi_type_t *old, size_t runs, mpi_type_t **t_p)
{
    mpi_type_place_t *p = calloc(runs, sizeof(*p));
    int *dim = calloc((size_t)ndims, sizeof(*dim));
    MPI_Aint all = old->extent;
    int rc = p == NULL || dim == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;

    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        dim[k] = order == MPI_ORDER_C ? k : ndims - 1 - k;
        all *= sizes[k];
    }
    for (size_t i = 0; i < runs && rc == MPI_SUCCESS; i++) {
        p[i] = type_subarray_run(dim, ndims, sizes, subs, starts, i, old);
    }
    if (rc == MPI_SUCCESS) {
        rc = mpi_type_build(p, runs, false, t_p);
    }
    if (rc == MPI_SUCCESS) {
        (*t_p)->lb = 0;
        (*t_p)->extent = all;
        type_finish(*t_p);
    }
    free(p);
    free(dim);
    return rc;
}

MPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                     const int array_of_subsizes[], const int array_of_starts[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    mpi_type_t *old = NULL, *t = NULL;
    size_t runs = 0;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, 0, oldtype, &old, newtype);
    if (rc == MPI_SUCCESS) {
        rc = type_subarray_check(call, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                 order, &runs);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = type_subarray_build(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, old,
                             runs, &t);
    if (rc != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "cannot build the type (%s)",
                       rc == MPI_ERR_ARG ? "its size overflows size_t" : "out of memory");
    }
    return type_new_handle(call, t, newtype);
}

/* The placements of a struct: block i is bls[i] elements of types[i] at disps[i] bytes. */
static int type_struct_places(const char *call, int count, const int *bls, const MPI_Aint *disps,
                              const MPI_Datatype *types, mpi_type_place_t *p)
{
    int rc = MPI_SUCCESS;

    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rc = type_check_bl(call, bls[i], i);
        if (rc == MPI_SUCCESS) {
            rc = type_check(call, types[i], &p[i].child);
        }
        p[i].disp = disps[i];
        p[i].count = (size_t)bls[i];
    }
    return rc;
}

MPI_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[],
                                   const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    mpi_type_place_t *p;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, count, MPI_DATATYPE_NULL, NULL, newtype);
    if (rc != MPI_SUCCESS ||
        type_check_array(call, count, array_of_blocklengths, "array_of_blocklengths") ||
        type_check_array(call, count, array_of_displacements, "array_of_displacements") ||
        type_check_array(call, count, array_of_types, "array_of_types")) {
        return rc != MPI_SUCCESS ? rc : MPI_ERR_ARG;
    }
    if ((rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    rc = type_struct_places(call, count, array_of_blocklengths, array_of_displacements,
                            array_of_types, p);
    if (rc == MPI_SUCCESS) {
        rc = type_new(call, p, (size_t)count, true, newtype);
    }
    free(p);
    return rc;
}

MPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    mpi_type_t *old = NULL, *t = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, 0, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = mpi_type_build_resized(old, lb, extent, &t)) != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "out of memory");
    }
    return type_new_handle(call, t, newtype);
}

/* Type_dup: the same type map; committed when the old one is. */
MPI_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    mpi_type_t *old = NULL, *t = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, 0, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = mpi_type_build_resized(old, old->lb, old->extent, &t);
    if (rc != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "out of memory");
    }
    t->align = old->align;
    t->committed = old->committed;
    return type_new_handle(call, t, newtype);
}

/* Commit and Free: the type behind a handle passed by pointer (MPI active, not NULL) */
static int type_check_ref(const char *call, const MPI_Datatype *datatype, mpi_type_t **t_p)
{
    MPI_CHECK_ACTIVE(call);
    if (datatype == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "datatype is NULL");
    }
    return type_check(call, *datatype, t_p);
}

MPI_API int MPI_Type_commit(MPI_Datatype *datatype)
{
    mpi_type_t *t = NULL;
    int rc = type_check_ref("MPI_Type_commit", datatype, &t);

    if (rc == MPI_SUCCESS) {
        t->committed = true; /* flattened at construction: nothing else to do */
    }
    return rc;
}

/* The name of a predefined type, for the errors. */
static const char *type_predef_name(MPI_Datatype dt)
{
#define TYPE_NAME(d, ...)                                                                          \
    if (dt == (d)) {                                                                               \
        return #d;                                                                                 \
    }
    MPI_TYPE_BASIC_LIST(TYPE_NAME)
    MPI_TYPE_PAIR_LIST(TYPE_NAME)
#undef TYPE_NAME
    return "a predefined type";
}

/* Type_free releases the handle; the type lives on while a parent type or a pending
 * operation holds a reference (mpi_type_retain). */
MPI_API int MPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    mpi_type_t *t = NULL;
    int rc = type_check_ref(call, datatype, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (t->predefined) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "cannot free the predefined datatype %s (0x%x): only the types the "
                       "program built (MPI_Type_dup included) can be freed",
                       type_predef_name(*datatype), (unsigned)*datatype);
    }
    mpi_handle_release(MPI_KIND_DATATYPE_, t->handle);
    t->handle = MPI_DATATYPE_NULL;
    mpi_type_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* The type of a query; NULL out pointers are MPI_ERR_ARG. */
static int type_query(const char *call, MPI_Datatype dt, const void *out1, const void *out2,
                      mpi_type_t **t_p)
{
    if (out1 == NULL || out2 == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "an output argument is NULL");
    }
    return type_check(call, dt, t_p);
}

/* Type_size (x false: *size is an int, MPI_UNDEFINED when the size does not fit one) and
 * Type_size_x (x: an MPI_Count). */
static int type_get_size(const char *call, MPI_Datatype dt, bool x, void *size)
{
    mpi_type_t *t = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_query(call, dt, size, size, &t);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (x) {
        *(MPI_Count *)size = (MPI_Count)t->size;
    } else {
        *(int *)size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return type_get_size("MPI_Type_size_x", datatype, true, size);
}

MPI_API int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    return type_get_size("MPI_Type_size", datatype, false, size);
}

/* The Type_get_extent family: the bounds (true_bounds: those of the data) into lb and extent,
 * which point to MPI_Aint, or to MPI_Count for the _x calls (x). */
static int type_get_extent(const char *call, MPI_Datatype dt, bool true_bounds, bool x, void *lb,
                           void *extent)
{
    mpi_type_t *t = NULL;
    MPI_Aint l, e;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_query(call, dt, lb, extent, &t);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    l = true_bounds ? t->true_lb : t->lb;
    e = true_bounds ? t->true_ub - t->true_lb : t->extent;
    if (x) {
        *(MPI_Count *)lb = l;
        *(MPI_Count *)extent = e;
    } else {
        *(MPI_Aint *)lb = l;
        *(MPI_Aint *)extent = e;
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return type_get_extent("MPI_Type_get_extent", datatype, false, false, lb, extent);
}

MPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return type_get_extent("MPI_Type_get_extent_x", datatype, false, true, lb, extent);
}

MPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                     MPI_Aint *true_extent)
{
    return type_get_extent("MPI_Type_get_true_extent", datatype, true, false, true_lb, true_extent);
}

MPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent)
{
    return type_get_extent("MPI_Type_get_true_extent_x", datatype, true, true, true_lb,
                           true_extent);
}

/* Valid before Init and after Finalize too (it touches no state). */
MPI_API int MPI_Get_address(const void *location, MPI_Aint *address)
{
    if (address == NULL) {
        return mpi_err(NULL, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
    }
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}
