/* SPDX-License-Identifier: BSD-3-Clause */
/* The calls of info objects (bindings over mpi_info.c), MPI_Comm_set_info / get_info, and
 * MPI_Alloc_mem / MPI_Free_mem (whose info argument they check). A key is at most
 * MPI_MAX_INFO_KEY characters, a value at most MPI_MAX_INFO_VAL, neither empty. */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* the info behind a handle, or the error raised naming call (MPI-4.0: the info calls may be
 * made before MPI_Init and after MPI_Finalize, as here; the others of this file need MPI
 * active) */
static mpi_info_t *info_enter(const char *call, MPI_Info info, bool write, int *err_p)
{
    mpi_info_t *i;

    *err_p = MPI_SUCCESS;
    i = mpi_info_get(info);
    if (i == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_INFO,
                         info == MPI_INFO_NULL ? "MPI_INFO_NULL is not an info object"
                                               : "invalid info %#x",
                         (unsigned)info);
    } else if (write && mpi_info_is_env(i)) {
        *err_p = mpi_err(NULL, call, MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed or freed");
        i = NULL;
    }
    return i;
}

static int info_check_key(const char *call, const char *key)
{
    size_t n = key != NULL ? strlen(key) : 0;

    if (n == 0 || n > MPI_MAX_INFO_KEY) {
        return mpi_err(NULL, call, MPI_ERR_INFO_KEY,
                       key == NULL ? "key is NULL" : "key of %zu characters (1 to %d)", n,
                       MPI_MAX_INFO_KEY);
    }
    return MPI_SUCCESS;
}

int MPI_Info_create(MPI_Info *info)
{
    MPI_MT_GUARD();
    mpi_info_t *i;
    int err;

    if (info == NULL) {
        return mpi_err(NULL, "MPI_Info_create", MPI_ERR_ARG, "info is NULL");
    }
    err = mpi_info_new(info, &i);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, "MPI_Info_create", err, "out of memory");
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_set";
    int err;
    mpi_info_t *i = info_enter(call, info, true, &err);
    size_t n = value != NULL ? strlen(value) : 0;

    if (i == NULL || (err = info_check_key(call, key)) != MPI_SUCCESS) {
        return err;
    }
    if (n == 0 || n > MPI_MAX_INFO_VAL) {
        return mpi_err(NULL, call, MPI_ERR_INFO_VALUE,
                       value == NULL ? "value is NULL" : "value of %zu characters (1 to %d)", n,
                       MPI_MAX_INFO_VAL);
    }
    err = mpi_info_put(i, key, value);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, call, err, "out of memory");
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_get";
    int err, n;
    mpi_info_t *i = info_enter(call, info, false, &err);

    if (i == NULL || (err = info_check_key(call, key)) != MPI_SUCCESS) {
        return err;
    }
    if (valuelen < 0 || flag == NULL || (value == NULL && valuelen > 0)) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       valuelen < 0 ? "negative valuelen %d" : "NULL value or flag", valuelen);
    }
    n = mpi_info_find(i, key);
    *flag = n >= 0;
    if (n >= 0 && value != NULL) { /* at most valuelen characters, and a terminating null */
        size_t len = strlen(i->values[n]);

        len = len < (size_t)valuelen ? len : (size_t)valuelen;
        memcpy(value, i->values[n], len);
        value[len] = '\0';
    }
    return MPI_SUCCESS;
}

/* MPI-4.0 chapter 10: *buflen in: the room at value (0: value not touched, may be NULL); out: the
 * value's length plus its null. At most *buflen - 1 characters are copied, then a null. An
 * absent key leaves value and *buflen as they were. */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_get_string";
    int err, n;
    mpi_info_t *i = info_enter(call, info, false, &err);
    size_t len;

    if (i == NULL || (err = info_check_key(call, key)) != MPI_SUCCESS) {
        return err;
    }
    if (buflen == NULL || flag == NULL || *buflen < 0 || (value == NULL && *buflen > 0)) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       buflen == NULL ? "buflen is NULL"
                       : flag == NULL ? "flag is NULL"
                       : *buflen < 0  ? "negative *buflen %d"
                                      : "value is NULL with *buflen %d",
                       buflen != NULL ? *buflen : 0);
    }
    n = mpi_info_find(i, key);
    *flag = n >= 0;
    if (n < 0) {
        return MPI_SUCCESS;
    }
    len = strlen(i->values[n]);
    if (*buflen > 0) {
        size_t copy = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;

        memcpy(value, i->values[n], copy);
        value[copy] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

/* MPI-4.0 11.2: a new info of the keys MPI_INFO_ENV holds, with command and argv from the
 * arguments (argc / argv as main's; argv NULL: none) */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_create_env";
    mpi_info_t *i;
    int err;

    if (info == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "info is NULL");
    }
    err = mpi_info_new(info, &i);
    if (err == MPI_SUCCESS && (err = mpi_info_env_fill(i, argc, argv)) != MPI_SUCCESS) {
        mpi_info_release(info);
    }
    return err == MPI_SUCCESS ? err : mpi_err(NULL, call, err, "out of memory");
}

