/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls that describe datatypes (bindings over mpi_type.c): MPI_Type_get_envelope /
 * _contents (the constructors record their arguments: mpi_type_api.c), MPI_Type_set_name /
 * _get_name, MPI_Type_match_size, MPI_Type_create_f90_*, attributes (over mpi_type_attr.c), and
 * MPI_Type_create_darray (an HPF-style distribution of a global array, flattened like a subarray:
 * the elements this process owns, in array order). */
#include "mpi/mpi_engines.h"
#include "mpi/mpi_type.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int env_type(const char *call, MPI_Datatype dt, mpi_type_t **t_p)
{
    MPI_CHECK_ACTIVE(call);
    return mpi_type_check(NULL, call, dt, false, t_p);
}

/* The envelope of t: combiner and the numbers of its arguments (0s for a predefined type). */
static int env_counts(const mpi_type_t *t, MPI_Count n[4])
{
    const mpi_type_env_t *e = t->env;

    n[0] = e != NULL ? e->ni : 0;
    n[1] = e != NULL ? e->na : 0;
    n[2] = e != NULL ? e->nc : 0;
    n[3] = e != NULL ? e->nd : 0;
    return e != NULL ? e->combiner : MPI_COMBINER_NAMED;
}

/* A type of a _c constructor has large counts, which only Type_get_envelope_c /
 * Type_get_contents_c give: the int forms refuse it with MPI_ERR_TYPE (rcmsg's reading of
 * MPI-4.0 5.1.13: their arrays have no place for them, and answering without them would
 * describe another constructor's arguments). */
static int env_no_large(const char *call, const mpi_type_t *t)
{
    if (t->env != NULL && t->env->nc > 0) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "the type was built by a large-count (_c) constructor: its %d large "
                       "count(s) need %s_c",
                       t->env->nc, call);
    }
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_get_envelope";
    mpi_type_t *t = NULL;
    MPI_Count n[4];
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS) {
        return err;
    }
    if (num_integers == NULL || num_addresses == NULL || num_datatypes == NULL ||
        combiner == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "an output argument is NULL");
    }
    if ((err = env_no_large(call, t)) != MPI_SUCCESS) {
        return err;
    }
    *combiner = env_counts(t, n);
    *num_integers = (int)n[0];
    *num_addresses = (int)n[1];
    *num_datatypes = (int)n[3];
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_get_envelope_c";
    mpi_type_t *t = NULL;
    MPI_Count n[4];
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS) {
        return err;
    }
    if (num_integers == NULL || num_addresses == NULL || num_large_counts == NULL ||
        num_datatypes == NULL || combiner == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "an output argument is NULL");
    }
    *combiner = env_counts(t, n);
    *num_integers = n[0];
    *num_addresses = n[1];
    *num_large_counts = n[2];
    *num_datatypes = n[3];
    return MPI_SUCCESS;
}
MPI_PMPI_ALIAS(Type_get_envelope_c,
               (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner));

/* A handle for type c of an envelope: its own for a predefined type (an f90 one too), else a new
 * type equal to it (with its envelope and name), which the program frees (as MPI says). */
static int contents_type(const char *call, mpi_type_t *c, MPI_Datatype *out)
{
    mpi_type_t *n = NULL;

    if (c->predefined || mpi_type_is_f90(c)) {
        *out = c->handle;
        return MPI_SUCCESS;
    }
    if (mpi_type_build_resized(c, c->lb, c->extent, &n) != MPI_SUCCESS) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    n->align = c->align;
    n->committed = c->committed;
    mpi_type_env_share(c, n);
    if (mpi_type_handle_new(n, out) != MPI_SUCCESS) {
        mpi_type_release(n);
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for a datatype handle");
    }
    return MPI_SUCCESS;
}

/* The arrays the program gave Type_get_contents(_c) and their lengths (max[4]: integers,
 * addresses, large counts, datatypes). */
typedef struct {
    MPI_Count max[4];
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types;
} contents_out_t;

