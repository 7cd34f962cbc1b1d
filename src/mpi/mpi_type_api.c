/* SPDX-License-Identifier: BSD-3-Clause */
/* The constructors of datatypes (bindings over mpi_type.c's objects): the int forms and
 * MPI-4.0's large-count _c forms over the same functions, which count in MPI_Count and size_t;
 * Type_dup; the constructors MPI-3.0 removed. Commit, free and the queries:
 * mpi_type_query_api.c. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A _c call's MPI_Count displacement or bound is an MPI_Aint as it is. */
_Static_assert(sizeof(MPI_Count) == sizeof(MPI_Aint), "MPI_Count and MPI_Aint differ in width");

/* ---- the MPI calls ---- */

static int type_check(const char *call, MPI_Datatype dt, mpi_type_t **t_p)
{
    return mpi_type_check(NULL, call, dt, false, t_p);
}

/* An array argument of a constructor: of int (the int forms), MPI_Aint or MPI_Count (the _c
 * forms), read as MPI_Count. */
typedef enum { TYPE_ARR_INT, TYPE_ARR_AINT, TYPE_ARR_COUNT } type_arr_kind_t;

typedef struct {
    const void *p;
    type_arr_kind_t kind;
} type_arr_t;

static MPI_Count type_arr_at(type_arr_t a, size_t i)
{
    switch (a.kind) {
    case TYPE_ARR_INT:
        return ((const int *)a.p)[i];
    case TYPE_ARR_AINT:
        return ((const MPI_Aint *)a.p)[i];
    default:
        return ((const MPI_Count *)a.p)[i];
    }
}

/* Give t (one reference, now the handle's) a handle in *newtype: never one of the predefined
 * types' slots (every constructor comes through here, MPI_Type_dup included). */
static int type_new_handle(const char *call, mpi_type_t *t, MPI_Datatype *newtype)
{
    if (mpi_type_handle_new(t, newtype) != MPI_SUCCESS) {
        mpi_type_release(t);
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for a datatype handle");
    }
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
                       rc == MPI_ERR_ARG ? "its size or a bound overflows an MPI_Aint"
                                         : "out of memory");
    }
    return type_new_handle(call, t, newtype);
}

/* Common checks of a constructor: count, the old type, the output pointer. */
static int type_check_ctor(const char *call, MPI_Count count, MPI_Datatype oldtype,
                           mpi_type_t **old_p, const MPI_Datatype *newtype)
{
    if (count < 0) {
        return mpi_err(NULL, call, MPI_ERR_COUNT, "negative count %lld", count);
    }
    if (newtype == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    }
    return old_p != NULL ? type_check(call, oldtype, old_p) : MPI_SUCCESS;
}

static int type_check_array(const char *call, MPI_Count count, const void *array, const char *name)
{
    if (count > 0 && array == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s is NULL (count %lld)", name, count);
    }
    return MPI_SUCCESS;
}

/* A _c constructor of arrays records 2 * count + 1 large counts at most, an int many. */
#define TYPE_MAX_BLOCKS ((INT_MAX - 2) / 2)

static int type_check_blocks(const char *call, MPI_Count count)
{
    if (count > TYPE_MAX_BLOCKS) {
        return mpi_err(NULL, call, MPI_ERR_COUNT, "count %lld: more than %d blocks", count,
                       TYPE_MAX_BLOCKS);
    }
    return MPI_SUCCESS;
}

/* An array of count placements (freed by the caller), or an error raised. */
static int type_places(const char *call, MPI_Count count, mpi_type_place_t **p_p)
{
    *p_p = (uint64_t)count > SIZE_MAX / sizeof(**p_p)
               ? NULL
               : calloc(count > 0 ? (size_t)count : 1, sizeof(**p_p));
    if (*p_p == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for %lld blocks", count);
    }
    return MPI_SUCCESS;
}

static int type_check_bl(const char *call, MPI_Count bl, size_t i)
{
    if (bl < 0) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "negative blocklength %lld (block %zu)", bl, i);
    }
    return MPI_SUCCESS;
}

/* n (a displacement or stride in units) times unit bytes into *bytes_p, or MPI_ERR_ARG raised
 * when it does not fit an MPI_Aint (block i). */
