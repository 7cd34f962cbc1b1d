/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator context ids through the MPI face (issue 38, item 3), on 2 or more ranks:
 *   churn N  makes and frees N communicators in turn by Comm_dup, Comm_split, Comm_create
 *            (disjoint halves), Comm_create_group, and an intercommunicator of the halves
 *            (Intercomm_create, then Intercomm_merge), 4 held at a time; every 32nd one
 *            carries an allreduce.
 *   exhaust  with MPI_ERRORS_RETURN, holds Comm_dups of the world until one fails: every rank
 *            fails at the same count with MPI_ERR_OTHER and Error_string says why; after they
 *            are freed, Comm_dup and Comm_split work again.
 * Prints "ok: ..." (rank 0) and "rank R of N: F failure(s)".
 */
#include "mpi_test.h"

#include <stdlib.h>

#define HELD    4
#define EXHAUST 20000

static void use(MPI_Comm c, long i)
{
    int n, sum = -1, inter = 0;

    MPI_Comm_test_inter(c, &inter);
    if (inter) {
        return;
    }
    MPI_Comm_size(c, &n);
    OK(MPI_Allreduce(&inter, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == 0, "iteration %ld: allreduce %d", i, sum);
}

/* The i-th communicator (MPI_COMM_NULL for a rank outside it). */
static MPI_Comm make(long i, MPI_Group world_g)
{
    MPI_Comm c = MPI_COMM_NULL, half, inter;
    MPI_Group g;
    int lower = me < np / 2, first = lower ? 0 : np / 2, n = lower ? np / 2 : np - np / 2;
    int range[1][3] = {{first, first + n - 1, 1}};

    switch (i % 5) {
    case 0:
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        break;
    case 1:
        OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &c));
        break;
    case 2:
    case 3:
        OK(MPI_Group_range_incl(world_g, 1, range, &g));
        if (i % 5 == 2) {
            OK(MPI_Comm_create(MPI_COMM_WORLD, g, &c));
        } else {
            OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 9, &c));
        }
        MPI_Group_free(&g);
        break;
    default:
        OK(MPI_Comm_split(MPI_COMM_WORLD, lower, me, &half));
        OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? np / 2 : 0, 8, &inter));
        OK(MPI_Intercomm_merge(inter, !lower, &c));
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&half));
    }
    return c;
}

static void churn(long n)
{
    MPI_Comm held[HELD];
    MPI_Group world_g;
    double t0 = MPI_Wtime();
    char what[100];

    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    for (int i = 0; i < HELD; i++) {
        held[i] = MPI_COMM_NULL;
    }
    for (long i = 0; i < n && failures < 10; i++) {
        MPI_Comm c = make(i, world_g);

        if (c != MPI_COMM_NULL && i % 32 < 5) {
            use(c, i);
        }
        if (held[i % HELD] != MPI_COMM_NULL) {
            OK(MPI_Comm_free(&held[i % HELD]));
        }
        held[i % HELD] = c;
    }
    for (int i = 0; i < HELD; i++) {
        if (held[i] != MPI_COMM_NULL) {
            OK(MPI_Comm_free(&held[i]));
        }
    }
    MPI_Group_free(&world_g);
    snprintf(what, sizeof(what), "churn: %ld communicators made and freed in %.1f s", n,
             MPI_Wtime() - t0);
    phase(what);
}

static void exhaust(void)
{
    MPI_Comm *c = calloc(EXHAUST, sizeof(*c)), s;
    int n = 0, err = MPI_SUCCESS, cls = -1, len, counts[64];
    char text[MPI_MAX_ERROR_STRING] = "";

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    while (n < EXHAUST && (err = MPI_Comm_dup(MPI_COMM_WORLD, &c[n])) == MPI_SUCCESS) {
        n++;
    }
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, text, &len);
    CHECK(cls == MPI_ERR_OTHER, "Comm_dup %d: error class %d (%s)", n + 1, cls, text);
    OK(MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < np && i < 64; i++) {
        CHECK(counts[i] == n, "rank %d failed after %d dups, this rank after %d", i, counts[i], n);
    }
    printf("rank %d: exhaust: Comm_dup %d failed: %s\n", me, n + 1, text);
    while (n > 0) {
        OK(MPI_Comm_free(&c[--n]));
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c[0]));
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &s));
    use(c[0], 0);
    use(s, 1);
    OK(MPI_Comm_free(&s));
    OK(MPI_Comm_free(&c[0]));
    phase("exhaust: after freeing them, Comm_dup and Comm_split work");
    free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || argc < 2) {
        printf("usage: 2 or more ranks, churn N | exhaust\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(argv[1], "churn") == 0) {
        churn(argc > 2 ? atol(argv[2]) : 20000);
    } else {
        exhaust();
    }
    MPI_Finalize();
    return summary();
}
