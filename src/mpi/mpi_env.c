/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The environment: Init/Finalize and the queries around them, the clock, the processor
 * name, the versions and the predefined attributes of MPI_COMM_WORLD.
 *
 * Threads: Init_thread grants the level asked (MPI_THREAD_MULTIPLE included: every MPI_* call
 * then holds rcmsg's lock, MPI_MT_GUARD in mpi_objects.h; docs/threads.md), rcmsg's own
 * rcmsg_init_thread granting the same.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;

/* The values behind MPI_Comm_get_attr's pointers (they live as long as the library). */
static int attr_tag_ub = INT_MAX; /* rcmsg takes any non-negative int as a tag */
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE; /* every rank can do I/O */
static int attr_wtime_is_global = 0;
static int attr_universe_size; /* the job's size (no dynamic processes), set at Init */
static int attr_appnum = 0;

static int env_init(const char *call, int required, int *provided)
{
    rcmsg_status_t s;
    int err;

    if (mpi_state != MPI_STATE_NONE) {
        return mpi_err(NULL, call, MPI_ERR_OTHER, "MPI is already %s",
                       mpi_state == MPI_STATE_ACTIVE ? "initialized" : "finalized");
    }
    thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (thread_level < MPI_THREAD_SINGLE) {
        thread_level = MPI_THREAD_SINGLE;
    }
    s = rcmsg_init_thread(thread_level, &thread_level); /* (MPI's levels are rcmsg's) */
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(NULL, call, s);
    }
    mpi_state = MPI_STATE_ACTIVE;
    err = mpi_err_init();
    if (err == MPI_SUCCESS) {
        err = mpi_comm_init();
    }
    if (err != MPI_SUCCESS) {
        return mpi_err(NULL, call, err, "cannot make MPI_COMM_WORLD and MPI_COMM_SELF");
    }
    mpi_mt = thread_level == MPI_THREAD_MULTIPLE;
    main_thread = pthread_self();
    if (provided != NULL) {
        *provided = thread_level;
    }
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return env_init("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (provided == NULL) {
        return mpi_err(NULL, "MPI_Init_thread", MPI_ERR_ARG, "NULL provided");
    }
    return env_init("MPI_Init_thread", required, provided);
}

int MPI_Finalize(void)
{
    MPI_MT_GUARD();
    rcmsg_status_t s;
    int err;

    MPI_CHECK_ACTIVE("MPI_Finalize");
    err = mpi_pending_fini(); /* before anything is released: the program may go on */
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = mpi_req_drain(mpi_bsend_settle); /* freed and buffered sends: bounded, then cancelled */
    if (err != MPI_SUCCESS) {
        return err;
    }
    mpi_bsend_fini();
    mpi_comm_fini();
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        return mpi_err_rcmsg(NULL, "MPI_Finalize", s);
    }
    mpi_state = MPI_STATE_FINALIZED;
    mpi_mt = false; /* (the guard above still lets go at the return) */
    mpi_type_fini();
    mpi_err_fini();
    mpi_handle_fini();
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    *flag = mpi_state != MPI_STATE_NONE;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    *flag = mpi_state == MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided)
{
    MPI_CHECK_ACTIVE("MPI_Query_thread");
    *provided = thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    MPI_CHECK_ACTIVE("MPI_Is_thread_main");
    *flag = pthread_equal(main_thread, pthread_self()) != 0;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    char why[64];
    int st = errorcode & 0xff;

    /* an invalid communicator is an error (MPICH's MPI_ERR_COMM; mpi4py's test_comm), raised
     * through COMM_WORLD's handler: ERRORS_ARE_FATAL aborts the job all the same */
    if (mpi_state == MPI_STATE_ACTIVE && mpi_comm_get(comm) == NULL) {
        return mpi_err(NULL, "MPI_Abort", MPI_ERR_COMM, "invalid communicator %#x", comm);
    }
    st = st != 0 ? st : 1; /* as rcmsg_abort: 0, 256, ... must not exit 0; rcmsg cannot abort
                            * a subset: the whole job ends */
    fprintf(stderr,
            "rcmsg-mpi: rank %d: MPI_Abort with error code %d; aborting the job (exit status "
            "%d)\n",
            rcmsg_rank(), errorcode, st);
    snprintf(why, sizeof(why), "MPI_Abort with error code %d", errorcode);
    rcmsg_abort(errorcode, why); /* PMIx_Abort of the job, then exit */
}

double MPI_Wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double MPI_Wtick(void)
{
    struct timespec ts;

    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) {
        return 1e-9;
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    MPI_MT_GUARD();
    char host[MPI_MAX_PROCESSOR_NAME];

    if (name == NULL || resultlen == NULL) {
        return mpi_err(NULL, "MPI_Get_processor_name", MPI_ERR_ARG, "NULL %s",
                       name == NULL ? "name" : "resultlen");
    }
    if (gethostname(host, sizeof(host)) != 0) {
        strcpy(host, "unknown");
    }
    host[sizeof(host) - 1] = '\0';
    strcpy(name, host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "rcmsg %s (MPI %d.%d subset over rcmsg; see docs/mpi.md)", rcmsg_version(),
                     MPI_VERSION, MPI_SUBVERSION);

    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Comm_get_attr");
    c = mpi_comm_check(comm, "MPI_Comm_get_attr", &err);
    if (c == NULL) {
        return err;
    }
    if (attribute_val == NULL || flag == NULL) {
        return mpi_err(c, "MPI_Comm_get_attr", MPI_ERR_ARG, "NULL %s",
                       flag == NULL ? "flag" : "attribute_val");
    }
    /* the predefined attributes are set on every communicator (as MPICH does), so that a
     * library handed a dup of COMM_WORLD finds MPI_TAG_UB too */
    switch (comm_keyval) {
    case MPI_TAG_UB:
        *(int **)attribute_val = &attr_tag_ub;
        break;
    case MPI_HOST:
        *(int **)attribute_val = &attr_host;
        break;
    case MPI_IO:
        *(int **)attribute_val = &attr_io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        *(int **)attribute_val = &attr_wtime_is_global;
        break;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = rcmsg_size();
        *(int **)attribute_val = &attr_universe_size;
        break;
    case MPI_APPNUM:
        *(int **)attribute_val = &attr_appnum;
        break;
    case MPI_LASTUSEDCODE:
        *(int **)attribute_val = mpi_err_lastused();
        break;
    default:
        return mpi_attr_get(c, comm_keyval, attribute_val, flag); /* a user keyval */
    }
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    MPI_MT_GUARD();
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