static int type_disp(const char *call, MPI_Count n, MPI_Aint unit, size_t i, MPI_Aint *bytes_p)
{
    long long b;

    if (__builtin_mul_overflow(n, (long long)unit, &b)) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       "displacement %lld of %ld-byte units (block %zu) overflows an MPI_Aint", n,
                       (long)unit, i);
    }
    *bytes_p = (MPI_Aint)b;
    return MPI_SUCCESS;
}

/* After a constructor (rc its outcome): newtype's envelope (MPI_Type_get_envelope) recorded;
 * when that fails, the type is freed and MPI_ERR_NO_MEM raised. ints: n1 integers of a (or
 * none), then n2 of b, then n3 of c, after the nh of head. */
typedef struct {
    int nh, n1, n2, n3;
    const int *head, *a, *b, *c;
} type_ints_t;

/* A _c constructor's large counts: the nh of head, then n1 of a, then n2 of b. */
typedef struct {
    int nh, n1, n2;
    const MPI_Count *head, *a, *b;
} type_counts_t;

static int type_env_fail(const char *call, MPI_Datatype *newtype)
{
    mpi_type_t *t = mpi_type_lookup(*newtype);

    mpi_handle_release(MPI_KIND_DATATYPE_, t->handle);
    t->handle = MPI_DATATYPE_NULL;
    mpi_type_release(t);
    *newtype = MPI_DATATYPE_NULL;
    return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for the type's envelope");
}

static int type_env(const char *call, int rc, MPI_Datatype *newtype, int combiner,
                    const type_ints_t *in, int na, const MPI_Aint *aints, int nd,
                    const MPI_Datatype *types)
{
    type_ints_t none = {0};
    mpi_type_t *t;
    int *ints, ni, k = 0;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    in = in != NULL ? in : &none;
    ni = in->nh + in->n1 + in->n2 + in->n3;
    t = mpi_type_lookup(*newtype);
    ints = malloc(sizeof(int) * (size_t)(ni + 1));
    for (int i = 0; ints != NULL && i < in->nh; i++) {
        ints[k++] = in->head[i];
    }
    for (int i = 0; ints != NULL && i < in->n1; i++) {
        ints[k++] = in->a[i];
    }
    for (int i = 0; ints != NULL && i < in->n2; i++) {
        ints[k++] = in->b[i];
    }
    for (int i = 0; ints != NULL && i < in->n3; i++) {
        ints[k++] = in->c[i];
    }
    rc = ints == NULL ? MPI_ERR_NO_MEM
                      : mpi_type_env_set(t, combiner, ni, ints, na, aints, nd, types);
    free(ints);
    return rc != MPI_SUCCESS ? type_env_fail(call, newtype) : MPI_SUCCESS;
}

/* type_env for a _c constructor: the integers of in (or none), the large counts of cn, no
 * addresses. */
static int type_env_c(const char *call, int rc, MPI_Datatype *newtype, int combiner,
                      const type_ints_t *in, const type_counts_t *cn, int nd,
                      const MPI_Datatype *types)
{
    int nc = cn->nh + cn->n1 + cn->n2, k = 0;
    MPI_Count *c;

    rc = type_env(call, rc, newtype, combiner, in, 0, NULL, nd, types);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((c = malloc(sizeof(MPI_Count) * (size_t)(nc + 1))) == NULL) {
        return type_env_fail(call, newtype);
    }
    for (int i = 0; i < cn->nh; i++) {
        c[k++] = cn->head[i];
    }
    for (int i = 0; i < cn->n1; i++) {
        c[k++] = cn->a[i];
    }
    for (int i = 0; i < cn->n2; i++) {
        c[k++] = cn->b[i];
    }
    rc = mpi_type_env_counts(mpi_type_lookup(*newtype), nc, c);
    free(c);
    return rc != MPI_SUCCESS ? type_env_fail(call, newtype) : MPI_SUCCESS;
}

static int type_contiguous(const char *call, MPI_Count count, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    mpi_type_place_t p = {.disp = 0, .count = (size_t)count};
    int rc;

    rc = type_check_ctor(call, count, oldtype, &p.child, newtype);
    return rc != MPI_SUCCESS ? rc : type_new(call, &p, 1, false, newtype);
}

MPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_contiguous";

    MPI_CHECK_ACTIVE(call);
    int rc = type_contiguous(call, count, oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_CONTIGUOUS,
                    &(type_ints_t){.nh = 1, .head = &count}, 0, NULL, 1, &oldtype);
}

MPI_API int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_contiguous_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_contiguous(call, count, oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_CONTIGUOUS, NULL,
                      &(type_counts_t){.nh = 1, .head = &count}, 1, &oldtype);
}
MPI_PMPI_ALIAS(Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));

/* vector and hvector: count blocks of bl elements, block i at i * stride units of unit bytes
 * (vector: oldtype's extent; hvector: 1). */
static int type_hvector(const char *call, MPI_Count count, MPI_Count bl, MPI_Count stride,
                        bool in_extents, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    mpi_type_t *old = NULL;
    MPI_Aint step = 0, last = 0;
    int rc = type_check_ctor(call, count, oldtype, &old, newtype);

    if (rc == MPI_SUCCESS) {
        rc = type_check_bl(call, bl, 0);
    }
    if (rc == MPI_SUCCESS) {
        rc = type_disp(call, stride, in_extents ? old->extent : 1, 0, &step);
    }
    if (rc == MPI_SUCCESS && count > 0) {
        rc = type_disp(call, count - 1, step, (size_t)count - 1, &last);
    }
    if (rc != MPI_SUCCESS || (rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    for (MPI_Count i = 0; i < count; i++) {
        p[i] = (mpi_type_place_t){.child = old, .disp = (MPI_Aint)i * step, .count = (size_t)bl};
    }
    rc = type_new(call, p, (size_t)count, false, newtype);
    free(p);
    return rc;
}

MPI_API int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_vector";

    MPI_CHECK_ACTIVE(call);
    int rc = type_hvector(call, count, blocklength, stride, true, oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_VECTOR,
                    &(type_ints_t){.nh = 3, .head = (int[]){count, blocklength, stride}}, 0, NULL,
                    1, &oldtype);
}

MPI_API int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_vector_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_hvector(call, count, blocklength, stride, true, oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_VECTOR, NULL,
                      &(type_counts_t){.nh = 3, .head = (MPI_Count[]){count, blocklength, stride}},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype));

MPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hvector";

    MPI_CHECK_ACTIVE(call);
    int rc = type_hvector(call, count, blocklength, stride, false, oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_HVECTOR,
                    &(type_ints_t){.nh = 2, .head = (int[]){count, blocklength}}, 1, &stride, 1,
                    &oldtype);
}

MPI_API int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hvector_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_hvector(call, count, blocklength, stride, false, oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_HVECTOR, NULL,
                      &(type_counts_t){.nh = 3, .head = (MPI_Count[]){count, blocklength, stride}},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype));

/* The placements of indexed, hindexed, indexed_block, hindexed_block: block i has bls[i]
 * elements (block: bl each) at disps[i], in extents of old or in bytes (bytes). */
static int type_indexed_places(const char *call, MPI_Count count, bool block, type_arr_t bls,
                               MPI_Count bl, bool bytes, type_arr_t disps, mpi_type_t *old,
                               mpi_type_place_t *p)
{
    int rc = block ? type_check_bl(call, bl, 0) : MPI_SUCCESS;

    for (size_t i = 0; i < (size_t)count && rc == MPI_SUCCESS; i++) {
        MPI_Count n = block ? bl : type_arr_at(bls, i);

        p[i] = (mpi_type_place_t){.child = old, .count = (size_t)n};
        rc = type_check_bl(call, n, i);
        if (rc == MPI_SUCCESS) {
            rc = type_disp(call, type_arr_at(disps, i), bytes ? 1 : old->extent, i, &p[i].disp);
        }
    }
    return rc;
}