static int contents_get(const char *call, MPI_Datatype datatype, const contents_out_t *o)
{
    mpi_type_t *t = NULL;
    const mpi_type_env_t *e;
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS) {
        return err;
    }
    if ((e = t->env) == NULL) {
        return mpi_err(NULL, call, MPI_ERR_TYPE,
                       "%s is predefined (MPI_COMBINER_NAMED): it has no contents",
                       mpi_type_predef_name(datatype));
    }
    if (o->max[0] < e->ni || o->max[1] < e->na || o->max[2] < e->nc || o->max[3] < e->nd ||
        (e->ni > 0 && o->ints == NULL) || (e->na > 0 && o->aints == NULL) ||
        (e->nc > 0 && o->counts == NULL) || (e->nd > 0 && o->types == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       "the arrays hold %lld, %lld, %lld, %lld; the envelope has %d integers, %d "
                       "addresses, %d large counts, %d datatypes (or an array is NULL)",
                       o->max[0], o->max[1], o->max[2], o->max[3], e->ni, e->na, e->nc, e->nd);
    }
    if (e->ni > 0) {
        memcpy(o->ints, e->ints, sizeof(int) * (size_t)e->ni);
    }
    if (e->na > 0) {
        memcpy(o->aints, e->aints, sizeof(MPI_Aint) * (size_t)e->na);
    }
    if (e->nc > 0) {
        memcpy(o->counts, e->counts, sizeof(MPI_Count) * (size_t)e->nc);
    }
    for (int i = 0; i < e->nd && err == MPI_SUCCESS; i++) {
        err = contents_type(call, e->types[i], &o->types[i]);
    }
    return err;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[])
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_get_contents";
    mpi_type_t *t = NULL;
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS || (err = env_no_large(call, t)) != MPI_SUCCESS) {
        return err;
    }
    return contents_get(call, datatype,
                        &(contents_out_t){{max_integers, max_addresses, 0, max_datatypes},
                                          array_of_integers,
                                          array_of_addresses,
                                          NULL,
                                          array_of_datatypes});
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes,
                            int array_of_integers[], MPI_Aint array_of_addresses[],
                            MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    MPI_MT_GUARD();
    return contents_get(
        "MPI_Type_get_contents_c", datatype,
        &(contents_out_t){{max_integers, max_addresses, max_large_counts, max_datatypes},
                          array_of_integers,
                          array_of_addresses,
                          array_of_large_counts,
                          array_of_datatypes});
}
MPI_PMPI_ALIAS(Type_get_contents_c,
               (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                MPI_Datatype array_of_datatypes[]));

/* ---- names ------------------------------------------------------------------------------------
 */
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_set_name";
    mpi_type_t *t = NULL;
    int err = env_type(call, datatype, &t);
    char *copy;

    if (err != MPI_SUCCESS) {
        return err;
    }
    if (type_name == NULL || strlen(type_name) >= MPI_MAX_OBJECT_NAME) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       type_name == NULL ? "type_name is NULL"
                                         : "type_name longer than %d characters",
                       MPI_MAX_OBJECT_NAME - 1);
    }
    if ((copy = strdup(type_name)) == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    free(t->name);
    t->name = copy;
    return MPI_SUCCESS;
}

/* A predefined type's name is its MPI name ("MPI_INT"); a derived type has none ("") until
 * Type_set_name. */
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_get_name";
    mpi_type_t *t = NULL;
    int err = env_type(call, datatype, &t);
    const char *name;

    if (err != MPI_SUCCESS) {
        return err;
    }
    if (type_name == NULL || resultlen == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL type_name or resultlen");
    }
    name = t->name != NULL ? t->name : t->predefined ? mpi_type_predef_name(datatype) : "";
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", name);
    return MPI_SUCCESS;
}

