/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks shared by the MPI test programs (which, as a user's program, include <mpi.h> only). */
#ifndef MPI_TEST_H
#define MPI_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;
static int me, np;
/* phase() calls made, and how many the program's run makes (set before its first phase; 0:
 * not checked): summary() counts a difference as a failure, so that a phase skipped by
 * mistake fails the program itself */
static int phases, phases_expected;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL: rank %d: %s:%d: %s: ", me, __FILE__, __LINE__, #cond);                   \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
        }                                                                                          \
    } while (0)

/* an MPI call that must succeed */
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", "did not return MPI_SUCCESS")

/* an MPI call that must fail with class cls (the communicator's handler is ERRORS_RETURN) */
#define FAILS(call, cls)                                                                           \
    do {                                                                                           \
        int code_ = (call), class_ = -1;                                                           \
        MPI_Error_class(code_, &class_);                                                           \
        CHECK(class_ == (cls), "error class %d, expected %d (code %d)", class_, (cls), code_);     \
    } while (0)

/* every rank waits for every other: a gather to 0 and a release, on its own tag and, for
 * COMM_WORLD, on a duplicate of it (a rank already in the barrier must not be matched by a
 * wildcard receive of a slower rank's test) */
static void test_barrier(MPI_Comm comm)
{
    static MPI_Comm world_dup = MPI_COMM_NULL;
    int n, r, token = 0;

    if (comm == MPI_COMM_WORLD) {
        if (world_dup == MPI_COMM_NULL) {
            MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
        }
        comm = world_dup;
    }
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    if (r == 0) {
        for (int i = 1; i < n; i++) {
            MPI_Recv(&token, 1, MPI_INT, i, 32000, comm, MPI_STATUS_IGNORE);
        }
        for (int i = 1; i < n; i++) {
            MPI_Send(&token, 1, MPI_INT, i, 32001, comm);
        }
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, 32000, comm);
        MPI_Recv(&token, 1, MPI_INT, 0, 32001, comm, MPI_STATUS_IGNORE);
    }
}

/* The bytes of memory the kernel says are available (MemAvailable; -1024: unknown), for the
 * phases that need gigabytes (the large-count tests skip them, saying so, without) */
static inline long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long long kb = -1;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) {
            break;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return kb * 1024;
}

/* byte i of a large test message: not periodic over 2^8 nor 2^24 bytes */
static inline unsigned char byte_at(size_t i)
{
    return (unsigned char)(i * 131 + (i >> 24));
}

static void phase(const char *name)
{
    test_barrier(MPI_COMM_WORLD);
    phases++;
    if (me == 0) {
        printf("ok: %s\n", name);
        fflush(stdout);
    }
}

/* the rank's verdict: "rank R of N: P of P phases passed" (rank 0, when the program said how
 * many it makes), then "rank R of N: F failure(s)"; returns the exit status */
static int summary(void)
{
    if (phases_expected > 0 && phases != phases_expected) {
        failures++;
        printf("FAIL: rank %d: %d of the %d phases ran\n", me, phases, phases_expected);
    } else if (phases_expected > 0 && me == 0 && failures == 0) {
        printf("rank %d of %d: %d of %d phases passed\n", me, np, phases, phases_expected);
    }
    printf("rank %d of %d: %d failure(s)\n", me, np, failures);
    fflush(stdout);
    return failures != 0;
}

#endif
