/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic windows (rcmsg_win_create_dynamic, rcmsg_win_attach / detach / attached), on any
 * number of ranks and any transports; the displacements are the targets' addresses,
 * exchanged by an allgather:
 *   query       base NULL, size 0; rcmsg_win_attached inside, beyond and across a region
 *   put / get   to and from the neighbours, checked after a fence or a flush
 *   atomics     fetch_add from every rank to one counter (exact), one compare_swap winner,
 *               accumulate SUM (exact)
 *   big         256 KiB put and get across two adjacent regions (two keys over rc), an
 *               atomic across them refused
 *   again       the region detached and attached again (over rc: a new key), then a new
 *               region at another address: put / get again
 *   refused     outside every region, straddling a region's end, overlapping attach, detach
 *               of what is not attached, attach on a window of rcmsg_win_create: the errors,
 *               and nothing written
 * OSC_OWNER_CPU=skip: the counter's owner does no fetch_add / compare_swap on it (osc_test.c).
 */
#include "../test_check.h"

#include <rcmsg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REG   4096
#define BIG   (256u * 1024)
#define ITERS 100
#define CNT   (REG - 64) /* rank 0's counters in its region */
#define CAS   (REG - 56)
#define ACC   (REG - 48)

static int rank, size, failures, next, prev;
static int owner_skip;
static uint64_t *at; /* [size]: each rank's region */

static unsigned char pat(int from, size_t i, int round)
{
    return (unsigned char)(from * 31 + i * 7 + round + 1);
}

static void exchange(void *mine)
{
    uint64_t a = (uintptr_t)mine;

    CHECK(rcmsg_allgather(&a, at, 1, RCMSG_UINT64, rcmsg_comm_world()) == RCMSG_OK, "allgather");
}

static void t_put_get(rcmsg_win_t win, unsigned char *mem, int round)
{
    unsigned char src[64], got[64];
    rcmsg_status_t s;

    memset(mem, 0, REG);
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    for (size_t i = 0; i < sizeof(src); i++) {
        src[i] = pat(rank, i, round);
    }
    s = rcmsg_put(src, sizeof(src), next, at[next] + 64 * (size_t)rank, win);
    CHECK(s == RCMSG_OK, "round %d: put: %s", round, rcmsg_status_name(s));
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence after put");
    for (size_t i = 0; i < 64; i++) {
        if (mem[64 * (size_t)prev + i] != pat(prev, i, round)) {
            CHECK(0, "round %d: put from %d: byte %zu is %u", round, prev, i,
                  mem[64 * (size_t)prev + i]);
            break;
        }
    }
    s = rcmsg_get(got, sizeof(got), prev, at[prev] + 64 * (size_t)((prev + size - 1) % size), win);
    CHECK(s == RCMSG_OK, "round %d: get: %s", round, rcmsg_status_name(s));
    CHECK(rcmsg_win_flush(prev, win) == RCMSG_OK, "flush of get");
    for (size_t i = 0; i < 64; i++) {
        if (got[i] != pat((prev + size - 1) % size, i, round)) {
            CHECK(0, "round %d: get from %d: byte %zu is %u", round, prev, i, got[i]);
            break;
        }
    }
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
}

