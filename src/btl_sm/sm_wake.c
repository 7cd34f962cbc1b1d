/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: wakeups, for blocking waits.
 *
 * A rank about to sleep (sm_arm) sets a flag, then looks for work once more, then sleeps in
 * poll() on its wakeup pipe (at most 100 ms: lost peers are still noticed). The other side
 * makes its change (publishes a cell, or moves head), then reads the flag; whoever clears a
 * set flag writes a byte into the sleeper's pipe. A seq_cst fence between each side's store
 * and load means at least one of them sees the other's store: the sleeper finds the work, or
 * the other side finds the flag. No wakeup is lost, and one syscall is paid per sleep at most.
 * Nothing of this is done toward ranks that never sleep (RCMSG_WAIT_MODE=poll without
 * RCMSG_ASYNC_PROGRESS=full: their sm_arm refuses, so a progress thread never sleeps on it).
 */
#define _GNU_SOURCE
#include "config.h"

#include "sm_internal.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

void sm_sleep_announce(_Atomic uint32_t *flag)
{
    atomic_store_explicit(flag, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

void sm_wake(sm_peer_t *p, _Atomic uint32_t *flag)
{
    char byte = 0;

    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(flag, memory_order_relaxed) != 0 &&
        atomic_exchange_explicit(flag, 0, memory_order_relaxed) != 0 && p->wake_fd >= 0 &&
        write(p->wake_fd, &byte, 1) < 0 && errno != EAGAIN) {
        rcmsg_warn("sm: cannot wake peer %d: %m", p->world); /* EAGAIN: a wakeup is pending */
    }
}

/* Empties this rank's wakeup pipe (its bytes only ever mean "look for work"). */
static void sm_wake_drain(sm_btl_t *sm)
{
    char buf[64];

    while (read(sm->wake_fd, buf, sizeof(buf)) > 0) {
    }
}

/* Opens the peer's wakeup pipe for writing, through /proc like its segment. Read-write: this
 * process is then a reader too, so a write after the peer has gone is EAGAIN at worst, never
 * SIGPIPE. */
rcmsg_status_t sm_wake_open(sm_peer_t *p, int peer, uint32_t pid, uint32_t wake_fd)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%u/fd/%u", pid, wake_fd);
    p->wake_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (p->wake_fd < 0) {
        rcmsg_error("cannot open the wakeup pipe of peer %d (%s): %m", peer, path);
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
}

/* This rank's wakeup pipe: peers open its read end read-write through /proc (an eventfd
 * cannot be reopened there). This rank keeps the write end open too, so that the pipe never
 * reports a hangup (no writer left) when its peers are gone. */
rcmsg_status_t sm_wake_create(sm_btl_t *sm)
{
    int fds[2];

    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
        rcmsg_error("cannot create the shared-memory wakeup pipe: %m");
        return RCMSG_ERR_IO;
    }
    sm->wake_fd = fds[0];
    sm->wake_wr = fds[1];
    return RCMSG_OK;
}

/* Is a cell waiting in one of this rank's rings? */
static bool sm_rings_ready(sm_btl_t *sm)
{
    for (int s = 0; s < sm->job.local_size; s++) {
        sm_ring_t *ring = sm_ring(sm, sm->seg, s);
        uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);

        if (sm->local_to_world[s] >= 0 &&
            atomic_load_explicit(&sm_cell(sm, ring, head)->seq, memory_order_acquire) == head + 1) {
            return true;
        }
    }
    return false;
}

/* Has a ring this rank found full (a put of it waits) got room again? Asks the peers to wake
 * this rank when they make room (their sm_progress). */
static bool sm_room_ready(sm_btl_t *sm)
{
    for (int s = 0; s < sm->job.local_size; s++) {
        int world = sm->local_to_world[s];
        sm_peer_t *p = world >= 0 ? &sm->peers[world] : NULL;
        sm_ring_t *ring;

        if (p == NULL || !p->full || p->failed) {
            continue;
        }
        ring = sm_ring(sm, p->seg, sm->job.local_rank);
        sm_sleep_announce(&ring->sender_sleeping);
        p->head_cache = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (p->tail - p->head_cache < sm->cfg.ncells - SM_CTL_CELLS) {
            p->full = false;
            atomic_store_explicit(&ring->sender_sleeping, 0, memory_order_relaxed);
            return true;
        }
    }
    return false;
}

rcmsg_status_t sm_arm(rcmsg_btl_t *btl)
{
    sm_btl_t *sm = sm_btl_of(btl);
    _Atomic uint32_t *sleeping = &((sm_seg_hdr_t *)sm->seg)->sleeping;

    if (!sm->cfg.sleeps) {
        return RCMSG_ERR_UNSUPPORTED; /* no wakeup pipe: the peers never write one */
    }
    /* before a sleep (polls are then too few to count on): a lost peer is work */
    if (sm_liveness(sm) > 0 || sm->ndone > 0) {
        return RCMSG_INPROGRESS;
    }
    sm_wake_drain(sm);
    sm_sleep_announce(sleeping);
    if (sm_rings_ready(sm) || sm_room_ready(sm)) {
        atomic_store_explicit(sleeping, 0, memory_order_relaxed); /* spare the senders a write */
        return RCMSG_INPROGRESS;
    }
    return RCMSG_OK;
}

int sm_event_fd(rcmsg_btl_t *btl)
{
    return sm_btl_of(btl)->wake_fd;
}
