/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Locked memory for btl_rc. Every registration (ibv_reg_mr) pins its pages, and the kernel
 * counts them against RLIMIT_MEMLOCK (`ulimit -l`) unless the process has CAP_IPC_LOCK (root
 * usually has). Debian's default limit for a user is 8 MiB, less than the default receive and
 * send pools (1024 + 512 buffers of 9 KiB: 13.5 MiB). So at open the pools are fitted into
 * HALF of the limit, shrinking the buffer counts (never the buffer size, which must be the
 * same on every rank) down to a minimum; the other half stays free for what else pins memory:
 * queues on devices that pin them (mlx4/mlx5; rxe does not) and rendezvous registrations.
 *
 * The minimum: receive buffers are reposted once a progress call has copied their message out
 * (fewer than 1/16 of them, at most 32, are held back for one batched post: rc_rx_poll), and a
 * message that finds the shared receive queue empty is not lost but refused with an RNR NAK and
 * sent again after RCMSG_IB_RNR_TIMER (RCMSG_IB_RNR_RETRY=7, the default, retries forever). So any
 * count works; 64 receive buffers hold two peers' full windows of eager messages at the default
 * RCMSG_EAGER_CREDITS (32), less the 3 a spinning rank may hold, before a sender waits for RNR
 * retries. Send buffers come back as their sends complete (a send without one waits in the peer's
 * send queue); 64 keep four signaled batches in flight.
 */
#ifndef RCMSG_BTL_RC_MEMLOCK_H
#define RCMSG_BTL_RC_MEMLOCK_H

#include <rcmsg.h>
#include <stddef.h>

#define RCMSG_RC_MIN_RECV_BUFS 64
#define RCMSG_RC_MIN_SEND_BUFS 64

/* The RLIMIT_MEMLOCK limit in bytes that applies to registrations of this process, or
 * SIZE_MAX when there is none (unlimited, or CAP_IPC_LOCK in the effective set). */
size_t rcmsg_rc_memlock_limit(void);

/*
 * Fits *nrbufs_p receive and *nsbufs_p send buffers of buf_size bytes into limit / 2.
 * RCMSG_OK: the counts fit as they are, or were shrunk (in proportion, each down to
 * min(its count, RCMSG_RC_MIN_*_BUFS)) so that they fit. RCMSG_ERR_NO_MEMORY when even the
 * minimum does not fit (counts untouched). Pure: no system calls.
 */
rcmsg_status_t rcmsg_rc_pools_fit(size_t limit, size_t buf_size, int *nrbufs_p, int *nsbufs_p);

/* The smallest limit for which rcmsg_rc_pools_fit() succeeds with these counts. */
size_t rcmsg_rc_pools_min_limit(size_t buf_size, int nrbufs, int nsbufs);

#endif /* RCMSG_BTL_RC_MEMLOCK_H */
