/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attribute caching on communicators: keyvals (with their copy and delete callbacks) and the
 * attributes of each communicator. The predefined keys of COMM_WORLD (MPI_TAG_UB, ...) are
 * answered by MPI_Comm_get_attr in mpi_env.c and cannot be set or deleted; user keyvals are
 * numbered from KEYVAL_FIRST. Comm_dup calls each attribute's copy callback (an attribute is
 * copied when it sets flag), Comm_free and Finalize (COMM_SELF first) its delete callback.
 * A freed keyval lives on, unusable by new calls, until no attribute holds it.
 */
#include "mpi/mpi_objects.h"

#include <stdlib.h>

#define KEYVAL_FIRST 16 /* above the predefined keys of mpi.h */

typedef struct {
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra;
    int refs; /* the user's (until Comm_free_keyval) plus one per attribute */
} keyval_t;

struct mpi_attr {
    int keyval;
    void *val;
    struct mpi_attr *next;
};

static keyval_t **keyvals; /* keyvals[k - KEYVAL_FIRST]; NULL: free slot */
static int nkeyvals;

int rcmsg_mpi_null_copy_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                           void *attribute_val_in, void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)comm_keyval, (void)extra_state, (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int rcmsg_mpi_dup_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)comm_keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int rcmsg_mpi_null_delete_fn(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state)
{
    (void)comm, (void)comm_keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

static keyval_t *keyval_get(int k)
{
    if (k < KEYVAL_FIRST || k - KEYVAL_FIRST >= nkeyvals) {
        return NULL;
    }
    return keyvals[k - KEYVAL_FIRST];
}

static void keyval_unref(int k)
{
    keyval_t *kv = keyval_get(k);

    if (kv != NULL && --kv->refs == 0) {
        free(kv);
        keyvals[k - KEYVAL_FIRST] = NULL;
    }
}

static struct mpi_attr **attr_find(mpi_comm_t *c, int k)
{
    struct mpi_attr **a = &c->attrs;

    while (*a != NULL && (*a)->keyval != k) {
        a = &(*a)->next;
    }
    return a;
}

/* deletes *a (its delete callback first; on its error the attribute stays) */
static int attr_delete(mpi_comm_t *c, struct mpi_attr **a)
{
    struct mpi_attr *dead = *a;
    keyval_t *kv = keyval_get(dead->keyval);
    int err = kv->delete_fn(c->handle, dead->keyval, dead->val, kv->extra);

    if (err != MPI_SUCCESS) {
        return err;
    }
    *a = dead->next;
    keyval_unref(dead->keyval);
    free(dead);
    return MPI_SUCCESS;
}

static int attr_add(mpi_comm_t *c, int k, void *val)
{
    struct mpi_attr *a = malloc(sizeof(*a));

    if (a == NULL) {
        return MPI_ERR_NO_MEM;
    }
    a->keyval = k;
    a->val = val;
    a->next = c->attrs;
    c->attrs = a;
    keyval_get(k)->refs++;
    return MPI_SUCCESS;
}

int mpi_attr_get(mpi_comm_t *c, int keyval, void *attribute_val, int *flag)
{
    struct mpi_attr **a;

    if (keyval_get(keyval) == NULL) {
        return mpi_err(c, "MPI_Comm_get_attr", MPI_ERR_KEYVAL, "invalid keyval %d", keyval);
    }
    a = attr_find(c, keyval);
    *flag = *a != NULL;
    if (*a != NULL) {
        *(void **)attribute_val = (*a)->val;
    }
    return MPI_SUCCESS;
}

int mpi_attr_copy_all(mpi_comm_t *from, mpi_comm_t *to)
{
    for (struct mpi_attr *a = from->attrs; a != NULL; a = a->next) {
        keyval_t *kv = keyval_get(a->keyval);
        void *val = NULL;
        int flag = 0, err;

        err = kv->copy_fn(from->handle, a->keyval, kv->extra, a->val, &val, &flag);
        if (err != MPI_SUCCESS) {
            return err;
        }
        if (flag && attr_add(to, a->keyval, val) != MPI_SUCCESS) {
            return MPI_ERR_NO_MEM;
        }
    }
    return MPI_SUCCESS;
}

int mpi_attr_delete_all(mpi_comm_t *c)
{
    while (c->attrs != NULL) {
        int err = attr_delete(c, &c->attrs);

        if (err != MPI_SUCCESS) {
            return err;
        }
    }
    return MPI_SUCCESS;
}

/* At Finalize: frees the attributes left on c (a communicator the program did not free, or
 * one whose delete callback failed) without calling their callbacks. */
void mpi_attr_release_all(mpi_comm_t *c)
{
    while (c->attrs != NULL) {
        struct mpi_attr *dead = c->attrs;

        c->attrs = dead->next;
        keyval_unref(dead->keyval);
        free(dead);
    }
}

/* At Finalize: frees the keyvals (those the program did not free too) and their table. */
void mpi_attr_fini(void)
{
    for (int i = 0; i < nkeyvals; i++) {
        free(keyvals[i]);
    }
    free(keyvals);
    keyvals = NULL;
    nkeyvals = 0;
}

/* ---- for the calls (mpi_attr_api.c) -------------------------------------------------------- */
bool mpi_keyval_live(int k)
{
    return keyval_get(k) != NULL;
}

int mpi_keyval_new(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                   void *extra_state, int *keyval)
{
    keyval_t *kv;
    int i = 0;

    while (i < nkeyvals && keyvals[i] != NULL) {
        i++;
    }
    if (i == nkeyvals) {
        keyval_t **k = realloc(keyvals, (size_t)(nkeyvals + 16) * sizeof(*k));

        if (k == NULL) {
            return MPI_ERR_NO_MEM;
        }
        for (int j = nkeyvals; j < nkeyvals + 16; j++) {
            k[j] = NULL;
        }
        keyvals = k;
        nkeyvals += 16;
    }
    kv = calloc(1, sizeof(*kv));
    if (kv == NULL) {
        return MPI_ERR_NO_MEM;
    }
    kv->copy_fn = copy_fn != NULL ? copy_fn : rcmsg_mpi_null_copy_fn;
    kv->delete_fn = delete_fn != NULL ? delete_fn : rcmsg_mpi_null_delete_fn;
    kv->extra = extra_state;
    kv->refs = 1;
    keyvals[i] = kv;
    *keyval = KEYVAL_FIRST + i;
    return MPI_SUCCESS;
}

void mpi_keyval_release(int k)
{
    keyval_unref(k);
}

int mpi_attr_set(mpi_comm_t *c, int k, void *val, bool *callback_p)
{
    struct mpi_attr **a = attr_find(c, k);
    int err;

    /* a value already there is deleted first (its delete callback called), as MPI says */
    *callback_p = *a != NULL;
    if (*a != NULL && (err = attr_delete(c, a)) != MPI_SUCCESS) {
        return err;
    }
    *callback_p = false;
    return attr_add(c, k, val);
}

int mpi_attr_remove(mpi_comm_t *c, int k, bool *set_p)
{
    struct mpi_attr **a = attr_find(c, k);

    *set_p = *a != NULL;
    return *a != NULL ? attr_delete(c, a) : MPI_SUCCESS;
}
