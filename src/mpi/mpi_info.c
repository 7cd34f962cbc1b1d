/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Info objects (MPI-3.1 chapter 9): ordered lists of (key, value) strings behind MPI_Info
 * handles, usable before MPI_Init and after MPI_Finalize (MPI-4.0: the info calls may be made at
 * any time; their handle table outlives MPI_Finalize), and the predefined MPI_INFO_ENV (filled at
 * its first use: the number of processes the launcher started, the host, its architecture, the
 * working directory; MPI_Info_create_env's infos are filled the same way, with the program's
 * command and arguments when given). The calls are in mpi_info_api.c.
 */
#include "mpi/mpi_objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define INFO_ENV_INDEX (MPI_INFO_ENV & MPI_HANDLE_INDEX_MASK)

static mpi_info_t info_env;
static bool info_env_early; /* filled before MPI_Init (the job's keys not known yet) */
static bool info_env_done;  /* filled while MPI was active: kept after MPI_Finalize */

/* "command" and "argv" (MPI-4.0 11.2: the program, its arguments separated by spaces) from
 * argv[0 .. argc - 1], when given; argv left out when it would exceed MPI_MAX_INFO_VAL */
static int info_env_args(mpi_info_t *i, int argc, char *argv[])
{
    char buf[MPI_MAX_INFO_VAL + 1];
    size_t len = 0;
    int err;

    if (argc <= 0 || argv == NULL || argv[0] == NULL || argv[0][0] == '\0' ||
        strlen(argv[0]) > MPI_MAX_INFO_VAL) {
        return MPI_SUCCESS;
    }
    err = mpi_info_put(i, "command", argv[0]);
    for (int a = 1; err == MPI_SUCCESS && a < argc && argv[a] != NULL; a++) {
        size_t n = strlen(argv[a]);

        if (len + (len > 0) + n > MPI_MAX_INFO_VAL) {
            return MPI_SUCCESS;
        }
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len > 0 ? " " : "", argv[a]);
    }
    return err == MPI_SUCCESS && len > 0 ? mpi_info_put(i, "argv", buf) : err;
}

/* MPI-4.0 11.2.1's maxprocs, "number of MPI processes to start": the launcher's count
 * (rcmsg_launcher_size: known before MPI_Init as after, so that MPI_INFO_ENV says the same at
 * any time, MPICH's info/infocreateenv; 1 without a launcher); a launcher that gives no count:
 * the job's size while MPI is active; 0: unknown. */
static int info_env_maxprocs(void)
{
    int n = rcmsg_launcher_size();

    return n > 0 ? n : rcmsg_size() > 0 ? rcmsg_size() : 0;
}

/* No thread_level: MPI-4.0 defines it as the level requested before the program started (a
 * launcher's option), which no launcher here gives; MPI_Query_thread has the level granted. */
int mpi_info_env_fill(mpi_info_t *i, int argc, char *argv[])
{
    char buf[4096];
    struct utsname u;
    int err = info_env_args(i, argc, argv), maxprocs = info_env_maxprocs();

    snprintf(buf, sizeof(buf), "%d", maxprocs);
    if (err == MPI_SUCCESS && maxprocs > 0) {
        err = mpi_info_put(i, "maxprocs", buf);
    }
    if (err == MPI_SUCCESS && gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        err = mpi_info_put(i, "host", buf);
    }
    if (err == MPI_SUCCESS && uname(&u) == 0) {
        err = mpi_info_put(i, "arch", u.machine);
    }
    if (err == MPI_SUCCESS && getcwd(buf, sizeof(buf)) != NULL) {
        err = mpi_info_put(i, "wdir", buf);
    }
    return err;
}

/* MPI_INFO_ENV's slot, so that no created info gets its handle */
static int info_claim_env(void)
{
    if (mpi_handle_get(MPI_KIND_INFO_, MPI_INFO_ENV) != NULL) {
        return MPI_SUCCESS;
    }
    return mpi_handle_set(MPI_KIND_INFO_, INFO_ENV_INDEX, &info_env);
}