static int type_indexed(const char *call, MPI_Count count, bool block, type_arr_t bls, MPI_Count bl,
                        bool bytes, type_arr_t disps, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    mpi_type_t *old = NULL;
    int rc;

    rc = block ? MPI_SUCCESS : type_check_array(call, count, bls.p, "array_of_blocklengths");
    if (rc == MPI_SUCCESS) {
        rc = type_check_array(call, count, disps.p, "array_of_displacements");
    }
    if (rc == MPI_SUCCESS) {
        rc = type_check_ctor(call, count, oldtype, &old, newtype);
    }
    if (rc == MPI_SUCCESS) {
        rc = type_check_blocks(call, count);
    }
    if (rc != MPI_SUCCESS || (rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    rc = type_indexed_places(call, count, block, bls, bl, bytes, disps, old, p);
    if (rc == MPI_SUCCESS) {
        rc = type_new(call, p, (size_t)count, false, newtype);
    }
    free(p);
    return rc;
}

#define TYPE_INTS(a)   ((type_arr_t){(a), TYPE_ARR_INT})
#define TYPE_AINTS(a)  ((type_arr_t){(a), TYPE_ARR_AINT})
#define TYPE_COUNTS(a) ((type_arr_t){(a), TYPE_ARR_COUNT})

MPI_API int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                             const int array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_indexed";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, false, TYPE_INTS(array_of_blocklengths), 0, false,
                          TYPE_INTS(array_of_displacements), oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_INDEXED,
                    &(type_ints_t){.nh = 1,
                                   .head = &count,
                                   .n1 = count,
                                   .a = array_of_blocklengths,
                                   .n2 = count,
                                   .b = array_of_displacements},
                    0, NULL, 1, &oldtype);
}

MPI_API int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_indexed_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, false, TYPE_COUNTS(array_of_blocklengths), 0, false,
                          TYPE_COUNTS(array_of_displacements), oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_INDEXED, NULL,
                      &(type_counts_t){.nh = 1,
                                       .head = &count,
                                       .n1 = (int)count,
                                       .a = array_of_blocklengths,
                                       .n2 = (int)count,
                                       .b = array_of_displacements},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype));

MPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hindexed";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, false, TYPE_INTS(array_of_blocklengths), 0, true,
                          TYPE_AINTS(array_of_displacements), oldtype, newtype);
    return type_env(
        call, rc, newtype, MPI_COMBINER_HINDEXED,
        &(type_ints_t){.nh = 1, .head = &count, .n1 = count, .a = array_of_blocklengths}, count,
        array_of_displacements, 1, &oldtype);
}

MPI_API int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                       const MPI_Count array_of_displacements[],
                                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hindexed_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, false, TYPE_COUNTS(array_of_blocklengths), 0, true,
                          TYPE_COUNTS(array_of_displacements), oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_HINDEXED, NULL,
                      &(type_counts_t){.nh = 1,
                                       .head = &count,
                                       .n1 = (int)count,
                                       .a = array_of_blocklengths,
                                       .n2 = (int)count,
                                       .b = array_of_displacements},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype));

MPI_API int MPI_Type_create_indexed_block(int count, int blocklength,
                                          const int array_of_displacements[], MPI_Datatype oldtype,
                                          MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_indexed_block";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, true, TYPE_INTS(NULL), blocklength, false,
                          TYPE_INTS(array_of_displacements), oldtype, newtype);
    return type_env(
        call, rc, newtype, MPI_COMBINER_INDEXED_BLOCK,
        &(type_ints_t){
            .nh = 2, .head = (int[]){count, blocklength}, .n1 = count, .a = array_of_displacements},
        0, NULL, 1, &oldtype);
}

MPI_API int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                            const MPI_Count array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_indexed_block_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, true, TYPE_COUNTS(NULL), blocklength, false,
                          TYPE_COUNTS(array_of_displacements), oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_INDEXED_BLOCK, NULL,
                      &(type_counts_t){.nh = 2,
                                       .head = (MPI_Count[]){count, blocklength},
                                       .n1 = (int)count,
                                       .a = array_of_displacements},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_create_indexed_block_c,
               (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));

MPI_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                           const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hindexed_block";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, true, TYPE_INTS(NULL), blocklength, true,
                          TYPE_AINTS(array_of_displacements), oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_HINDEXED_BLOCK,
                    &(type_ints_t){.nh = 2, .head = (int[]){count, blocklength}}, count,
                    array_of_displacements, 1, &oldtype);
}