/* ---- attributes ----------------------------------------------------------------------------- */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Type_create_keyval");
    if (type_keyval == NULL) {
        return mpi_err(NULL, "MPI_Type_create_keyval", MPI_ERR_ARG, "type_keyval is NULL");
    }
    err = mpi_tkeyval_new(type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, "MPI_Type_create_keyval", err, "out of memory");
}

static int tkeyval_check(const char *call, int k)
{
    if (!mpi_tkeyval_live(k)) {
        return mpi_err(NULL, call, MPI_ERR_KEYVAL, "invalid datatype keyval %d", k);
    }
    return MPI_SUCCESS;
}

int MPI_Type_free_keyval(int *type_keyval)
{
    MPI_MT_GUARD();
    int err;

    MPI_CHECK_ACTIVE("MPI_Type_free_keyval");
    if (type_keyval == NULL) {
        return mpi_err(NULL, "MPI_Type_free_keyval", MPI_ERR_ARG, "type_keyval is NULL");
    }
    if ((err = tkeyval_check("MPI_Type_free_keyval", *type_keyval)) != MPI_SUCCESS) {
        return err;
    }
    mpi_tkeyval_release(*type_keyval);
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_set_attr";
    mpi_type_t *t = NULL;
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS || (err = tkeyval_check(call, type_keyval)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_tattr_set(&t->attrs, datatype, type_keyval, attribute_val);
    return err == MPI_SUCCESS ? err
                              : mpi_err(NULL, call, err, "the old value's delete callback failed");
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_get_attr";
    mpi_type_t *t = NULL;
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS || (err = tkeyval_check(call, type_keyval)) != MPI_SUCCESS) {
        return err;
    }
    if (attribute_val == NULL || flag == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL attribute_val or flag");
    }
    *flag = mpi_tattr_get(&t->attrs, type_keyval, (void **)attribute_val);
    return MPI_SUCCESS;
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_delete_attr";
    mpi_type_t *t = NULL;
    bool found;
    int err = env_type(call, datatype, &t);

    if (err != MPI_SUCCESS || (err = tkeyval_check(call, type_keyval)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_tattr_delete(&t->attrs, datatype, type_keyval, &found);
    if (!found) {
        return mpi_err(NULL, call, MPI_ERR_KEYVAL, "no attribute of keyval %d on the type",
                       type_keyval);
    }
    return err == MPI_SUCCESS ? err : mpi_err(NULL, call, err, "the delete callback failed");
}

/* ---- Type_match_size ----------------------------------------------------------------------------
 */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPI_MT_GUARD();
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype ints[] = {MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T};
    static const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                        MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *list = typeclass == MPI_TYPECLASS_REAL      ? reals
                               : typeclass == MPI_TYPECLASS_INTEGER ? ints
                                                                    : cplx;
    int n = typeclass == MPI_TYPECLASS_INTEGER ? 4 : 3;

    MPI_CHECK_ACTIVE("MPI_Type_match_size");
    if (datatype == NULL || typeclass < MPI_TYPECLASS_REAL || typeclass > MPI_TYPECLASS_COMPLEX) {
        return mpi_err(NULL, "MPI_Type_match_size", MPI_ERR_ARG,
                       datatype == NULL ? "datatype is NULL" : "invalid typeclass %d", typeclass);
    }
    for (int i = 0; i < n; i++) {
        if (mpi_type_size(mpi_type_get(list[i])) == (size_t)size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    }
    return mpi_err(NULL, "MPI_Type_match_size", MPI_ERR_ARG,
                   "no predefined type of that class has size %d", size);
}

/* ---- Type_create_f90_* (MPI-3.1 17.1.9) ------------------------------------------------------
 * The type of the kind Fortran's selected_int_kind(r) / selected_real_kind(p, r) picks (the
 * smallest of: MPI_INTEGER1, 2, 4, 8, so that the handle is a Fortran integer for the
 * operations of MPI-3.1 5.9.2, without the logical ones; float, double, long double, with the
 * precision and decimal range <float.h> gives them), as a type MPI calls predefined: combiner
 * MPI_COMBINER_F90_*, contents its r (and p, MPI_UNDEFINED kept), committed, not to be freed,
 * the same handle for the same arguments: the live type of that envelope (mpi_type_f90_find;
 * MPI_Finalize releases it with every handle). */

/* the basic type for (combiner, p, r), MPI_DATATYPE_NULL when no kind has them */
static MPI_Datatype f90_choose(int combiner, int p, int r)
{
    static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    static const int int_range[] = {2, 4, 9, 18};
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype cplx[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                        MPI_C_LONG_DOUBLE_COMPLEX};
    static const int real_digits[] = {FLT_DIG, DBL_DIG, LDBL_DIG};
    static const int real_range[] = {
        -FLT_MIN_10_EXP < FLT_MAX_10_EXP ? -FLT_MIN_10_EXP : FLT_MAX_10_EXP,
        -DBL_MIN_10_EXP < DBL_MAX_10_EXP ? -DBL_MIN_10_EXP : DBL_MAX_10_EXP,
        -LDBL_MIN_10_EXP < LDBL_MAX_10_EXP ? -LDBL_MIN_10_EXP : LDBL_MAX_10_EXP};

    if (combiner == MPI_COMBINER_F90_INTEGER) {
        for (int i = 0; i < 4; i++) {
            if (r <= int_range[i]) {
                return ints[i];
            }
        }
        return MPI_DATATYPE_NULL;
    }
    p = p == MPI_UNDEFINED ? 0 : p;
    r = r == MPI_UNDEFINED ? 0 : r;
    for (int i = 0; i < 3; i++) {
        if (p <= real_digits[i] && r <= real_range[i]) {
            return combiner == MPI_COMBINER_F90_REAL ? reals[i] : cplx[i];
        }
    }
    return MPI_DATATYPE_NULL;
}

/* A new f90 type over the basic type c: its envelope (ni of ints), name and handle. */
static int f90_new(const char *call, int combiner, int ni, const int *ints, MPI_Datatype c,
                   MPI_Datatype *newtype)
{
    mpi_type_place_t place = {.child = mpi_type_lookup(c), .disp = 0, .count = 1};
    char name[64];
    mpi_type_t *t = NULL;
    MPI_Datatype h;

    if (combiner == MPI_COMBINER_F90_INTEGER) {
        snprintf(name, sizeof(name), "MPI_Type_create_f90_integer(%d)", ints[0]);
    } else {
        snprintf(name, sizeof(name), "MPI_Type_create_f90_%s(%d, %d)",
                 combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", ints[0], ints[1]);
    }
    if (mpi_type_build(&place, 1, false, &t) != MPI_SUCCESS ||
        mpi_type_env_set(t, combiner, ni, ints, 0, NULL, 0, NULL) != MPI_SUCCESS ||
        (t->name = strdup(name)) == NULL || mpi_type_handle_new(t, &h) != MPI_SUCCESS) {
        mpi_type_release(t);
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    t->committed = true;
    *newtype = h;
    return MPI_SUCCESS;
}

static int f90_type(const char *call, int combiner, int p, int r, MPI_Datatype *newtype)
{
    bool is_int = combiner == MPI_COMBINER_F90_INTEGER;
    int ints[2] = {is_int ? r : p, r}, ni = is_int ? 1 : 2;
    mpi_type_t *t;
    MPI_Datatype c;

    MPI_CHECK_ACTIVE(call);
    if (newtype == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    }
    if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED) ||
        (combiner == MPI_COMBINER_F90_INTEGER && r == MPI_UNDEFINED) ||
        (p == MPI_UNDEFINED && r == MPI_UNDEFINED)) {
        if (combiner == MPI_COMBINER_F90_INTEGER) {
            return mpi_err(NULL, call, MPI_ERR_ARG, "invalid range %d", r);
        }
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       "invalid precision %d or range %d (MPI_UNDEFINED: one of the two)", p, r);
    }
    if ((c = f90_choose(combiner, p, r)) == MPI_DATATYPE_NULL) {
        if (combiner == MPI_COMBINER_F90_INTEGER) {
            return mpi_err(NULL, call, MPI_ERR_ARG, "no integer type has a range of 10^%d", r);
        }
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       "no floating-point type has a precision of %d digits and a range of 10^%d",
                       p, r);
    }
    if ((t = mpi_type_f90_find(combiner, ni, ints)) != NULL) {
        *newtype = t->handle;
        return MPI_SUCCESS;
    }
    return f90_new(call, combiner, ni, ints, c, newtype);
}