static void info_clear(mpi_info_t *i)
{
    while (i->n > 0) {
        mpi_info_remove(i, i->n - 1);
    }
    free(i->keys);
    free(i->values);
    i->keys = i->values = NULL;
    i->cap = 0;
}

/* MPI_INFO_ENV is filled at its first use, and again at the first while MPI is active (before
 * MPI_Init, without a launcher's count, it lacks maxprocs); that one is kept after MPI_Finalize */
mpi_info_t *mpi_info_get(MPI_Info info)
{
    bool active = rcmsg_size() > 0; /* the job is known (between MPI_Init and MPI_Finalize) */

    if (info == MPI_INFO_ENV && !info_env_done && (active || !info_env_early)) {
        info_clear(&info_env);
        info_env_early = true;
        info_env_done = active;
        if (info_claim_env() != MPI_SUCCESS ||
            mpi_info_env_fill(&info_env, 0, NULL) != MPI_SUCCESS) {
            return NULL;
        }
    }
    return mpi_handle_get(MPI_KIND_INFO_, info);
}

bool mpi_info_is_env(const mpi_info_t *i)
{
    return i == &info_env;
}

int mpi_info_new(MPI_Info *info_p, mpi_info_t **i_p)
{
    mpi_info_t *i = calloc(1, sizeof(*i));
    int err = i == NULL ? MPI_ERR_NO_MEM : info_claim_env();

    if (err == MPI_SUCCESS) {
        err = mpi_handle_alloc(MPI_KIND_INFO_, i, info_p);
    }
    if (err != MPI_SUCCESS) {
        free(i);
        return err;
    }
    *i_p = i;
    return MPI_SUCCESS;
}

int mpi_info_find(const mpi_info_t *i, const char *key)
{
    for (int n = 0; n < i->n; n++) {
        if (strcmp(i->keys[n], key) == 0) {
            return n;
        }
    }
    return -1;
}

int mpi_info_put(mpi_info_t *i, const char *key, const char *value)
{
    int n = mpi_info_find(i, key);
    char *v = strdup(value);
    char *k = n < 0 ? strdup(key) : NULL;

    if (v == NULL || (n < 0 && k == NULL)) {
        free(v);
        free(k);
        return MPI_ERR_NO_MEM;
    }
    if (n >= 0) {
        free(i->values[n]);
        i->values[n] = v;
        return MPI_SUCCESS;
    }
    if (i->n == i->cap) {
        int cap = i->cap ? 2 * i->cap : 8;
        char **nk = realloc(i->keys, sizeof(char *) * (size_t)cap);
        char **nv = nk != NULL ? realloc(i->values, sizeof(char *) * (size_t)cap) : NULL;

        if (nk != NULL) {
            i->keys = nk;
        }
        if (nv == NULL) {
            free(v);
            free(k);
            return MPI_ERR_NO_MEM;
        }
        i->values = nv;
        i->cap = cap;
    }
    i->keys[i->n] = k;
    i->values[i->n] = v;
    i->n++;
    return MPI_SUCCESS;
}

void mpi_info_remove(mpi_info_t *i, int n)
{
    free(i->keys[n]);
    free(i->values[n]);
    memmove(&i->keys[n], &i->keys[n + 1], sizeof(char *) * (size_t)(i->n - n - 1));
    memmove(&i->values[n], &i->values[n + 1], sizeof(char *) * (size_t)(i->n - n - 1));
    i->n--;
}

int mpi_info_copy(const mpi_info_t *from, MPI_Info *info_p)
{
    mpi_info_t *i = NULL;
    int err = mpi_info_new(info_p, &i);

    for (int n = 0; from != NULL && err == MPI_SUCCESS && n < from->n; n++) {
        err = mpi_info_put(i, from->keys[n], from->values[n]);
    }
    if (err != MPI_SUCCESS && i != NULL) {
        mpi_info_release(info_p);
    }
    return err;
}

void mpi_info_release(MPI_Info *info_p)
{
    mpi_info_t *i = mpi_handle_get(MPI_KIND_INFO_, *info_p);

    if (i != NULL && i != &info_env) {
        mpi_handle_release(MPI_KIND_INFO_, *info_p);
        info_clear(i);
        free(i);
    }
    *info_p = MPI_INFO_NULL;
}