MPI_API int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                             const MPI_Count array_of_displacements[],
                                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_hindexed_block_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_indexed(call, count, true, TYPE_COUNTS(NULL), blocklength, true,
                          TYPE_COUNTS(array_of_displacements), oldtype, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_HINDEXED_BLOCK, NULL,
                      &(type_counts_t){.nh = 2,
                                       .head = (MPI_Count[]){count, blocklength},
                                       .n1 = (int)count,
                                       .a = array_of_displacements},
                      1, &oldtype);
}
MPI_PMPI_ALIAS(Type_create_hindexed_block_c,
               (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                MPI_Datatype oldtype, MPI_Datatype *newtype));

/* ---- subarray ---- */

/* The arguments of a subarray (the int form's widened to MPI_Count), checked (each
 * dimension's subsize within its size; the whole array's extent an MPI_Aint); *runs_p the
 * number of runs of the fastest dimension. */
static int type_subarray_check(const char *call, int ndims, const MPI_Count *sizes,
                               const MPI_Count *subs, const MPI_Count *starts, int order,
                               MPI_Aint extent, size_t *runs_p)
{
    long long all = extent;

    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "order %d is not MPI_ORDER_C or MPI_ORDER_FORTRAN",
                       order);
    }
    *runs_p = 1;
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] <= 0 || subs[d] <= 0 || starts[d] < 0 || subs[d] > sizes[d] - starts[d]) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "dimension %d: size %lld, subsize %lld, start %lld (need size > 0, "
                           "subsize > 0, 0 <= start, start + subsize <= size)",
                           d, sizes[d], subs[d], starts[d]);
        }
        if (__builtin_mul_overflow(all, sizes[d], &all) ||
            (d != (order == MPI_ORDER_C ? ndims - 1 : 0) &&
             __builtin_mul_overflow(*runs_p, (size_t)subs[d], runs_p))) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "the array's extent (dimensions 0 to %d) overflows an MPI_Aint", d);
        }
    }
    return MPI_SUCCESS;
}

/* Placement i of a subarray: run i (in type-map order) of subs[fastest] elements. dim lists
 * the dimensions slowest first; i counts over all but the fastest, the last of them fastest. */
static mpi_type_place_t type_subarray_run(const int *dim, int ndims, const MPI_Count *sizes,
                                          const MPI_Count *subs, const MPI_Count *starts, size_t i,
                                          mpi_type_t *old)
{
    MPI_Aint off = 0, stride = 1;

    for (int k = ndims - 1; k >= 0; k--) {
        int d = dim[k];
        MPI_Aint at = (MPI_Aint)starts[d];

        if (k < ndims - 1) {
            at += (MPI_Aint)(i % (size_t)subs[d]);
            i /= (size_t)subs[d];
        }
        off += at * stride;
        stride *= (MPI_Aint)sizes[d];
    }
    return (mpi_type_place_t){
        .child = old, .disp = off * old->extent, .count = (size_t)subs[dim[ndims - 1]]};
}

/* The placements of a subarray, then lb 0 and the extent of the whole array. */
static int type_subarray_build(int ndims, const MPI_Count *sizes, const MPI_Count *subs,
                               const MPI_Count *starts, int order, mpi_type_t *old, size_t runs,
                               mpi_type_t **t_p)
{
    mpi_type_place_t *p = runs > SIZE_MAX / sizeof(*p) ? NULL : calloc(runs, sizeof(*p));
    int *dim = calloc((size_t)ndims, sizeof(*dim));
    MPI_Aint all = old->extent;
    int rc = p == NULL || dim == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;

    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        dim[k] = order == MPI_ORDER_C ? k : ndims - 1 - k;
        all *= (MPI_Aint)sizes[k];
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
        mpi_type_finish(*t_p);
    }
    free(p);
    free(dim);
    return rc;
}

/* A subarray of the ndims sizes, subsizes and starts in a (3 * ndims MPI_Counts), as a new
 * handle in *newtype (its envelope not yet recorded). */
