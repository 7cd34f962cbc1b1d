/* SPDX-License-Identifier: BSD-3-Clause */
/* Datatypes of the MPI face: the predefined types, the constructors, commit/dup/free, size
 * and extents, the predefined type a type is made of and the comparison of type signatures. A type
 * is flattened at construction (mpi_type.h); mpi_pack.c moves the data. */
#include "mpi/mpi_objects.h"
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
 * count copies spaced by ext (step = (count - 1) * ext); false when a bound overflows an
 * MPI_Aint (a _c constructor's counts and displacements can reach that far). */
static bool type_span(bool *first_p, MPI_Aint *lo_p, MPI_Aint *hi_p, MPI_Aint disp, MPI_Aint lo,
                      MPI_Aint hi, MPI_Aint ext, size_t count)
{
    MPI_Aint step, a, b;

    if (count > (size_t)PTRDIFF_MAX || __builtin_mul_overflow((MPI_Aint)count - 1, ext, &step) ||
        __builtin_add_overflow(disp, lo, &a) ||
        __builtin_add_overflow(a, step < 0 ? step : 0, &a) ||
        __builtin_add_overflow(disp, hi, &b) ||
        __builtin_add_overflow(b, step > 0 ? step : 0, &b)) {
        return false;
    }
    if (*first_p || a < *lo_p) {
        *lo_p = a;
    }
    if (*first_p || b > *hi_p) {
        *hi_p = b;
    }
    *first_p = false;
    return true;
}

/* contig: count elements are one block at buf + true_lb. rdt_ok: every basic element of a
 * derived type is the same rcmsg reduction type. */
void mpi_type_finish(mpi_type_t *t)
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
    MPI_Aint c_ub;

    if (__builtin_add_overflow(c->lb, c->extent, &c_ub) ||
        __builtin_mul_overflow(p->count, c->size, &bytes) ||
        __builtin_add_overflow(t->size, bytes, &t->size) || t->size > (size_t)PTRDIFF_MAX) {
        return MPI_ERR_ARG; /* the size must be an MPI_Count (Type_size_c) */
    }
    t->basic += (MPI_Count)p->count * c->basic;
    t->align = c->align > t->align ? c->align : t->align;
    if (!type_span(first_p, &t->lb, ub_p, p->disp, c->lb, c_ub, c->extent, p->count)) {
        return MPI_ERR_ARG;
    }
    if (c->size > 0 && !type_span(tfirst_p, &t->true_lb, &t->true_ub, p->disp, c->true_lb,
                                  c->true_ub, c->extent, p->count)) {
        return MPI_ERR_ARG;
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
    if (rc == MPI_SUCCESS && __builtin_sub_overflow(ub, t->lb, &t->extent)) {
        rc = MPI_ERR_ARG;
    }
    if (rc != MPI_SUCCESS) {
        mpi_type_release(t);
        return rc;
    }
    if (is_struct && t->extent % (MPI_Aint)t->align != 0) {
        t->extent += (MPI_Aint)t->align - t->extent % (MPI_Aint)t->align;
    }
    mpi_type_finish(t);
    *type_p = t;
    return MPI_SUCCESS;
}

int mpi_type_build_resized(mpi_type_t *old, MPI_Aint lb, MPI_Aint extent, mpi_type_t **type_p)
{
    mpi_type_place_t p = {.child = old, .disp = 0, .count = 1};
    mpi_type_t *t = NULL;
    MPI_Aint ub;
    int rc;

    if (__builtin_add_overflow(lb, extent, &ub)) {
        return MPI_ERR_ARG; /* the upper bound must be an MPI_Aint too */
    }
    if ((rc = mpi_type_build(&p, 1, false, &t)) != MPI_SUCCESS) {
        return rc;
    }
    t->lb = lb;
    t->extent = extent;
    mpi_type_finish(t);
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

/* ---- rcmsg's datatype of one element (the collectives move and reduce packed elements) ------
 * Created at the first collective that needs it, kept with the type; elems[] finds the type
 * of an rcmsg datatype (the reductions' dispatch, mpi_op.c). */
static mpi_type_t **elems;
static size_t elems_cap;

static void type_elem_forget(mpi_type_t *t)
{
    size_t i = (size_t)t->elem - RCMSG_DATATYPE_COUNT;

    if (t->elem == RCMSG_DATATYPE_NULL || t->elem == 0) {
        return;
    }
    if (i < elems_cap) {
        elems[i] = NULL;
    }
    (void)rcmsg_datatype_free(&t->elem);
    t->elem = RCMSG_DATATYPE_NULL;
}

rcmsg_datatype_t mpi_type_elem(mpi_type_t *t)
{
    rcmsg_datatype_t d;
    size_t i;

    if (t->elem != RCMSG_DATATYPE_NULL && t->elem != 0) {
        return t->elem;
    }
    if (rcmsg_datatype_create(t->size, &d) != RCMSG_OK) {
        return RCMSG_DATATYPE_NULL;
    }
    i = (size_t)d - RCMSG_DATATYPE_COUNT;
    if (i >= elems_cap) {
        size_t cap = i + 16;
        mpi_type_t **e = realloc(elems, cap * sizeof(*e));

        if (e == NULL) {
            (void)rcmsg_datatype_free(&d);
            return RCMSG_DATATYPE_NULL;
        }
        memset(e + elems_cap, 0, (cap - elems_cap) * sizeof(*e));
        elems = e;
        elems_cap = cap;
    }
    elems[i] = t;
    t->elem = d;
    return d;
}

mpi_type_t *mpi_type_of_elem(rcmsg_datatype_t d)
{
    size_t i = (size_t)d - RCMSG_DATATYPE_COUNT;

    return (unsigned)d >= RCMSG_DATATYPE_COUNT && i < elems_cap ? elems[i] : NULL;
}

/* ---- handles ---- */
int mpi_type_handle_new(mpi_type_t *t, MPI_Datatype *h_p)
{
    static bool claimed; /* the predefined types' slots: derived types come after them */
    int rc = MPI_SUCCESS;

    for (int i = 0; i < MPI_DT_PREDEFINED_COUNT_ && !claimed && rc == MPI_SUCCESS; i++) {
        rc = mpi_handle_set(MPI_KIND_DATATYPE_, i, &mpi_type_predef[i]);
    }
    claimed = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        rc = mpi_handle_alloc(MPI_KIND_DATATYPE_, t, h_p);
    }
    if (rc == MPI_SUCCESS) {
        t->handle = *h_p;
    }
    return rc;
}

/* ---- envelopes ---- */
static void type_env_drop(mpi_type_env_t *e)
{
    if (e == NULL || --e->refs > 0) {
        return;
    }
    for (int i = 0; i < e->nd; i++) {
        mpi_type_release(e->types[i]);
    }
    free(e->ints);
    free(e->aints);
    free(e->counts);
    free(e->types);
    free(e);
}

int mpi_type_env_set(mpi_type_t *t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *aints, int nd, const MPI_Datatype *types)
{
    mpi_type_env_t *e = calloc(1, sizeof(*e));

    if (e == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *e = (mpi_type_env_t){.refs = 1, .combiner = combiner};
    e->ints = malloc(sizeof(int) * (size_t)(ni + 1));
    e->aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    e->types = malloc(sizeof(mpi_type_t *) * (size_t)(nd + 1));
    if (e->ints == NULL || e->aints == NULL || e->types == NULL) {
        type_env_drop(e);
        return MPI_ERR_NO_MEM;
    }
    e->ni = ni;
    e->na = na;
    if (ni > 0) {
        memcpy(e->ints, ints, sizeof(int) * (size_t)ni);
    }
    if (na > 0) {
        memcpy(e->aints, aints, sizeof(MPI_Aint) * (size_t)na);
    }
    for (int i = 0; i < nd; i++) {
        e->types[i] = mpi_type_lookup(types[i]);
        mpi_type_retain(e->types[i]);
        e->nd++;
    }
    type_env_drop(t->env);
    t->env = e;
    return MPI_SUCCESS;
}

int mpi_type_env_counts(mpi_type_t *t, int nc, const MPI_Count *counts)
{
    mpi_type_env_t *e = t->env;
    MPI_Count *c = malloc(sizeof(MPI_Count) * (size_t)(nc + 1));

    if (c == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (nc > 0) {
        memcpy(c, counts, sizeof(MPI_Count) * (size_t)nc);
    }
    free(e->counts);
    e->counts = c;
    e->nc = nc;
    return MPI_SUCCESS;
}

void mpi_type_env_share(const mpi_type_t *from, mpi_type_t *to)
{
    if (from->env != NULL) {
        from->env->refs++;
    }
    type_env_drop(to->env);
    to->env = from->env;
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
    type_elem_forget(t);
    type_env_drop(t->env);
    mpi_tattr_release_all(&t->attrs);
    free(t->name);
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

mpi_type_t *mpi_type_f90_find(int combiner, int ni, const int *ints)
{
    for (mpi_type_t *t = type_live; t != NULL; t = t->next) {
        const mpi_type_env_t *e = t->env;

        if (t->handle != MPI_DATATYPE_NULL && mpi_type_is_f90(t) && e->combiner == combiner &&
            e->ni == ni && memcmp(e->ints, ints, (size_t)ni * sizeof(*ints)) == 0) {
            return t;
        }
    }
    return NULL;
}

/* ---- predefined types ---- */

/* X(handle, C type, kind, ext kind, ext size, parts): the basic types; kind INT (integer
 * reductions by size and signedness), FLT (float/double), NONE (no rcmsg reduction type); its
 * external32 form (mpi_pack_ext.c): parts (2: complex) of ext size bytes each, converted as
 * MPI_EXT_<ext kind> says. The Fortran types (MPI_CHARACTER on) have the C type of gfortran's
 * default kinds; a LOGICAL is an integer of its size (.TRUE. is 1), its external32 form too.
 * MPI_CHARACTER, as MPI_PACKED, takes no operation (kind NONE: mpi_op.c has no class for it). */
#define MPI_TYPE_BASIC_LIST(X)                                                                     \
    X(MPI_CHAR, char, INT, RAW, 1, 1)                                                              \
    X(MPI_SIGNED_CHAR, signed char, INT, RAW, 1, 1)                                                \
    X(MPI_UNSIGNED_CHAR, unsigned char, INT, RAW, 1, 1)                                            \
    X(MPI_BYTE, unsigned char, INT, RAW, 1, 1)                                                     \
    X(MPI_WCHAR, wchar_t, INT, UINT, 2, 1)                                                         \
    X(MPI_SHORT, short, INT, SINT, 2, 1)                                                           \
    X(MPI_UNSIGNED_SHORT, unsigned short, INT, UINT, 2, 1)                                         \
    X(MPI_INT, int, INT, SINT, 4, 1)                                                               \
    X(MPI_UNSIGNED, unsigned, INT, UINT, 4, 1)                                                     \
    X(MPI_LONG, long, INT, SINT, 4, 1)                                                             \
    X(MPI_UNSIGNED_LONG, unsigned long, INT, UINT, 4, 1)                                           \
    X(MPI_LONG_LONG_INT, long long, INT, SINT, 8, 1)                                               \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, INT, UINT, 8, 1)                                 \
    X(MPI_FLOAT, float, FLT, FLOAT, 4, 1)                                                          \
    X(MPI_DOUBLE, double, FLT, FLOAT, 8, 1)                                                        \
    X(MPI_LONG_DOUBLE, long double, NONE, LDBL, 16, 1)                                             \
    X(MPI_C_BOOL, _Bool, INT, BOOL, 1, 1)                                                          \
    X(MPI_INT8_T, int8_t, INT, RAW, 1, 1)                                                          \
    X(MPI_INT16_T, int16_t, INT, SINT, 2, 1)                                                       \
    X(MPI_INT32_T, int32_t, INT, SINT, 4, 1)                                                       \
    X(MPI_INT64_T, int64_t, INT, SINT, 8, 1)                                                       \
    X(MPI_UINT8_T, uint8_t, INT, RAW, 1, 1)                                                        \
    X(MPI_UINT16_T, uint16_t, INT, UINT, 2, 1)                                                     \
    X(MPI_UINT32_T, uint32_t, INT, UINT, 4, 1)                                                     \
    X(MPI_UINT64_T, uint64_t, INT, UINT, 8, 1)                                                     \
    X(MPI_AINT, MPI_Aint, INT, SINT, 8, 1)                                                         \
    X(MPI_COUNT, MPI_Count, INT, SINT, 8, 1)                                                       \
    X(MPI_OFFSET, MPI_Offset, INT, SINT, 8, 1)                                                     \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, NONE, FLOAT, 4, 2)                                      \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, NONE, FLOAT, 8, 2)                                    \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, NONE, LDBL, 16, 2)                          \
    X(MPI_PACKED, unsigned char, NONE, RAW, 1, 1)                                                  \
    X(MPI_CHARACTER, char, NONE, RAW, 1, 1)                                                        \
    X(MPI_INTEGER, int32_t, INT, SINT, 4, 1)                                                       \
    X(MPI_REAL, float, FLT, FLOAT, 4, 1)                                                           \
    X(MPI_DOUBLE_PRECISION, double, FLT, FLOAT, 8, 1)                                              \
    X(MPI_COMPLEX, float _Complex, NONE, FLOAT, 4, 2)                                              \
    X(MPI_DOUBLE_COMPLEX, double _Complex, NONE, FLOAT, 8, 2)                                      \
    X(MPI_LOGICAL, int32_t, INT, SINT, 4, 1)                                                       \
    X(MPI_INTEGER1, int8_t, INT, RAW, 1, 1)                                                        \
    X(MPI_INTEGER2, int16_t, INT, SINT, 2, 1)                                                      \
    X(MPI_INTEGER4, int32_t, INT, SINT, 4, 1)                                                      \
    X(MPI_INTEGER8, int64_t, INT, SINT, 8, 1)                                                      \
    X(MPI_REAL4, float, FLT, FLOAT, 4, 1)                                                          \
    X(MPI_REAL8, double, FLT, FLOAT, 8, 1)                                                         \
    X(MPI_COMPLEX8, float _Complex, NONE, FLOAT, 4, 2)                                             \
    X(MPI_COMPLEX16, double _Complex, NONE, FLOAT, 8, 2)                                           \
    X(MPI_LOGICAL1, int8_t, INT, RAW, 1, 1)                                                        \
    X(MPI_LOGICAL2, int16_t, INT, SINT, 2, 1)                                                      \
    X(MPI_LOGICAL4, int32_t, INT, SINT, 4, 1)                                                      \
    X(MPI_LOGICAL8, int64_t, INT, SINT, 8, 1)

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
/* Fortran's pairs: the index has the value's type (MPI-3.1 5.9.4) */
struct mpi_2integer {
    int32_t v, i;
};
struct mpi_2real {
    float v, i;
};
struct mpi_2double_precision {
    double v, i;
};
/* X(handle, value type, index type, struct) */
#define MPI_TYPE_PAIR_LIST(X)                                                                      \
    X(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, mpi_float_int)                                            \
    X(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, mpi_double_int)                                         \
    X(MPI_LONG_INT, MPI_LONG, MPI_INT, mpi_long_int)                                               \
    X(MPI_2INT, MPI_INT, MPI_INT, mpi_2int)                                                        \
    X(MPI_SHORT_INT, MPI_SHORT, MPI_INT, mpi_short_int)                                            \
    X(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, mpi_long_double_int)                          \
    X(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, mpi_2integer)                                        \
    X(MPI_2REAL, MPI_REAL, MPI_REAL, mpi_2real)                                                    \
    X(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, mpi_2double_precision)

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
                            rcmsg_datatype_t rdt, mpi_ext_kind_t ext_kind, size_t ext_size,
                            size_t ext_parts)
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
                      .ext_kind = ext_kind,
                      .ext_size = ext_size,
                      .ext_parts = ext_parts,
                      .nblocks = 1,
                      .block0 = {.off = 0, .len = size}};
    t->blocks = &t->block0;
}

