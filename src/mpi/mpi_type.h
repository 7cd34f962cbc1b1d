/* SPDX-License-Identifier: BSD-3-Clause */
/* The datatype engine of the MPI face (mpi_type.c, mpi_pack.c): the object behind an
 * MPI_Datatype handle. Private to those two files and their unit test; the rest of src/mpi
 * uses only the mpi_type_* functions declared in mpi_objects.h.
 *
 * A type is its type map flattened once, at construction, into the (offset, length) byte
 * blocks of ONE element, in type-map order (the order Pack writes them), adjacent blocks
 * merged. Element i of a buffer starts at buf + i * extent. The type signature is kept as
 * (child, count) runs, each holding a reference on the child, so that Get_elements can count
 * basic elements in a partial element without flattening the signature. */
#ifndef RCMSG_MPI_TYPE_H
#define RCMSG_MPI_TYPE_H

#include "mpi/mpi_objects.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    MPI_Aint off; /* from the start of the element (buf + i * extent) */
    size_t len;
} mpi_type_block_t;

/* The signature: count copies of child's signature, in order. */
typedef struct {
    mpi_type_t *child;
    size_t count;
} mpi_type_sig_t;

/* How a derived type was made (MPI_Type_get_envelope / _contents): the constructor's
 * combiner and its integer, address, large-count (a _c constructor's MPI_Count arguments) and
 * datatype arguments (each type held); shared by the copies MPI_Type_get_contents returns. */
typedef struct mpi_type_env {
    int refs;
    int combiner;
    int ni, na, nc, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    struct mpi_type **types;
} mpi_type_env_t;

/* How a basic type's elements convert to external32 (mpi_pack_ext.c); MPI_EXT_NONE: not a
 * basic type (derived types are converted by their signature). */
typedef enum {
    MPI_EXT_NONE,
    MPI_EXT_RAW,   /* the bytes as they are (one-byte types) */
    MPI_EXT_BOOL,  /* one byte, 0 or 1 */
    MPI_EXT_SINT,  /* a signed integer, big-endian */
    MPI_EXT_UINT,  /* an unsigned integer, big-endian */
    MPI_EXT_FLOAT, /* IEEE float or double, big-endian */
    MPI_EXT_LDBL,  /* IEEE binary128, big-endian */
} mpi_ext_kind_t;

struct mpi_type {
    int refs;        /* the handle (until Type_free) + each parent + each pending operation */
    bool predefined; /* never freed; a basic type has nsig == 0 */
    bool committed;
    MPI_Datatype handle; /* MPI_DATATYPE_NULL once Type_free released the handle */
    size_t size;         /* bytes of data in one element */
    MPI_Aint lb, extent; /* ub = lb + extent */
    MPI_Aint true_lb, true_ub;
    size_t align;    /* for the padding of a struct's extent (as MPICH) */
    MPI_Count basic; /* basic elements in one element (Get_elements) */
    bool contig;     /* count elements are one block of count * size bytes at buf + true_lb */
    rcmsg_datatype_t rdt;
    bool rdt_ok;                /* rdt is meaningful: a predefined type reductions know */
    rcmsg_datatype_t elem;      /* rcmsg's datatype of one element (mpi_type_elem), or NULL */
    mpi_ext_kind_t ext_kind;    /* a basic type's external32 form: ext_parts parts (2: complex) */
    size_t ext_size, ext_parts; /* of ext_size bytes each */
    size_t nblocks;
    mpi_type_block_t *blocks; /* &block0 for a basic type */
    mpi_type_block_t block0;
    size_t nsig;
    mpi_type_sig_t *sig;
    struct mpi_type *prev, *next; /* the list of live derived types (mpi_type_fini) */
    mpi_type_env_t *env;          /* NULL: a predefined type (MPI_COMBINER_NAMED) */
    char *name;                   /* MPI_Type_set_name's (NULL: none set) */
    struct mpi_tattr *attrs;      /* cached attributes (mpi_type_attr.c) */
};

/* Placement of count consecutive elements of child at displacement disp (bytes): every
 * constructor is a list of these. */
typedef struct {
    mpi_type_t *child;
    MPI_Aint disp;
    size_t count;
} mpi_type_place_t;