/* ---- darray
 * -------------------------------------------------------------------------------------- */
typedef struct {
    int size, rank, ndims, order;
    const MPI_Count *gsizes; /* the int form's widened */
    const int *distribs, *dargs, *psizes;
} darray_t;

static int darray_check(const char *call, const darray_t *a, MPI_Aint extent)
{
    long long all = extent;
    int procs = 1;

    for (int d = 0; d < a->ndims; d++) {
        MPI_Count g = a->gsizes[d];
        int p = a->psizes[d], k = a->dargs[d], ds = a->distribs[d];
        bool dflt = k == MPI_DISTRIBUTE_DFLT_DARG;

        if (g <= 0 || p <= 0 ||
            (ds != MPI_DISTRIBUTE_BLOCK && ds != MPI_DISTRIBUTE_CYCLIC &&
             ds != MPI_DISTRIBUTE_NONE)) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "dimension %d: gsize %lld, psize %d (need > 0), distrib %d", d, g, p,
                           ds);
        }
        if ((!dflt && k <= 0 && ds != MPI_DISTRIBUTE_NONE) ||
            (ds == MPI_DISTRIBUTE_BLOCK && !dflt && (MPI_Count)k * p < g) ||
            (ds == MPI_DISTRIBUTE_NONE && p != 1)) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "dimension %d: darg %d with psize %d does not distribute gsize %lld "
                           "(BLOCK: darg * psize >= gsize; NONE: psize 1)",
                           d, k, p, g);
        }
        if (__builtin_mul_overflow(all, g, &all)) {
            return mpi_err(NULL, call, MPI_ERR_ARG,
                           "the array's extent (dimensions 0 to %d) overflows an MPI_Aint", d);
        }
        procs *= p;
    }
    if (procs != a->size || a->rank < 0 || a->rank >= a->size) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       "size %d, rank %d: the process grid has %d processes", a->size, a->rank,
                       procs);
    }
    return MPI_SUCCESS;
}

