/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of datatypes (bindings over mpi_type.c's objects): the constructors,
 * commit/dup/free, size and extents. */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the MPI calls ---- */

static int type_check(const char *call, MPI_Datatype dt, mpi_type_t **t_p)
{
    return mpi_type_check(NULL, call, dt, false, t_p);
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

/* After a constructor (rc its outcome): newtype's envelope (MPI_Type_get_envelope) recorded;
 * when that fails, the type is freed and MPI_ERR_NO_MEM raised. ints: n1 integers of a (or
 * none), then n2 of b, then n3 of c, after the nh of head. */
typedef struct {
    int nh, n1, n2, n3;
    const int *head, *a, *b, *c;
} type_ints_t;

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
    if (rc != MPI_SUCCESS) {
        mpi_handle_release(MPI_KIND_DATATYPE_, t->handle);
        t->handle = MPI_DATATYPE_NULL;
        mpi_type_release(t);
        *newtype = MPI_DATATYPE_NULL;
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for the type's envelope");
    }
    return MPI_SUCCESS;
}

MPI_API int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_contiguous";
    mpi_type_place_t p = {.disp = 0, .count = (size_t)count};
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, count, oldtype, &p.child, newtype);
    rc = rc != MPI_SUCCESS ? rc : type_new(call, &p, 1, false, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_CONTIGUOUS,
                    &(type_ints_t){.nh = 1, .head = &count}, 0, NULL, 1, &oldtype);
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
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_vector";
    mpi_type_t *old = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = type_check_ctor(call, count, oldtype, &old, newtype);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = type_hvector(call, count, blocklength, (MPI_Aint)stride * old->extent, oldtype, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_VECTOR,
                    &(type_ints_t){.nh = 3, .head = (int[]){count, blocklength, stride}}, 0, NULL,
                    1, &oldtype);
}

MPI_API int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Type_create_hvector");
    int rc = type_hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype);
    return type_env("MPI_Type_create_hvector", rc, newtype, MPI_COMBINER_HVECTOR,
                    &(type_ints_t){.nh = 2, .head = (int[]){count, blocklength}}, 1, &stride, 1,
                    &oldtype);
}

/* indexed, hindexed, indexed_block, hindexed_block: block i has bls[i] elements (block: bl
 * each) at disps[i], in extents of oldtype (an int array) or in bytes (bytes: an MPI_Aint
 * array). */
static int type_indexed(const char *call, int count, bool block, const int *bls, int bl, bool bytes,
                        const void *disps, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mpi_type_place_t *p;
    mpi_type_t *old = NULL;
    int rc;

    MPI_CHECK_ACTIVE(call);
    rc = block ? MPI_SUCCESS : type_check_array(call, count, bls, "array_of_blocklengths");
    if (rc == MPI_SUCCESS) {
        rc = type_check_array(call, count, disps, "array_of_displacements");
    }
    if (rc == MPI_SUCCESS) {
        rc = type_check_ctor(call, count, oldtype, &old, newtype);
    }
    if (rc != MPI_SUCCESS || (rc = type_places(call, count, &p)) != MPI_SUCCESS) {
        return rc;
    }
    if (block && (rc = type_check_bl(call, bl, 0)) != MPI_SUCCESS) {
        free(p);
        return rc;
    }
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        int n = block ? bl : bls[i];

        rc = type_check_bl(call, n, i);
        p[i] = (mpi_type_place_t){.child = old,
                                  .disp = bytes ? ((const MPI_Aint *)disps)[i]
                                                : ((const int *)disps)[i] * old->extent,
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
    MPI_MT_GUARD();
    int rc = type_indexed("MPI_Type_indexed", count, false, array_of_blocklengths, 0, false,
                          array_of_displacements, oldtype, newtype);
    return type_env("MPI_Type_indexed", rc, newtype, MPI_COMBINER_INDEXED,
                    &(type_ints_t){.nh = 1,
                                   .head = &count,
                                   .n1 = count,
                                   .a = array_of_blocklengths,
                                   .n2 = count,
                                   .b = array_of_displacements},
                    0, NULL, 1, &oldtype);
}

MPI_API int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    int rc = type_indexed("MPI_Type_create_hindexed", count, false, array_of_blocklengths, 0, true,
                          array_of_displacements, oldtype, newtype);
    return type_env(
        "MPI_Type_create_hindexed", rc, newtype, MPI_COMBINER_HINDEXED,
        &(type_ints_t){.nh = 1, .head = &count, .n1 = count, .a = array_of_blocklengths}, count,
        array_of_displacements, 1, &oldtype);
}