/* their profiling names (the same functions) */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
    __attribute__((alias("MPI_Info_get_string")));
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
    __attribute__((alias("MPI_Info_create_env")));

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_get_valuelen";
    int err, n;
    mpi_info_t *i = info_enter(call, info, false, &err);

    if (i == NULL || (err = info_check_key(call, key)) != MPI_SUCCESS) {
        return err;
    }
    if (valuelen == NULL || flag == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL valuelen or flag");
    }
    n = mpi_info_find(i, key);
    *flag = n >= 0;
    if (n >= 0) {
        *valuelen = (int)strlen(i->values[n]);
    }
    return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    MPI_MT_GUARD();
    int err;
    mpi_info_t *i = info_enter("MPI_Info_get_nkeys", info, false, &err);

    if (i == NULL) {
        return err;
    }
    if (nkeys == NULL) {
        return mpi_err(NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG, "nkeys is NULL");
    }
    *nkeys = i->n;
    return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    MPI_MT_GUARD();
    int err;
    mpi_info_t *i = info_enter("MPI_Info_get_nthkey", info, false, &err);

    if (i == NULL) {
        return err;
    }
    if (n < 0 || n >= i->n || key == NULL) {
        return mpi_err(NULL, "MPI_Info_get_nthkey", MPI_ERR_ARG,
                       key == NULL ? "key is NULL" : "key number %d out of range (%d keys)", n,
                       i->n);
    }
    strcpy(key, i->keys[n]); /* at most MPI_MAX_INFO_KEY characters (checked when set) */
    return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Info_delete";
    int err, n;
    mpi_info_t *i = info_enter(call, info, true, &err);

    if (i == NULL || (err = info_check_key(call, key)) != MPI_SUCCESS) {
        return err;
    }
    n = mpi_info_find(i, key);
    if (n < 0) {
        return mpi_err(NULL, call, MPI_ERR_INFO_NOKEY, "no key \"%s\" in info %#x", key,
                       (unsigned)info);
    }
    mpi_info_remove(i, n);
    return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    MPI_MT_GUARD();
    int err;
    mpi_info_t *i = info_enter("MPI_Info_dup", info, false, &err);

    if (i == NULL) {
        return err;
    }
    if (newinfo == NULL) {
        return mpi_err(NULL, "MPI_Info_dup", MPI_ERR_ARG, "newinfo is NULL");
    }
    err = mpi_info_copy(i, newinfo);
    return err == MPI_SUCCESS ? err : mpi_err(NULL, "MPI_Info_dup", err, "out of memory");
}

int MPI_Info_free(MPI_Info *info)
{
    MPI_MT_GUARD();
    int err;

    if (info == NULL) {
        return mpi_err(NULL, "MPI_Info_free", MPI_ERR_ARG, "info is NULL");
    }
    if (info_enter("MPI_Info_free", *info, true, &err) == NULL) {
        return err;
    }
    mpi_info_release(info);
    return MPI_SUCCESS;
}

/* Comm_set_info checks info; rcmsg reads no hint of a communicator, so Comm_get_info returns a
 * new info of the hints "actually used" (MPI-3.1 6.4.4; an unknown hint is ignored, as MPICH
 * does): only the "mpi_hw_resource_type" of a communicator made by Comm_split_type (MPI-4.0
 * 7.4.2). */
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_enter(comm, "MPI_Comm_set_info", &err);

    if (c == NULL || info_enter("MPI_Comm_set_info", info, false, &err) == NULL) {
        return err;
    }
    return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c = mpi_comm_enter(comm, "MPI_Comm_get_info", &err);
    mpi_info_t *i;

    if (c == NULL) {
        return err;
    }
    if (info_used == NULL) {
        return mpi_err(c, "MPI_Comm_get_info", MPI_ERR_ARG, "info_used is NULL");
    }
    err = mpi_info_new(info_used, &i);
    if (err == MPI_SUCCESS && c->hw_type != NULL &&
        (err = mpi_info_put(i, "mpi_hw_resource_type", c->hw_type)) != MPI_SUCCESS) {
        mpi_info_release(info_used);
    }
    return err == MPI_SUCCESS ? err : mpi_err(c, "MPI_Comm_get_info", err, "out of memory");
}

/* ---- memory -------------------------------------------------------------------------------- */
/* Alloc_mem: malloc'd memory (rcmsg registers what it sends as it goes); info is checked, its
 * hints not read. Free_mem of NULL does nothing. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Alloc_mem";
    int err;
    void *p;

    MPI_CHECK_ACTIVE(call);
    if (info != MPI_INFO_NULL && info_enter(call, info, false, &err) == NULL) {
        return err;
    }
    if (size < 0 || baseptr == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG,
                       size < 0 ? "negative size %ld" : "baseptr is NULL (size %ld)", (long)size);
    }
    p = malloc(size > 0 ? (size_t)size : 1);
    if (p == NULL) {
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
