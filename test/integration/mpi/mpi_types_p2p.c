/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Noncontiguous datatypes in point-to-point, data checked: each rank sends to the next one
 * in a ring and receives from the previous one (1 rank: to itself). A vector received as
 * contiguous doubles and the reverse; a struct received into a struct of another layout with
 * the same signature; an indexed type with count > 1 received as ints and as itself; a
 * resized type with a negative lower bound; a vector larger than the eager limit (rendezvous);
 * Get_count/Get_elements of derived types; a type freed while a send or a receive (also a
 * persistent one) using it is pending.
 * Prints "ok: <phase>" (rank 0) and "rank R of N: F failure(s)".
 */
#include "mpi_test.h"

#include <stddef.h>
#include <stdlib.h>

static int next, prev;

/* A value that depends on the sending rank and the position. */
static double val(int from, int i)
{
    return from * 1000.0 + i + 0.5;
}

/* vector(8, 2, 5) of doubles: 16 doubles out of 37, received as 16 contiguous; then 16
 * contiguous received into the vector. */
static void test_vector(void)
{
    double src[40], dst[40];
    MPI_Datatype v;
    MPI_Request req;
    MPI_Status st;
    int n;

    OK(MPI_Type_vector(8, 2, 5, MPI_DOUBLE, &v));
    OK(MPI_Type_commit(&v));
    for (int i = 0; i < 40; i++) {
        src[i] = val(me, i);
        dst[i] = -1;
    }
    OK(MPI_Irecv(dst, 16, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &req));
    OK(MPI_Send(src, 1, v, next, 1, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, &st));
    for (int b = 0, k = 0; b < 8; b++) {
        for (int j = 0; j < 2; j++, k++) {
            CHECK(dst[k] == val(prev, b * 5 + j), "vector->contig: dst[%d] = %g", k, dst[k]);
        }
    }
    OK(MPI_Get_count(&st, v, &n));
    CHECK(n == 1, "Get_count(vector) = %d, want 1", n);
    OK(MPI_Get_elements(&st, v, &n));
    CHECK(n == 16, "Get_elements(vector) = %d, want 16", n);

    /* contiguous -> vector: the gaps are untouched */
    for (int i = 0; i < 40; i++) {
        dst[i] = -1;
    }
    OK(MPI_Irecv(dst, 1, v, prev, 2, MPI_COMM_WORLD, &req));
    OK(MPI_Send(src, 16, MPI_DOUBLE, next, 2, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0, k = 0; i < 40; i++) {
        int in = i < 38 && i % 5 < 2;
        double want = in ? val(prev, k++) : -1;

        CHECK(dst[i] == want, "contig->vector: dst[%d] = %g, want %g", i, dst[i], want);
    }
    OK(MPI_Type_free(&v));
}

struct rec {
    char c;
    double d[2];
    int i;
};
struct rec2 { /* the same signature (char, 2 doubles, int) in another layout */
    double d[2];
    int pad;
    int i;
    char c;
};

/* 3 struct rec received into 3 struct rec2. */
static void test_struct(void)
{
    const int bl[3] = {1, 2, 1};
    const MPI_Aint d1[3] = {offsetof(struct rec, c), offsetof(struct rec, d),
                            offsetof(struct rec, i)};
    const MPI_Aint d2[3] = {offsetof(struct rec2, c), offsetof(struct rec2, d),
                            offsetof(struct rec2, i)};
    const MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    struct rec in[3];
    struct rec2 out[3];
    MPI_Datatype t1, t2;
    MPI_Request req;
    MPI_Aint lb, ext;
    MPI_Status st;
    int n;

    OK(MPI_Type_create_struct(3, bl, d1, types, &t1));
    OK(MPI_Type_create_struct(3, bl, d2, types, &t2));
    OK(MPI_Type_commit(&t1));
    OK(MPI_Type_commit(&t2));
    OK(MPI_Type_get_extent(t2, &lb, &ext));
    CHECK(lb == 0 && ext == sizeof(struct rec2), "struct rec2: lb %ld extent %ld", (long)lb,
          (long)ext);
    for (int k = 0; k < 3; k++) {
        in[k] = (struct rec){
            .c = (char)('a' + me + k), .d = {val(me, k), -val(me, k)}, .i = me * 10 + k};
    }
    memset(out, 0, sizeof(out));
    OK(MPI_Irecv(out, 3, t2, prev, 3, MPI_COMM_WORLD, &req));
    OK(MPI_Send(in, 3, t1, next, 3, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, &st));
    for (int k = 0; k < 3; k++) {
        CHECK(out[k].c == (char)('a' + prev + k), "struct %d: c = %d", k, out[k].c);
        CHECK(out[k].d[0] == val(prev, k) && out[k].d[1] == -val(prev, k), "struct %d: d", k);
        CHECK(out[k].i == prev * 10 + k, "struct %d: i = %d", k, out[k].i);
        CHECK(out[k].pad == 0, "struct %d: the padding was written", k);
    }
    OK(MPI_Get_elements(&st, t2, &n));
    CHECK(n == 12, "Get_elements(struct) = %d, want 12", n);
    OK(MPI_Type_free(&t1));
    OK(MPI_Type_free(&t2));
}

/* indexed {1 at 0, 3 at 2, 2 at 7} of ints (extent 9), count 4: as 24 ints, then as itself. */
static void test_indexed(void)
{
    static const int bl[3] = {1, 3, 2}, disp[3] = {0, 2, 7};
    static const int idx[6] = {0, 2, 3, 4, 7, 8};
    int src[36], dst[36];
    MPI_Datatype ix;
    MPI_Request req;

    OK(MPI_Type_indexed(3, bl, disp, MPI_INT, &ix));
    OK(MPI_Type_commit(&ix));
    for (int i = 0; i < 36; i++) {
        src[i] = me * 100 + i;
        dst[i] = -1;
    }
    OK(MPI_Irecv(dst, 24, MPI_INT, prev, 4, MPI_COMM_WORLD, &req));
    OK(MPI_Send(src, 4, ix, next, 4, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int e = 0; e < 4; e++) {
        for (int j = 0; j < 6; j++) {
            int want = prev * 100 + e * 9 + idx[j];

            CHECK(dst[e * 6 + j] == want, "indexed->int: [%d] = %d, want %d", e * 6 + j,
                  dst[e * 6 + j], want);
        }
    }
    for (int i = 0; i < 36; i++) {
        dst[i] = -1;
    }
    OK(MPI_Irecv(dst, 4, ix, prev, 5, MPI_COMM_WORLD, &req));
    OK(MPI_Send(src, 4, ix, next, 5, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 36; i++) {
        int j = i % 9, in = j == 0 || (j >= 2 && j <= 4) || j >= 7;

        CHECK(dst[i] == (in ? prev * 100 + i : -1), "indexed->indexed: [%d] = %d", i, dst[i]);
    }
    OK(MPI_Type_free(&ix));
}

/* One int, lb -4, extent 12, count 5 (ints 0 3 6 9 12 of the buffer), received as ints. */
static void test_resized(void)
{
    int src[16], dst[5];
    MPI_Datatype r;
    MPI_Request req;

    OK(MPI_Type_create_resized(MPI_INT, -4, 12, &r));
    OK(MPI_Type_commit(&r));
    for (int i = 0; i < 16; i++) {
        src[i] = me * 100 + i;
    }
    OK(MPI_Irecv(dst, 5, MPI_INT, prev, 6, MPI_COMM_WORLD, &req));
    OK(MPI_Send(src, 5, r, next, 6, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < 5; k++) {
        CHECK(dst[k] == prev * 100 + 3 * k, "resized: [%d] = %d", k, dst[k]);
    }
    OK(MPI_Type_free(&r));
}

/* A vector of 64K ints out of 128K (256 KiB: the rendezvous path), freed right after Isend:
 * the pending send keeps the type. */
static void test_large_freed(void)
{
    const int n = 65536;
    int *src = malloc(2 * (size_t)n * sizeof(int)), *dst = malloc((size_t)n * sizeof(int));
    MPI_Datatype v;
    MPI_Request req[2];
    int bad = 0;

    CHECK(src != NULL && dst != NULL, "out of memory");
    if (src == NULL || dst == NULL) {
        free(src);
        free(dst);
        return;
    }
    for (int i = 0; i < 2 * n; i++) {
        src[i] = me * 1000000 + i;
    }
    OK(MPI_Type_vector(n, 1, 2, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    OK(MPI_Irecv(dst, n, MPI_INT, prev, 7, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Isend(src, 1, v, next, 7, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Type_free(&v));
    CHECK(v == MPI_DATATYPE_NULL, "Type_free did not null the handle");
    OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++) {
        bad += dst[i] != prev * 1000000 + 2 * i;
    }
    CHECK(bad == 0, "large vector: %d ints wrong", bad);
    free(src);
    free(dst);
}

/* MPI_Type_free only marks a type: a receive pending on it (nonblocking, and persistent,
 * started after the free) still unpacks into the right places. */
static void test_recv_freed(void)
{
    int src[8], dst[16];
    MPI_Datatype v, pv;
    MPI_Request req;

    for (int i = 0; i < 8; i++) {
        src[i] = me * 100 + i;
    }
    OK(MPI_Type_vector(8, 1, 2, MPI_INT, &v));
    OK(MPI_Type_commit(&v));
    OK(MPI_Type_dup(v, &pv));
    for (int i = 0; i < 16; i++) {
        dst[i] = -1;
    }
    OK(MPI_Irecv(dst, 1, v, prev, 8, MPI_COMM_WORLD, &req));
    OK(MPI_Type_free(&v));
    OK(MPI_Send(src, 8, MPI_INT, next, 8, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 16; i++) {
        CHECK(dst[i] == (i % 2 ? -1 : prev * 100 + i / 2), "freed recv type: [%d] = %d", i, dst[i]);
    }
    for (int i = 0; i < 16; i++) {
        dst[i] = -1;
    }
    OK(MPI_Recv_init(dst, 1, pv, prev, 9, MPI_COMM_WORLD, &req));
    OK(MPI_Type_free(&pv));
    OK(MPI_Start(&req));
    OK(MPI_Send(src, 8, MPI_INT, next, 9, MPI_COMM_WORLD));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&req));
    for (int i = 0; i < 16; i++) {
        CHECK(dst[i] == (i % 2 ? -1 : prev * 100 + i / 2), "freed persistent type: [%d] = %d", i,
              dst[i]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    phases_expected = 6;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    next = (me + 1) % np;
    prev = (me + np - 1) % np;
    test_vector();
    phase("vector to contiguous and back");
    test_struct();
    phase("struct to a struct of another layout");
    test_indexed();
    phase("indexed, count 4");
    test_resized();
    phase("resized, negative lb");
    test_large_freed();
    phase("a large vector, its type freed while the send is pending");
    test_recv_freed();
    phase("receive types freed while the receive is pending");
    MPI_Finalize();
    return summary();
}