static int type_subarray(const char *call, int ndims, const MPI_Count *a, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpi_type_t *old = NULL, *t = NULL;
    size_t runs = 0;
    int rc = type_check_ctor(call, 0, oldtype, &old, newtype);

    if (rc == MPI_SUCCESS) {
        rc = type_subarray_check(call, ndims, a, a + ndims, a + 2 * ndims, order, old->extent,
                                 &runs);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = type_subarray_build(ndims, a, a + ndims, a + 2 * ndims, order, old, runs, &t);
    if (rc != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "cannot build the type (%s)",
                       rc == MPI_ERR_ARG ? "its size or a bound overflows an MPI_Aint"
                                         : "out of memory");
    }
    return type_new_handle(call, t, newtype);
}

/* The sizes, subsizes and starts of a subarray, widened into one array of 3 * ndims (freed by
 * the caller), or an error raised. */
static int type_subarray_args(const char *call, int ndims, type_arr_t sizes, type_arr_t subs,
                              type_arr_t starts, MPI_Count **a_p)
{
    MPI_Count *a;

    if (ndims <= 0 || sizes.p == NULL || subs.p == NULL || starts.p == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       ndims <= 0 ? "ndims %d is not positive" : "NULL sizes, subsizes or starts",
                       ndims);
    }
    if ((a = malloc(sizeof(MPI_Count) * 3 * (size_t)ndims)) == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int d = 0; d < ndims; d++) {
        a[d] = type_arr_at(sizes, (size_t)d);
        a[ndims + d] = type_arr_at(subs, (size_t)d);
        a[2 * ndims + d] = type_arr_at(starts, (size_t)d);
    }
    *a_p = a;
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                     const int array_of_subsizes[], const int array_of_starts[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_subarray";
    MPI_Count *a = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_subarray_args(call, ndims, TYPE_INTS(array_of_sizes), TYPE_INTS(array_of_subsizes),
                            TYPE_INTS(array_of_starts), &a);
    if (rc == MPI_SUCCESS) {
        rc = type_subarray(call, ndims, a, order, oldtype, newtype);
        free(a);
    }
    if (rc == MPI_SUCCESS) { /* ndims, sizes, subsizes, starts, order */
        int *ints = malloc(sizeof(int) * (size_t)(3 * ndims + 2));

        if (ints != NULL) {
            ints[0] = ndims;
            memcpy(ints + 1, array_of_sizes, sizeof(int) * (size_t)ndims);
            memcpy(ints + 1 + ndims, array_of_subsizes, sizeof(int) * (size_t)ndims);
            memcpy(ints + 1 + 2 * ndims, array_of_starts, sizeof(int) * (size_t)ndims);
            ints[3 * ndims + 1] = order;
        }
        rc = type_env(call, rc, newtype, MPI_COMBINER_SUBARRAY,
                      &(type_ints_t){.nh = ints != NULL ? 3 * ndims + 2 : 0, .head = ints}, 0, NULL,
                      1, &oldtype);
        free(ints);
    }
    return rc;
}

MPI_API int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                       const MPI_Count array_of_subsizes[],
                                       const MPI_Count array_of_starts[], int order,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_subarray_c";
    MPI_Count *a = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_subarray_args(call, ndims, TYPE_COUNTS(array_of_sizes),
                            TYPE_COUNTS(array_of_subsizes), TYPE_COUNTS(array_of_starts), &a);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = type_subarray(call, ndims, a, order, oldtype, newtype);
    rc = type_env_c(call, rc, newtype, MPI_COMBINER_SUBARRAY,
                    &(type_ints_t){.nh = 2, .head = (int[]){ndims, order}},
                    &(type_counts_t){.nh = 3 * ndims, .head = a}, 1, &oldtype);
    free(a);
    return rc;
}
MPI_PMPI_ALIAS(Type_create_subarray_c,
               (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                MPI_Datatype *newtype));

/* ---- struct, resized ---- */