MPI_API int MPI_Type_create_indexed_block(int count, int blocklength,
                                          const int array_of_displacements[], MPI_Datatype oldtype,
                                          MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    int rc = type_indexed("MPI_Type_create_indexed_block", count, true, NULL, blocklength, false,
                          array_of_displacements, oldtype, newtype);
    return type_env(
        "MPI_Type_create_indexed_block", rc, newtype, MPI_COMBINER_INDEXED_BLOCK,
        &(type_ints_t){
            .nh = 2, .head = (int[]){count, blocklength}, .n1 = count, .a = array_of_displacements},
        0, NULL, 1, &oldtype);
}

MPI_API int MPI_Type_create_hindexed_block(int count, int blocklength,
                                           const MPI_Aint array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    int rc = type_indexed("MPI_Type_create_hindexed_block", count, true, NULL, blocklength, true,
                          array_of_displacements, oldtype, newtype);
    return type_env("MPI_Type_create_hindexed_block", rc, newtype, MPI_COMBINER_HINDEXED_BLOCK,
                    &(type_ints_t){.nh = 2, .head = (int[]){count, blocklength}}, count,
                    array_of_displacements, 1, &oldtype);
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
        mpi_type_finish(*t_p);
    }
    free(p);
    free(dim);
    return rc;
}

MPI_API int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                     const int array_of_subsizes[], const int array_of_starts[],
                                     int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
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
    rc = type_new_handle(call, t, newtype);
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
    MPI_MT_GUARD();
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
    return type_env(
        call, rc, newtype, MPI_COMBINER_STRUCT,
        &(type_ints_t){.nh = 1, .head = &count, .n1 = count, .a = array_of_blocklengths}, count,
        array_of_displacements, count, array_of_types);
}

MPI_API int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
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
    rc = type_new_handle(call, t, newtype);
    return type_env(call, rc, newtype, MPI_COMBINER_RESIZED, NULL, 2, (MPI_Aint[]){lb, extent}, 1,
                    &oldtype);
}

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
    MPI_MT_GUARD();
    mpi_type_t *t = NULL;
    int rc = type_check_ref("MPI_Type_commit", datatype, &t);

    if (rc == MPI_SUCCESS) {
        t->committed = true; /* flattened at construction: nothing else to do */
    }
    return rc;
}

/* The name of a predefined type, for the errors. */

/* Type_free releases the handle; the type lives on while a parent type or a pending
 * operation holds a reference (mpi_type_retain). */
MPI_API int MPI_Type_free(MPI_Datatype *datatype)
{
    MPI_MT_GUARD();
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
                       mpi_type_predef_name(*datatype), (unsigned)*datatype);
    }
    if (mpi_type_is_f90(t)) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "cannot free %s (0x%x): MPI calls the types of MPI_Type_create_f90_* "
                       "predefined",
                       t->name != NULL ? t->name : "an f90 type", (unsigned)*datatype);
    }
    if ((rc = mpi_tattr_delete_all(&t->attrs, *datatype)) != MPI_SUCCESS) {
        return mpi_err(NULL, call, rc, "an attribute's delete callback failed");
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
    MPI_MT_GUARD();
    return type_get_size("MPI_Type_size_x", datatype, true, size);
}

MPI_API int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_MT_GUARD();
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
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_extent", datatype, false, false, lb, extent);
}

MPI_API int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_extent_x", datatype, false, true, lb, extent);
}

MPI_API int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                     MPI_Aint *true_extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_true_extent", datatype, true, false, true_lb, true_extent);
}

MPI_API int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                       MPI_Count *true_extent)
{
    MPI_MT_GUARD();
    return type_get_extent("MPI_Type_get_true_extent_x", datatype, true, true, true_lb,
                           true_extent);
}

/* Valid before Init and after Finalize too (it touches no state). */
MPI_API int MPI_Get_address(const void *location, MPI_Aint *address)
{
    MPI_MT_GUARD();
    if (address == NULL) {
        return mpi_err(NULL, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
    }
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

/* ---- the names MPI-3.0 removed (MPICH still provides them): the calls that replace them ---- */
int MPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}

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