/* The global indices this process owns in dimension d (coordinate c), increasing. */
static int darray_owned(const darray_t *a, int d, int c, MPI_Count **idx_p, MPI_Count *n_p)
{
    MPI_Count g = a->gsizes[d], p = a->psizes[d], k = a->dargs[d], n = 0;
    MPI_Count *idx =
        (uint64_t)g > SIZE_MAX / sizeof(MPI_Count) ? NULL : malloc(sizeof(MPI_Count) * (size_t)g);

    if (idx == NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (a->distribs[d] == MPI_DISTRIBUTE_BLOCK && k == MPI_DISTRIBUTE_DFLT_DARG) {
        k = (g + p - 1) / p;
    } else if (a->distribs[d] == MPI_DISTRIBUTE_CYCLIC && k == MPI_DISTRIBUTE_DFLT_DARG) {
        k = 1;
    }
    for (MPI_Count i = 0; i < g; i++) {
        bool mine = a->distribs[d] == MPI_DISTRIBUTE_NONE ||
                    (a->distribs[d] == MPI_DISTRIBUTE_BLOCK ? i / k == c : i / k % p == c);
        if (mine) {
            idx[n++] = i;
        }
    }
    *idx_p = idx;
    *n_p = n;
    return MPI_SUCCESS;
}

/* The placements: one per owned element (the build merges adjacent ones), in array order
 * (dim[0] slowest). */
static int darray_places(const darray_t *a, MPI_Count **idx, const MPI_Count *n, const int *dim,
                         mpi_type_t *old, mpi_type_place_t **p_p, size_t *np_p)
{
    size_t total = 1, k = 0;
    int nd = a->ndims;
    MPI_Count *at = calloc((size_t)nd, sizeof(MPI_Count));
    mpi_type_place_t *p;

    for (int d = 0; d < nd; d++) {
        if (__builtin_mul_overflow(total, (size_t)n[d], &total)) {
            total = SIZE_MAX;
        }
    }
    p = total > SIZE_MAX / sizeof(*p) ? NULL : calloc(total > 0 ? total : 1, sizeof(*p));
    if (p == NULL || at == NULL) {
        free(p);
        free(at);
        return MPI_ERR_NO_MEM;
    }
    while (total > 0 && k < total) {
        MPI_Aint off = 0, stride = 1;

        for (int j = nd - 1; j >= 0; j--) {
            off += (MPI_Aint)idx[dim[j]][at[j]] * stride;
            stride *= (MPI_Aint)a->gsizes[dim[j]];
        }
        p[k++] = (mpi_type_place_t){.child = old, .disp = off * old->extent, .count = 1};
        for (int j = nd - 1; j >= 0 && ++at[j] == n[dim[j]]; j--) {
            at[j] = 0; /* the odometer: the fastest dimension first */
        }
    }
    free(at);
    if (k == 0) { /* this process owns nothing: an empty type (the extent still the array's) */
        p[k++] = (mpi_type_place_t){.child = old, .disp = 0, .count = 0};
    }
    *p_p = p;
    *np_p = k;
    return MPI_SUCCESS;
}

static int darray_build(const darray_t *a, mpi_type_t *old, mpi_type_t **t_p)
{
    int nd = a->ndims, r = a->rank, err = MPI_SUCCESS;
    MPI_Count **idx = calloc((size_t)nd, sizeof(MPI_Count *));
    MPI_Count *n = calloc((size_t)nd, sizeof(MPI_Count));
    int *dim = calloc((size_t)nd, sizeof(int));
    mpi_type_place_t *p = NULL;
    size_t np = 0;
    MPI_Aint all = old->extent;

    err = idx == NULL || n == NULL || dim == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    for (int d = nd - 1; d >= 0 && err == MPI_SUCCESS; d--) { /* the grid is row-major */
        err = darray_owned(a, d, r % a->psizes[d], &idx[d], &n[d]);
        r /= a->psizes[d];
        all *= (MPI_Aint)a->gsizes[d];
    }
    for (int j = 0; j < nd && err == MPI_SUCCESS; j++) {
        dim[j] = a->order == MPI_ORDER_C ? j : nd - 1 - j;
    }
    if (err == MPI_SUCCESS) {
        err = darray_places(a, idx, n, dim, old, &p, &np);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_type_build(p, np, false, t_p);
    }
    if (err == MPI_SUCCESS) {
        (*t_p)->lb = 0;
        (*t_p)->extent = all;
        mpi_type_finish(*t_p);
    }
    for (int d = 0; idx != NULL && d < nd; d++) {
        free(idx[d]);
    }
    free(idx);
    free(n);
    free(dim);
    free(p);
    return err;
}

/* The envelope: the integers size, rank, ndims, gsizes (the int form; the _c form's gsizes
 * are its large counts), distribs, dargs, psizes, order. */
static int darray_env(const darray_t *a, const int *gsizes, mpi_type_t *t, MPI_Datatype oldtype)
{
    int nd = a->ndims, ng = gsizes != NULL ? nd : 0, k = 0;
    int *ints = malloc(sizeof(int) * (size_t)(3 * nd + ng + 4));
    int err;

    if (ints == NULL) {
        return MPI_ERR_NO_MEM;
    }
    ints[k++] = a->size;
    ints[k++] = a->rank;
    ints[k++] = nd;
    for (int d = 0; d < ng; d++) {
        ints[k++] = gsizes[d];
    }
    memcpy(ints + k, a->distribs, sizeof(int) * (size_t)nd);
    memcpy(ints + k + nd, a->dargs, sizeof(int) * (size_t)nd);
    memcpy(ints + k + 2 * nd, a->psizes, sizeof(int) * (size_t)nd);
    ints[k + 3 * nd] = a->order;
    err = mpi_type_env_set(t, MPI_COMBINER_DARRAY, k + 3 * nd + 1, ints, 0, NULL, 1, &oldtype);
    if (err == MPI_SUCCESS && gsizes == NULL) {
        err = mpi_type_env_counts(t, nd, a->gsizes);
    }
    free(ints);
    return err;
}

/* Both forms: gsizes_int the int form's gsizes (NULL: the _c form). */
static int darray(const char *call, const darray_t *a, const int *gsizes_int, MPI_Datatype oldtype,
                  MPI_Datatype *newtype)
{
    mpi_type_t *old = NULL, *t = NULL;
    int err = env_type(call, oldtype, &old);

    if (err == MPI_SUCCESS && newtype == NULL) {
        err = mpi_err(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    }
    if (err != MPI_SUCCESS || (err = darray_check(call, a, old->extent)) != MPI_SUCCESS) {
        return err;
    }
    err = darray_build(a, old, &t);
    if (err == MPI_SUCCESS && (err = darray_env(a, gsizes_int, t, oldtype)) != MPI_SUCCESS) {
        mpi_type_release(t);
    }
    if (err == MPI_SUCCESS && (err = mpi_type_handle_new(t, newtype)) != MPI_SUCCESS) {
        mpi_type_release(t);
    }
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, call, err, "cannot build the type (%s)",
                       err == MPI_ERR_ARG ? "its size or a bound overflows an MPI_Aint"
                                          : "out of memory");
    }
    return MPI_SUCCESS;
}