static void t_atomics(rcmsg_win_t win, unsigned char *mem)
{
    uint64_t old = 0, one = 1, zero = 0, mine = (uint64_t)rank + 1, res = 0;
    int64_t add = rank + 1, won = 0, winners = 0;
    int doers = owner_skip ? size - 1 : size;

    memset(mem, 0, REG);
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    for (int i = 0; i < ITERS && !(owner_skip && rank == 0); i++) {
        CHECK(rcmsg_fetch_add(one, &old, 0, at[0] + CNT, win) == RCMSG_OK, "fetch_add");
        CHECK(rcmsg_win_flush(0, win) == RCMSG_OK, "flush of fetch_add");
    }
    if (!(owner_skip && rank == 0)) {
        CHECK(rcmsg_compare_swap(zero, mine, &res, 0, at[0] + CAS, win) == RCMSG_OK, "cas");
        CHECK(rcmsg_win_flush(0, win) == RCMSG_OK, "flush of cas");
        won = res == 0;
    }
    CHECK(rcmsg_accumulate(&add, 1, RCMSG_INT64, RCMSG_SUM, 0, at[0] + ACC, win) == RCMSG_OK,
          "accumulate");
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence after atomics");
    CHECK(rcmsg_allreduce(&won, &winners, 1, RCMSG_INT64, RCMSG_SUM, rcmsg_comm_world()) ==
              RCMSG_OK,
          "allreduce");
    CHECK(winners == (doers > 0), "%lld compare_swap winners", (long long)winners);
    if (rank == 0) {
        uint64_t cnt, acc;
        memcpy(&cnt, mem + CNT, 8);
        memcpy(&acc, mem + ACC, 8);
        CHECK(cnt == (uint64_t)doers * ITERS, "counter %llu, expected %llu",
              (unsigned long long)cnt, (unsigned long long)doers * ITERS);
        CHECK(acc == (uint64_t)size * (size + 1) / 2, "accumulate: %llu", (unsigned long long)acc);
    }
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
}

static void t_big(rcmsg_win_t win)
{
    unsigned char *big = malloc(BIG), *src = malloc(BIG), *got = malloc(BIG);

    memset(big, 0, BIG);
    for (size_t i = 0; i < BIG; i++) {
        src[i] = pat(rank, i, 9);
    }
    uint64_t old = 5;

    /* two adjacent regions, their boundary not 8-byte aligned */
    CHECK(rcmsg_win_attach(win, big, BIG / 2 + 4) == RCMSG_OK, "attach big's first part");
    CHECK(rcmsg_win_attach(win, big + BIG / 2 + 4, BIG / 2 - 4) == RCMSG_OK, "attach the rest");
    exchange(big);
    CHECK(rcmsg_win_attached(win, next, at[next], BIG) == RCMSG_OK, "attached: both parts");
    CHECK(rcmsg_fetch_add(1, &old, next, at[next] + BIG / 2, win) == RCMSG_ERR_INVALID_PARAM,
          "an atomic across the two parts");
    CHECK(old == 5, "a refused fetch_add wrote its result");
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    CHECK(rcmsg_put(src, BIG, next, at[next], win) == RCMSG_OK, "big put");
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence after big put");
    for (size_t i = 0; i < BIG; i++) {
        if (big[i] != pat(prev, i, 9)) {
            CHECK(0, "big put from %d: byte %zu is %u", prev, i, big[i]);
            break;
        }
    }
    CHECK(rcmsg_get(got, BIG, next, at[next], win) == RCMSG_OK, "big get");
    CHECK(rcmsg_win_flush(next, win) == RCMSG_OK, "flush of big get");
    CHECK(memcmp(got, src, BIG) == 0, "big get: not this rank's put");
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    CHECK(rcmsg_win_detach(win, big) == RCMSG_OK, "detach big's first part");
    CHECK(rcmsg_win_detach(win, big + BIG / 2 + 4) == RCMSG_OK, "detach the rest");
    free(big);
    free(src);
    free(got);
}

