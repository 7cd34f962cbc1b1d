/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking collectives completed in mixed orders across ranks, as MPI allows: between the
 * start and the wait of a nonblocking collective, some ranks run a blocking collective (or a
 * Buffer_detach) while others already wait for the nonblocking one. A rank blocked inside
 * rcmsg must still advance its schedules (rcmsg_progress_register): its peers' waits need the
 * messages its schedule forwards. Without that, 3 ranks or more hang here.
 *
 * Every rank prints "rank R of N: F failure(s)"; rank 0 prints "ok: <phase>" per phase.
 */
#include "mpi_test.h"

#include <stdbool.h>
#include <stdlib.h>

#define LEN       1000      /* ints of a nonblocking collective's data */
#define BSEND     (2 << 20) /* bytes of a buffered send: above any eager limit (1 MiB) */
#define NPATTERNS 5

static int val(int seed, int i)
{
    return seed * 1000003 + i;
}

/* Whether rank r runs the blocking call before its wait, in pattern p. */
static bool blocking_first(int p, int r)
{
    switch (p) {
    case 0:
        return r == 0; /* rank 0 first, every other rank waits first */
    case 1:
        return r != 0;
    case 2:
        return r % 2 == 0;
    case 3:
        return r % 2 == 1;
    default:
        return r == np - 1;
    }
}

/* One blocking collective (kind k), data checked; its buffers are its own. */
static void blocking_coll(int k)
{
    int x = me + 1, sum = 0, all[64];

    switch (k % 4) {
    case 0:
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == np * (np + 1) / 2, "Allreduce: %d", sum);
        break;
    case 1:
        OK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case 2:
        x = me == k % np ? val(k, 7) : -1;
        OK(MPI_Bcast(&x, 1, MPI_INT, k % np, MPI_COMM_WORLD));
        CHECK(x == val(k, 7), "Bcast from %d: %d", k % np, x);
        break;
    default:
        OK(MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < np; i++) {
            CHECK(all[i] == i + 1, "Allgather [%d] = %d", i, all[i]);
        }
        break;
    }
}

/* Starts nonblocking collective kind k (root root) on buf (LEN ints). */
static void nb_start(int k, int root, int *buf, int *red, MPI_Request *req)
{
    for (int i = 0; i < LEN; i++) {
        buf[i] = k == 1 && me != root ? -1 : val(me, i);
    }
    switch (k) {
    case 0:
        OK(MPI_Ibarrier(MPI_COMM_WORLD, req));
        break;
    case 1:
        OK(MPI_Ibcast(buf, LEN, MPI_INT, root, MPI_COMM_WORLD, req));
        break;
    default:
        OK(MPI_Iallreduce(buf, red, LEN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
        break;
    }
}

static void nb_check(int k, int root, const int *buf, const int *red)
{
    for (int i = 0; i < LEN; i++) {
        int want = 0;

        if (k == 0) {
            break;
        }
        if (k == 1) {
            CHECK(buf[i] == val(root, i), "Ibcast from %d [%d] = %d", root, i, buf[i]);
            if (buf[i] != val(root, i)) {
                break;
            }
            continue;
        }
        for (int r = 0; r < np; r++) {
            want += val(r, i);
        }
        CHECK(red[i] == want, "Iallreduce [%d] = %d, expected %d", i, red[i], want);
        if (red[i] != want) {
            break;
        }
    }
}

/* Ibarrier, Ibcast (every root) and Iallreduce, each with every pattern of which ranks run a
 * blocking collective between the start and the wait, and which wait first. */
static void test_coll_between(void)
{
    int *buf = calloc(LEN, sizeof(int)), *red = calloc(LEN, sizeof(int)), n = 0;

    if (buf == NULL || red == NULL) {
        printf("out of memory\n");
        exit(2);
    }
    for (int k = 0; k < 3; k++) {
        for (int root = 0; root < (k == 1 ? np : 1); root++) {
            for (int p = 0; p < NPATTERNS; p++, n++) {
                MPI_Request req;
                bool first = blocking_first(p, me);

                nb_start(k, root, buf, red, &req);
                if (first) {
                    blocking_coll(n);
                }
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                if (!first) {
                    blocking_coll(n);
                }
                nb_check(k, root, buf, red);
            }
        }
    }
    free(buf);
    free(red);
}

/* Two nonblocking collectives outstanding while ranks run blocking ones in between, waited
 * in opposite orders on half the ranks. */
static void test_two_outstanding(void)
{
    for (int p = 0; p < NPATTERNS; p++) {
        int x = me, y = 0, z = me == p % np ? val(p, 1) : 0;
        MPI_Request reqs[2];

        OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &reqs[0]));
        OK(MPI_Ibcast(&z, 1, MPI_INT, p % np, MPI_COMM_WORLD, &reqs[1]));
        if (blocking_first(p, me)) {
            blocking_coll(p);
            OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
            OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
            blocking_coll(p);
        }
        CHECK(y == np - 1, "Iallreduce MAX: %d", y);
        CHECK(z == val(p, 1), "Ibcast from %d: %d", p % np, z);
    }
}

/* Buffer_detach waits for the buffered sends; here the receiver (rank 1) gets its message only
 * after its wait of an Iallgather (a ring: send to r + 1, receive from r - 1, then forward),
 * which needs rank 0's schedule to forward the blocks of the ranks before it, which arrive
 * only once rank np - 1 starts, which it does when rank 0 tells it to, right before its
 * Buffer_detach: rank 0's schedule must move inside Buffer_detach. */
static void test_detach(void)
{
    int size = BSEND + MPI_BSEND_OVERHEAD, go = 1, all[64];
    char *msg = malloc(BSEND), *attached = malloc((size_t)size), *got;
    MPI_Request req;

    if (msg == NULL || attached == NULL) {
        printf("out of memory\n");
        exit(2);
    }
    memset(msg, 0x5a, BSEND);
    if (me == np - 1 && np >= 3) {
        OK(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_Iallgather(&me, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &req));
    if (me == 0 && np >= 3) {
        void *back;

        OK(MPI_Buffer_attach(attached, size));
        OK(MPI_Bsend(msg, BSEND, MPI_CHAR, 1, 5, MPI_COMM_WORLD));
        OK(MPI_Send(&go, 1, MPI_INT, np - 1, 6, MPI_COMM_WORLD));
        OK(MPI_Buffer_detach(&back, &size));
        CHECK(back == attached, "detach gave %p, attached %p", back, (void *)attached);
    }
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < np; i++) {
        CHECK(all[i] == i, "Iallgather [%d] = %d", i, all[i]);
    }
    if (me == 1 && np >= 3) {
        memset(msg, 0, BSEND);
        OK(MPI_Recv(msg, BSEND, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        got = memchr(msg, 0, BSEND);
        CHECK(got == NULL, "buffered send: byte %td is 0", got - msg);
    }
    free(msg);
    free(attached);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 3;
    test_coll_between();
    phase("a blocking collective between the start and the wait of a nonblocking one");
    test_two_outstanding();
    phase("two outstanding, waited in either order around a blocking collective");
    test_detach();
    phase("Buffer_detach while a schedule needs this rank");
    MPI_Finalize();
    return summary();
}