/* ndims and the arrays: MPI_ERR_ARG raised unless ndims > 0 and none is NULL */
static int darray_arrays(const char *call, int ndims, const void *gsizes, const int *distribs,
                         const int *dargs, const int *psizes, int order)
{
    if (ndims <= 0 || gsizes == NULL || distribs == NULL || dargs == NULL || psizes == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "ndims %d (need > 0) or a NULL array", ndims);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "order %d is not MPI_ORDER_C or _FORTRAN", order);
    }
    return MPI_SUCCESS;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_darray";
    MPI_Count *g;
    int err;

    MPI_CHECK_ACTIVE(call);
    err = darray_arrays(call, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                        array_of_psizes, order);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if ((g = malloc(sizeof(MPI_Count) * (size_t)ndims)) == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int d = 0; d < ndims; d++) {
        g[d] = array_of_gsizes[d];
    }
    err = darray(call,
                 &(darray_t){size, rank, ndims, order, g, array_of_distribs, array_of_dargs,
                             array_of_psizes},
                 array_of_gsizes, oldtype, newtype);
    free(g);
    return err;
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Type_create_darray_c";
    int err;

    MPI_CHECK_ACTIVE(call);
    err = darray_arrays(call, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                        array_of_psizes, order);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return darray(call,
                  &(darray_t){size, rank, ndims, order, array_of_gsizes, array_of_distribs,
                              array_of_dargs, array_of_psizes},
                  NULL, oldtype, newtype);
}
MPI_PMPI_ALIAS(Type_create_darray_c,
               (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                const int array_of_distribs[], const int array_of_dargs[],
                const int array_of_psizes[], int order, MPI_Datatype oldtype,
                MPI_Datatype *newtype));

MPI_API int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    return f90_type("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, newtype);
}
MPI_PMPI_ALIAS(Type_create_f90_integer, (int r, MPI_Datatype *newtype));

MPI_API int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    return f90_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
MPI_PMPI_ALIAS(Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));

MPI_API int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    MPI_MT_GUARD();
    return f90_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
MPI_PMPI_ALIAS(Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
