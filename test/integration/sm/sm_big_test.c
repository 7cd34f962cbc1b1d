/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One large message between two ranks, checked byte by byte (public API only).
 *
 *   sm_big_test [BYTES]   rank 0 sends BYTES (default 2 GiB + 7) to rank 1
 *
 * process_vm_readv moves at most 2 GiB - 4 KiB per call: a message longer than that must still
 * arrive whole. Rank 1 checks every byte (so the start, the end and the bytes across the 2 GiB
 * and 4 GiB boundaries), the bytes after the message left alone, status.count and status.error;
 * rank 0 checks its send status. Prints "ok: ..." per passed check and "FAIL ..." otherwise;
 * exits non-zero on any failure.
 */
#include <rcmsg.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, failures;

#include "../test_check.h"

#define GUARD 16

/* The pattern: blocks of BLOCK bytes (a prime, so the blocks never line up with pages or the
 * 2 GiB boundary), each starting with its index, then bytes of a fixed random-looking block:
 * filled and checked at memcpy/memcmp speed, and a block delivered to the wrong place differs. */
#define BLOCK 4099

static uint8_t base[BLOCK];

static void base_init(void)
{
    uint32_t x = 2463534242u;

    for (size_t i = 0; i < BLOCK; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        base[i] = (uint8_t)x;
    }
}

static void block_make(uint8_t *blk, uint64_t k)
{
    memcpy(blk, base, BLOCK);
    memcpy(blk, &k, sizeof(k));
}

static void fill(uint8_t *b, size_t len)
{
    uint8_t blk[BLOCK];

    for (size_t off = 0; off < len; off += BLOCK) {
        block_make(blk, off / BLOCK);
        memcpy(b + off, blk, len - off < BLOCK ? len - off : BLOCK);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first byte that differs from the pattern, or len. */
static size_t first_bad(const uint8_t *b, size_t len)
{
    uint8_t blk[BLOCK];

    for (size_t off = 0; off < len; off += BLOCK) {
        size_t n = len - off < BLOCK ? len - off : BLOCK;
        block_make(blk, off / BLOCK);
        if (memcmp(b + off, blk, n) != 0) {
            for (size_t i = 0; i < n; i++) {
                if (b[off + i] != blk[i]) {
                    return off + i;
                }
            }
        }
    }
    return len;
}

/* The pattern's byte at i (for messages). */
static uint8_t pat(size_t i)
{
    uint8_t blk[BLOCK];

    block_make(blk, i / BLOCK);
    return blk[i % BLOCK];
}

static void sender(size_t len)
{
    uint8_t *buf = malloc(len);
    rcmsg_msg_status_t st;
    rcmsg_request_t req;
    rcmsg_status_t s;
    double t;

    CHECK(buf != NULL, "cannot allocate %zu bytes", len);
    if (buf == NULL) {
        return;
    }
    t = now_s();
    fill(buf, len);
    t = now_s() - t;
    s = rcmsg_isend(buf, len, 1, 7, rcmsg_comm_world(), &req);
    CHECK(s == RCMSG_OK, "isend of %zu bytes: %s", len, rcmsg_status_name(s));
    if (s == RCMSG_OK) {
        s = rcmsg_wait(&req, &st);
        CHECK(s == RCMSG_OK && st.error == RCMSG_OK, "send of %zu bytes completed with %s (%s)",
              len, rcmsg_status_name(s), rcmsg_status_name(st.error));
    }
    if (failures == 0) {
        printf("ok: rank 0 sent %zu bytes (filled in %.2f s), status OK\n", len, t);
    }
    free(buf);
}

static void receiver(size_t len)
{
    uint8_t *buf = malloc(len + GUARD);
    rcmsg_msg_status_t st;
    rcmsg_status_t s;
    size_t bad;
    double t, t2;

    CHECK(buf != NULL, "cannot allocate %zu bytes", len + GUARD);
    if (buf == NULL) {
        return;
    }
    memset(buf + len, 0xee, GUARD);
    t = now_s();
    s = rcmsg_recv(buf, len + GUARD, 0, 7, rcmsg_comm_world(), &st);
    t = now_s() - t;
    t2 = now_s();
    CHECK(s == RCMSG_OK && st.error == RCMSG_OK, "receive of %zu bytes: %s (%s)", len,
          rcmsg_status_name(s), rcmsg_status_name(st.error));
    CHECK(st.count == len && st.source == 0 && st.tag == 7, "status count %zu source %d tag %d",
          st.count, st.source, st.tag);
    bad = first_bad(buf, len);
    CHECK(bad == len, "byte %zu of %zu is 0x%02x, expected 0x%02x", bad, len,
          bad < len ? buf[bad] : 0, bad < len ? pat(bad) : 0);
    for (int i = 0; i < GUARD; i++) {
        CHECK(buf[len + (size_t)i] == 0xee, "byte %zu after the message was written", len + i);
    }
    if (failures == 0) {
        printf("ok: rank 1 received %zu bytes whole (wait %.2f s, check %.2f s), status OK\n", len,
               t, now_s() - t2);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    size_t len = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : ((size_t)2 << 30) + 7;
    rcmsg_status_t s = rcmsg_init();

    base_init();
    if (s != RCMSG_OK) {
        printf("FAIL: rcmsg_init: %s\n", rcmsg_status_name(s));
        return 1;
    }
    rank = rcmsg_rank();
    if (rcmsg_size() != 2) {
        printf("FAIL: run with 2 ranks, not %d\n", rcmsg_size());
        rcmsg_finalize();
        return 1;
    }
    if (rank == 0) {
        sender(len);
    } else {
        receiver(len);
    }
    s = rcmsg_finalize();
    CHECK(s == RCMSG_OK, "finalize: %s", rcmsg_status_name(s));
    printf("rank %d: %d failure(s)\n", rank, failures);
    return failures == 0 ? 0 : 1;
}