/* A pair type: a struct {value; index} built as Type_create_struct would, then made
 * predefined with the C struct's size as its extent. */
static int type_init_pair(MPI_Datatype dt, MPI_Datatype vt, MPI_Datatype it, size_t ioff,
                          size_t size)
{
    mpi_type_place_t p[2] = {
        {.child = &mpi_type_predef[TYPE_INDEX(vt)], .disp = 0, .count = 1},
        {.child = &mpi_type_predef[TYPE_INDEX(it)], .disp = (MPI_Aint)ioff, .count = 1}};
    mpi_type_t *t = NULL;
    int rc = mpi_type_build(p, 2, true, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->extent = (MPI_Aint)size;
    t->predefined = t->committed = true;
    t->rdt_ok = false; /* MINLOC/MAXLOC only: no rcmsg reduction type */
    t->handle = dt;
    mpi_type_finish(t);
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
#define TYPE_BASIC(dt, ct, kind, ext, ext_size, parts)                                             \
    _Static_assert(MPI_EXT_##ext != MPI_EXT_NONE && (ext_size) * (parts) > 0 &&                    \
                       ((MPI_EXT_##ext != MPI_EXT_RAW && MPI_EXT_##ext != MPI_EXT_FLOAT) ||        \
                        sizeof(ct) == (ext_size) * (parts)),                                       \
                   #dt ": its external32 form");                                                   \
    type_init_basic(dt, sizeof(ct), _Alignof(ct), TYPE_OK_##kind, TYPE_RDT_##kind(ct),             \
                    MPI_EXT_##ext, ext_size, parts);
    MPI_TYPE_BASIC_LIST(TYPE_BASIC)
#undef TYPE_BASIC
#define TYPE_PAIR(dt, vt, it, st)                                                                  \
    if (rc == MPI_SUCCESS) {                                                                       \
        rc = type_init_pair(dt, vt, it, offsetof(struct st, i), sizeof(struct st));                \
    }
    MPI_TYPE_PAIR_LIST(TYPE_PAIR)
#undef TYPE_PAIR
    mpi_type_predef_ready = rc == MPI_SUCCESS;
    return rc;
}

/* ---- the internal interface (mpi_objects.h) ---- */

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

MPI_Aint mpi_type_true_extent(const mpi_type_t *t)
{
    return t->true_ub - t->true_lb;
}

rcmsg_datatype_t mpi_type_rcmsg(const mpi_type_t *t, bool *ok_p)
{
    *ok_p = t->rdt_ok;
    return t->rdt;
}

const char *mpi_type_predef_name(MPI_Datatype dt)
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

MPI_Datatype mpi_type_basic_of(const mpi_type_t *t)
{
    MPI_Datatype basic = MPI_DATATYPE_NULL;

    if (t->predefined) {
        return t->handle;
    }
    for (size_t i = 0; i < t->nsig; i++) {
        MPI_Datatype b;

        if (t->sig[i].child->size == 0) {
            continue; /* holds no element */
        }
        b = mpi_type_basic_of(t->sig[i].child);

        if (b == MPI_DATATYPE_NULL || (basic != MPI_DATATYPE_NULL && b != basic)) {
            return MPI_DATATYPE_NULL;
        }
        basic = b;
    }
    return basic;
}

/* ---- type signatures: runs of (predefined type, how many), consecutive equal ones merged */
typedef struct {
    MPI_Datatype dt;
    size_t n;
} sig_run_t;

typedef struct {
    sig_run_t *runs;
    size_t n, cap;
    bool over; /* more than SIG_RUNS_MAX runs: not compared */
} sig_buf_t;

#define SIG_RUNS_MAX (1u << 20)

static void sig_add(sig_buf_t *b, MPI_Datatype dt, size_t n)
{
    if (n == 0 || b->over) {
        return;
    }
    if (b->n > 0 && b->runs[b->n - 1].dt == dt) {
        b->runs[b->n - 1].n += n;
        return;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        sig_run_t *r = cap <= SIG_RUNS_MAX ? realloc(b->runs, cap * sizeof(*r)) : NULL;

        if (r == NULL) {
            b->over = true;
            return;
        }
        b->runs = r;
        b->cap = cap;
    }
    b->runs[b->n++] = (sig_run_t){dt, n};
}

/* The predefined type t is made of, unless a pair type (MPI_2INT, ...: its signature is its
 * value and index types, MPI_INT but in the Fortran pairs, which other types can match);
 * MPI_DATATYPE_NULL then. */
static MPI_Datatype sig_basic(const mpi_type_t *t)
{
    MPI_Datatype basic = mpi_type_basic_of(t);
    const mpi_type_t *bt = basic != MPI_DATATYPE_NULL ? mpi_type_get(basic) : NULL;

    return bt != NULL && bt->nsig == 0 ? basic : MPI_DATATYPE_NULL;
}

/* count elements of t, as runs of predefined types (pair types as their two) */
static void sig_expand(const mpi_type_t *t, size_t count, sig_buf_t *b)
{
    MPI_Datatype basic = sig_basic(t);

    if (basic != MPI_DATATYPE_NULL) {
        sig_add(b, basic, count * (t->size / mpi_type_size(mpi_type_get(basic))));
        return;
    }
    for (size_t i = 0; i < count && !b->over; i++) {
        for (size_t k = 0; k < t->nsig && !b->over; k++) {
            sig_expand(t->sig[k].child, t->sig[k].count, b);
        }
    }
}

bool mpi_type_sig_equal(const mpi_type_t *a, size_t na, const mpi_type_t *b, size_t nb)
{
    sig_buf_t sa = {0}, sb = {0};
    MPI_Datatype ba, bb;
    bool eq;

    if (a->size * na != b->size * nb) {
        return false;
    }
    if (a->size * na == 0) {
        return true;
    }
    ba = sig_basic(a);
    bb = sig_basic(b);
    if (ba != MPI_DATATYPE_NULL && bb != MPI_DATATYPE_NULL) {
        return ba == bb; /* one predefined type each (the common case): no expansion */
    }
    sig_expand(a, na, &sa);
    sig_expand(b, nb, &sb);
    eq = sa.over || sb.over || sa.n == sb.n;
    for (size_t i = 0; eq && !sa.over && !sb.over && i < sa.n; i++) {
        eq = sa.runs[i].dt == sb.runs[i].dt && sa.runs[i].n == sb.runs[i].n;
    }
    free(sa.runs);
    free(sb.runs);
    return eq;
}