/* A struct: block i is bls[i] elements of types[i] at disps[i] bytes. */
static int type_struct(const char *call, MPI_Count count, type_arr_t bls, type_arr_t disps,
                       const MPI_Datatype *types, MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    int rc = type_check_ctor(call, count, MPI_DATATYPE_NULL, NULL, newtype);

    if (rc != MPI_SUCCESS ||
        (rc = type_check_array(call, count, bls.p, "array_of_blocklengths")) != MPI_SUCCESS ||
        (rc = type_check_array(call, count, disps.p, "array_of_displacements")) != MPI_SUCCESS ||
        (rc = type_check_array(call, count, types, "array_of_types")) != MPI_SUCCESS ||
        (rc = type_check_blocks(call, count)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    for (size_t i = 0; i < (size_t)count && rc == MPI_SUCCESS; i++) {
        rc = type_check_bl(call, type_arr_at(bls, i), i);
        if (rc == MPI_SUCCESS) {
            rc = type_check(call, types[i], &p[i].child);
        }
        p[i].disp = (MPI_Aint)type_arr_at(disps, i);
        p[i].count = (size_t)type_arr_at(bls, i);
    }
    if (rc == MPI_SUCCESS) {
        rc = type_new(call, p, (size_t)count, true, newtype);
    }
    free(p);
    return rc;
}

MPI_API int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[],
                                   const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_struct";

    MPI_CHECK_ACTIVE(call);
    int rc = type_struct(call, count, TYPE_INTS(array_of_blocklengths),
                         TYPE_AINTS(array_of_displacements), array_of_types, newtype);
    return type_env(
        call, rc, newtype, MPI_COMBINER_STRUCT,
        &(type_ints_t){.nh = 1, .head = &count, .n1 = count, .a = array_of_blocklengths}, count,
        array_of_displacements, count, array_of_types);
}

MPI_API int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                     const MPI_Count array_of_displacements[],
                                     const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_struct_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_struct(call, count, TYPE_COUNTS(array_of_blocklengths),
                         TYPE_COUNTS(array_of_displacements), array_of_types, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_STRUCT, NULL,
                      &(type_counts_t){.nh = 1,
                                       .head = &count,
                                       .n1 = (int)count,
                                       .a = array_of_blocklengths,
                                       .n2 = (int)count,
                                       .b = array_of_displacements},
                      (int)count, array_of_types);
}
MPI_PMPI_ALIAS(Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                      const MPI_Count array_of_displacements[],
                                      const MPI_Datatype array_of_types[], MPI_Datatype *newtype));

static int type_resized(const char *call, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                        MPI_Datatype *newtype)
{
    mpi_type_t *old = NULL, *t = NULL;
    int rc = type_check_ctor(call, 0, oldtype, &old, newtype);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = mpi_type_build_resized(old, lb, extent, &t)) != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc,
                       rc == MPI_ERR_ARG ? "lb %ld + extent %ld overflows an MPI_Aint"
                                         : "out of memory",
                       (long)lb, (long)extent);
    }
    return type_new_handle(call, t, newtype);
}

MPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_resized";

    MPI_CHECK_ACTIVE(call);
    int rc = type_resized(call, oldtype, lb, extent, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_RESIZED, NULL, 2, (MPI_Aint[]){lb, extent}, 1,
                    &oldtype);
}

MPI_API int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                      MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_resized_c";

    MPI_CHECK_ACTIVE(call);
    int rc = type_resized(call, oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
    return type_env_c(call, rc, newtype, MPI_COMBINER_RESIZED, NULL,
                      &(type_counts_t){.nh = 2, .head = (MPI_Count[]){lb, extent}}, 1, &oldtype);
}
MPI_PMPI_ALIAS(Type_create_resized_c,
               (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));

/* Type_dup: the same type map; committed when the old one is. */
MPI_API int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
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
    rc = type_new_handle(call, t, newtype);
    rc = type_env(call, rc, newtype, MPI_COMBINER_DUP, NULL, 0, NULL, 1, &oldtype);
    if (rc == MPI_SUCCESS && (rc = mpi_tattr_copy_all(old->attrs, oldtype, &t->attrs)) != 0) {
        mpi_handle_release(MPI_KIND_DATATYPE_, t->handle); /* the attributes copied go too */
        t->handle = MPI_DATATYPE_NULL;
        mpi_type_release(t);
        *newtype = MPI_DATATYPE_NULL;
        return mpi_err(NULL, call, rc, "an attribute's copy callback failed");
    }
    return rc;
}

/* ---- the names MPI-3.0 removed (MPICH still provides them): the calls that replace them ---- */
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                    newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                  array_of_types, newtype);
}