/* Build a derived type from n placements into *type_p (not committed, one reference, no
 * handle); MPI_ERR_NO_MEM, or MPI_ERR_ARG when the size passes PTRDIFF_MAX or a bound overflows
 * an MPI_Aint. is_struct pads the extent
 * to the largest alignment of the children, as MPICH does. */
int mpi_type_build(const mpi_type_place_t *place, size_t n, bool is_struct, mpi_type_t **type_p);
/* the name of a predefined type ("MPI_INT"), "a predefined type" when not found */
const char *mpi_type_predef_name(MPI_Datatype dt);
/* after the fields of a built type are set: its derived properties (contig, ...) */
void mpi_type_finish(mpi_type_t *t);
/* Type_create_resized: a new type over old with this lb and extent (MPI_ERR_ARG when lb + extent
 * overflows an MPI_Aint, MPI_ERR_NO_MEM). */
int mpi_type_build_resized(mpi_type_t *old, MPI_Aint lb, MPI_Aint extent, mpi_type_t **type_p);

/* Records t's envelope: combiner and copies of the arguments (the nd types held). MPI_SUCCESS
 * or MPI_ERR_NO_MEM. mpi_type_env_share: to gets from's envelope (a copy of from). */
int mpi_type_env_set(mpi_type_t *t, int combiner, int ni, const int *ints, int na,
                     const MPI_Aint *aints, int nd, const MPI_Datatype *types);
void mpi_type_env_share(const mpi_type_t *from, mpi_type_t *to);
/* After mpi_type_env_set: t's envelope also has the nc large counts of a _c constructor.
 * MPI_SUCCESS or MPI_ERR_NO_MEM (the envelope then has none). */
int mpi_type_env_counts(mpi_type_t *t, int nc, const MPI_Count *counts);
/* a handle for t (never a predefined type's slot): MPI_SUCCESS or MPI_ERR_NO_MEM */
int mpi_type_handle_new(mpi_type_t *t, MPI_Datatype *h_p);

/* The type behind dt (committed when need_commit), or MPI_ERR_TYPE raised on c (NULL:
 * MPI_COMM_WORLD) naming call and the problem. */
int mpi_type_check(mpi_comm_t *c, const char *call, MPI_Datatype dt, bool need_commit,
                   mpi_type_t **t_p);

/* A type of MPI_Type_create_f90_* (mpi_type_env_api.c): MPI calls it predefined, so it is never
 * freed and an envelope's contents name it by its own handle. */
static inline bool mpi_type_is_f90(const mpi_type_t *t)
{
    return t->env != NULL && (t->env->combiner == MPI_COMBINER_F90_INTEGER ||
                              t->env->combiner == MPI_COMBINER_F90_REAL ||
                              t->env->combiner == MPI_COMBINER_F90_COMPLEX);
}

/* The live type of MPI_Type_create_f90_* whose envelope is combiner and the ni integers ints,
 * or NULL (the same arguments give the same handle). */
mpi_type_t *mpi_type_f90_find(int combiner, int ni, const int *ints);

/* The predefined types (mpi_type.c), built at the first lookup. */
extern mpi_type_t mpi_type_predef[MPI_DT_PREDEFINED_COUNT_];
extern bool mpi_type_predef_ready;
mpi_type_t *mpi_type_predef_first(MPI_Datatype dt); /* builds them, then looks dt up */

/* mpi_type_get, inline where this header is seen (the Send/Recv fast path looks its type up
 * on every call). */
static inline mpi_type_t *mpi_type_lookup(MPI_Datatype dt)
{
    unsigned idx = (unsigned)dt & MPI_HANDLE_INDEX_MASK;

    if ((unsigned)dt >> MPI_HANDLE_KIND_SHIFT != MPI_KIND_DATATYPE_) {
        return NULL;
    }
    if (idx < MPI_DT_PREDEFINED_COUNT_) {
        if (__builtin_expect(!mpi_type_predef_ready, 0)) {
            return mpi_type_predef_first(dt);
        }
        return mpi_type_predef[idx].size > 0 ? &mpi_type_predef[idx] : NULL;
    }
    return mpi_handle_get(MPI_KIND_DATATYPE_, dt);
}

#endif /* RCMSG_MPI_TYPE_H */