static void t_refused(rcmsg_win_t win, unsigned char *mem)
{
    unsigned char src[16] = {1, 2, 3};
    uint64_t old = 7;
    rcmsg_win_t plain;

    memset(mem, 0, REG);
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    CHECK(rcmsg_put(src, 16, next, at[next] + REG, win) == RCMSG_ERR_INVALID_PARAM,
          "put beyond the region");
    CHECK(rcmsg_put(src, 16, next, at[next] + REG - 8, win) == RCMSG_ERR_INVALID_PARAM,
          "put across the region's end");
    CHECK(rcmsg_get(src, 16, next, 4096, win) == RCMSG_ERR_INVALID_PARAM, "get at 4096");
    CHECK(rcmsg_fetch_add(1, &old, next, 8, win) == RCMSG_ERR_INVALID_PARAM,
          "fetch_add at address 8");
    CHECK(old == 7, "a refused fetch_add wrote its result");
    CHECK(rcmsg_win_attached(win, next, at[next], REG) == RCMSG_OK, "attached: the region");
    CHECK(rcmsg_win_attached(win, next, at[next] + 1, REG) == RCMSG_ERR_NOT_FOUND,
          "attached: across the end");
    CHECK(rcmsg_win_attach(win, mem + 8, 8) == RCMSG_ERR_INVALID_PARAM, "overlapping attach");
    CHECK(rcmsg_win_attach(win, mem, REG) == RCMSG_ERR_INVALID_PARAM, "the same attach");
    CHECK(rcmsg_win_attach(win, NULL, 8) == RCMSG_ERR_INVALID_PARAM, "attach of NULL");
    CHECK(rcmsg_win_detach(win, mem + 8) == RCMSG_ERR_NOT_FOUND, "detach of what is not attached");
    CHECK(rcmsg_win_fence(win) == RCMSG_OK, "fence");
    for (size_t i = 0; i < REG; i++) {
        if (mem[i] != 0) {
            CHECK(0, "a refused access wrote byte %zu", i);
            break;
        }
    }
    CHECK(rcmsg_win_create(src, sizeof(src), rcmsg_comm_world(), &plain) == RCMSG_OK, "create");
    CHECK(rcmsg_win_attach(plain, mem, 8) == RCMSG_ERR_INVALID_PARAM, "attach on win_create's");
    CHECK(rcmsg_win_attached(plain, next, 8, 8) == RCMSG_OK, "attached: inside win_create's");
    CHECK(rcmsg_win_attached(plain, next, 8, 9) == RCMSG_ERR_NOT_FOUND, "attached: beyond");
    CHECK(rcmsg_win_free(&plain) == RCMSG_OK, "free");
}

int main(void)
{
    unsigned char *mem = aligned_alloc(64, REG), *mem2 = aligned_alloc(64, REG);
    rcmsg_win_t win = RCMSG_WIN_NULL;
    const char *skip = getenv("OSC_OWNER_CPU");
    void *base = mem;
    size_t len = 1;

    if (rcmsg_init() != RCMSG_OK) {
        printf("FAIL: rcmsg_init\n");
        return 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    owner_skip = skip != NULL && strcmp(skip, "skip") == 0 && size > 1;
    at = calloc((size_t)size, sizeof(*at));
    CHECK(rcmsg_win_create_dynamic(rcmsg_comm_world(), &win) == RCMSG_OK, "create_dynamic");
    if (failures == 0) {
        CHECK(rcmsg_win_query(win, &base, &len, NULL) == RCMSG_OK && base == NULL && len == 0,
              "query: base %p, size %zu", base, len);
        CHECK(rcmsg_win_attach(win, mem, REG) == RCMSG_OK, "attach");
        exchange(mem);
        t_put_get(win, mem, 0);
        t_atomics(win, mem);
        t_big(win);
        exchange(mem);
        CHECK(rcmsg_win_detach(win, mem) == RCMSG_OK, "detach");
        CHECK(rcmsg_win_attach(win, mem, REG) == RCMSG_OK, "attach again");
        CHECK(rcmsg_barrier(rcmsg_comm_world()) == RCMSG_OK, "barrier");
        t_put_get(win, mem, 1);
        t_atomics(win, mem);
        t_refused(win, mem);
        CHECK(rcmsg_win_attach(win, mem2, REG) == RCMSG_OK, "attach a second region");
        exchange(mem2);
        t_put_get(win, mem2, 2);
        CHECK(rcmsg_win_free(&win) == RCMSG_OK, "win_free (two regions attached)");
    }
    printf("rank %d of %d: %d failure(s)\n", rank, size, failures);
    fflush(stdout);
    rcmsg_finalize();
    free(at);
    free(mem);
    free(mem2);
    return failures != 0;
}
