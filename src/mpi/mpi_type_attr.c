/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attribute caching on datatypes (MPI-3.1 6.7.4) and windows (6.7.3): keyvals with their copy
 * and delete callbacks, each of one kind of object (a type's keyval is no window's), and each
 * object's attributes (a list the object points to; a window's are never copied). MPI_Type_dup
 * copies them through the copy callbacks, MPI_Type_free deletes them through the delete
 * callbacks (mpi_type_api.c); a type destroyed later only lets go of the list. Type keyvals are
 * numbered from TKEYVAL_FIRST, apart from the communicators' (mpi_attr.c). A freed keyval lives
 * on, unusable by new calls, until no attribute holds it.
 */
#include "mpi/mpi_objects.h"

#include <stdlib.h>

#define TKEYVAL_FIRST 4096

typedef struct {
    MPI_Type_copy_attr_function *copy_fn;
    MPI_Type_delete_attr_function *delete_fn;
    void *extra;
    int kind; /* MPI_KIND_DATATYPE_ or MPI_KIND_WIN_ */
    int refs; /* the program's (until Type_free_keyval) plus one per attribute */
} tkeyval_t;

struct mpi_tattr {
    int keyval;
    void *val;
    struct mpi_tattr *next;
};

static tkeyval_t **tkeyvals; /* tkeyvals[k - TKEYVAL_FIRST]; NULL: free slot */
static int ntkeyvals;

static tkeyval_t *tkeyval_get(int k)
{
    if (k < TKEYVAL_FIRST || k - TKEYVAL_FIRST >= ntkeyvals) {
        return NULL;
    }
    return tkeyvals[k - TKEYVAL_FIRST];
}

static void tkeyval_unref(int k)
{
    tkeyval_t *kv = tkeyval_get(k);

    if (kv != NULL && --kv->refs == 0) {
        free(kv);
        tkeyvals[k - TKEYVAL_FIRST] = NULL;
    }
}

int mpi_tkeyval_new_of(int kind, MPI_Type_copy_attr_function *copy_fn,
                       MPI_Type_delete_attr_function *delete_fn, void *extra, int *keyval)
{
    tkeyval_t *kv = malloc(sizeof(*kv));
    int i = 0;

    while (i < ntkeyvals && tkeyvals[i] != NULL) {
        i++;
    }
    if (kv != NULL && i == ntkeyvals) {
        tkeyval_t **n = realloc(tkeyvals, sizeof(*n) * (size_t)(ntkeyvals + 8));

        if (n == NULL) {
            free(kv);
            return MPI_ERR_NO_MEM;
        }
        tkeyvals = n;
        for (int j = ntkeyvals; j < ntkeyvals + 8; j++) {
            tkeyvals[j] = NULL;
        }
        ntkeyvals += 8;
    }
    if (kv == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *kv = (tkeyval_t){copy_fn, delete_fn, extra, kind, 1};
    tkeyvals[i] = kv;
    *keyval = TKEYVAL_FIRST + i;
    return MPI_SUCCESS;
}

int mpi_tkeyval_new(MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn,
                    void *extra, int *keyval)
{
    return mpi_tkeyval_new_of(MPI_KIND_DATATYPE_, copy_fn, delete_fn, extra, keyval);
}

bool mpi_tkeyval_live_of(int kind, int k)
{
    return tkeyval_get(k) != NULL && tkeyval_get(k)->refs > 0 && tkeyval_get(k)->kind == kind;
}

bool mpi_tkeyval_live(int k)
{
    return mpi_tkeyval_live_of(MPI_KIND_DATATYPE_, k);
}

void mpi_tkeyval_release(int k)
{
    tkeyval_unref(k);
}

static struct mpi_tattr **tattr_find(struct mpi_tattr **list, int k)
{
    while (*list != NULL && (*list)->keyval != k) {
        list = &(*list)->next;
    }
    return list;
}

/* deletes *a (its delete callback first; on its error the attribute stays) */
static int tattr_delete(MPI_Datatype h, struct mpi_tattr **a)
{
    struct mpi_tattr *dead = *a;
    tkeyval_t *kv = tkeyval_get(dead->keyval);
    int err =
        kv->delete_fn != NULL ? kv->delete_fn(h, dead->keyval, dead->val, kv->extra) : MPI_SUCCESS;

    if (err != MPI_SUCCESS) {
        return err;
    }
    *a = dead->next;
    tkeyval_unref(dead->keyval);
    free(dead);
    return MPI_SUCCESS;
}

int mpi_tattr_set(struct mpi_tattr **list, MPI_Datatype h, int k, void *val)
{
    struct mpi_tattr **a = tattr_find(list, k), *n;
    int err;

    if (*a != NULL && (err = tattr_delete(h, a)) != MPI_SUCCESS) {
        return err;
    }
    if ((n = malloc(sizeof(*n))) == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *n = (struct mpi_tattr){k, val, *list};
    *list = n;
    tkeyval_get(k)->refs++;
    return MPI_SUCCESS;
}

bool mpi_tattr_get(struct mpi_tattr *const *list, int k, void **val_p)
{
    struct mpi_tattr *const *a = tattr_find((struct mpi_tattr **)list, k);

    if (*a == NULL) {
        return false;
    }
    *val_p = (*a)->val;
    return true;
}

int mpi_tattr_delete(struct mpi_tattr **list, MPI_Datatype h, int k, bool *found_p)
{
    struct mpi_tattr **a = tattr_find(list, k);

    *found_p = *a != NULL;
    return *a != NULL ? tattr_delete(h, a) : MPI_SUCCESS;
}

int mpi_tattr_copy_all(struct mpi_tattr *from, MPI_Datatype fromh, struct mpi_tattr **to)
{
    for (struct mpi_tattr *a = from; a != NULL; a = a->next) {
        tkeyval_t *kv = tkeyval_get(a->keyval);
        void *out = NULL;
        int flag = 0, err;

        if (kv->copy_fn == NULL) {
            continue;
        }
        err = kv->copy_fn(fromh, a->keyval, kv->extra, a->val, &out, &flag);
        if (err == MPI_SUCCESS && flag) {
            struct mpi_tattr *n = malloc(sizeof(*n));

            if (n == NULL) {
                return MPI_ERR_NO_MEM;
            }
            *n = (struct mpi_tattr){a->keyval, out, *to};
            *to = n;
            kv->refs++;
        }
        if (err != MPI_SUCCESS) {
            return err;
        }
    }
    return MPI_SUCCESS;
}

int mpi_tattr_delete_all(struct mpi_tattr **list, MPI_Datatype h)
{
    int err = MPI_SUCCESS;

    while (*list != NULL && err == MPI_SUCCESS) {
        err = tattr_delete(h, list);
    }
    return err;
}

void mpi_tattr_release_all(struct mpi_tattr **list)
{
    while (*list != NULL) {
        struct mpi_tattr *dead = *list;

        *list = dead->next;
        tkeyval_unref(dead->keyval);
        free(dead);
    }
}

int rcmsg_mpi_type_null_copy_fn(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)type_keyval, (void)extra_state, (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int rcmsg_mpi_type_dup_fn(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldtype, (void)type_keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int rcmsg_mpi_type_null_delete_fn(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                  void *extra_state)
{
    (void)datatype, (void)type_keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}
