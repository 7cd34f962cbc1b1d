/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * THE table of every RCMSG_* environment variable. One line each:
 *     X(ID, TYPE, DEFAULT, FORM, HELP)
 * ID      the variable's name without the RCMSG_ prefix (also names RCMSG_CFG_<ID>)
 * TYPE    BOOL, INT, SIZE (bytes, k/m/g suffixes), TIME (us/ms/s), ENUM or LIST
 * DEFAULT the default, as a string: it goes through the same parser as user values
 * FORM    for ENUM the choices "a|b|c"; for INT, SIZE and TIME an optional range "min..max"
 *         (either end may be empty); for BOOL and LIST ""
 * HELP    one sentence, printed by rcmsg_info and in README.md
 * Add new variables here; README.md's table is checked against this by the test suite.
 */
#ifndef RCMSG_BASE_CONFIG_VARS_H
#define RCMSG_BASE_CONFIG_VARS_H

#define RCMSG_CONFIG_VARS(X)                                                                       \
    X(LOG_LEVEL, ENUM, "warn", "error|warn|info|debug|trace",                                      \
      "Logging verbosity: error, warn, info (every wireup choice), debug, trace.")                 \
    X(TRANSPORTS, LIST, "self,sm,rc", "",                                                          \
      "Transports that may be used: self (a rank's own messages, always on), sm (shared "          \
      "memory, same node), rc (RDMA reliable connections); e.g. rc,self forces the HCA path.")     \
    X(NET_DEVICES, LIST, "", "",                                                                   \
      "RDMA devices and ports to use, e.g. rxe0:1,mlx5_0:1; empty picks the ACTIVE port "          \
      "closest to the process's CPU binding.")                                                     \
    X(GID_INDEX, INT, "-1", "-1..1023",                                                            \
      "GID index on RoCE ports; -1 picks a RoCE v2 GID, IPv4-mapped first. GIDs of different "     \
      "kinds on two ranks (IPv4-mapped and IPv6, RoCE v1 and v2) are an error at connect.")        \
    X(IB_MTU, ENUM, "auto", "auto|256|512|1024|2048|4096",                                         \
      "Upper bound on the path MTU; the path MTU is min(local, remote, this).")                    \
    X(IB_TIMEOUT, INT, "18", "1..31",                                                              \
      "Local ACK timeout exponent: 4.096 us * 2^value before a retry.")                            \
    X(IB_RETRY_COUNT, INT, "6", "0..7",                                                            \
      "Transport retries before a send or read to a peer that does not answer (dead, or "          \
      "unreachable) fails with retry-exceeded: after (value + 1) x 4.096 us x "                    \
      "2^RCMSG_IB_TIMEOUT, 7.5 s by default; 7 retries forever on some devices (rxe).")            \
    X(IB_RNR_TIMER, INT, "12", "1..31",                                                            \
      "min_rnr_timer code the receiver asks senders to wait after an RNR NAK (12 = 0.64 ms).")     \
    X(IB_RNR_RETRY, INT, "7", "0..7", "RNR retries before a send fails; 7 means retry forever.")   \
    X(QP_SEND_DEPTH, INT, "128", "16..16384", "Send work requests per QP.")                        \
    X(QP_MAX_INLINE, SIZE, "256", "0..4k",                                                         \
      "Largest rc send (32-byte header included) posted inline, without a bounce-buffer copy; "    \
      "capped by the device. It sizes every QP's send queue entries: on rxe the device's "         \
      "maximum (512 B) costs 276 KiB of queue per peer, 256 or less 148 KiB.")                     \
    X(SIGNAL_INTERVAL, INT, "16", "1..1024",                                                       \
      "Request a completion for one send in this many (selective signaling).")                     \
    X(SRQ_SIZE, INT, "1024", "16..65536",                                                          \
      "Receive buffers posted to the shared receive queue of each device; fewer (down to 64) "     \
      "when the rc pools do not fit in half of the locked memory limit (ulimit -l), with a "       \
      "warning.")                                                                                  \
    X(SRQ_BUF_SIZE, SIZE, "9k", "256..1m",                                                         \
      "Size of each pre-posted receive buffer and send bounce buffer (header and eager "           \
      "payload); the same on every rank.")                                                         \
    X(SEND_BUFS, INT, "512", "16..65536",                                                          \
      "Registered send bounce buffers per device, shared by all peers; fewer (down to 64) when "   \
      "the rc pools do not fit in half of the locked memory limit (ulimit -l), with a warning.")   \
    X(POLL_BATCH, INT, "16", "1..256", "Completions taken from a completion queue per poll.")      \
    X(DRAIN_TIMEOUT, TIME, "30s", "1ms..",                                                         \
      "How long finalize waits for pending sends to complete before giving up.")                   \
    X(LAUNCHER_TIMEOUT, TIME, "300s", "1s..",                                                      \
      "Longest wait for the launcher (PMIx) in rcmsg_init and rcmsg_finalize: a rank that fails "  \
      "or exits before a fence is reported after this long instead of waited for forever; it "     \
      "also bounds how far apart in time the ranks may call rcmsg_finalize.")                      \
    X(LIVENESS_INTERVAL, TIME, "1s", "10ms..3600s",                                                \
      "How often a rank that waits checks its launcher and probes the rc peers it waits for "      \
      "(a zero-length RDMA write, no receive buffer used); a dead peer fails its requests "        \
      "with RCMSG_ERR_CONNECTION once the probe's retries run out.")                               \
    X(EAGER_LIMIT, SIZE, "8k", "0..1m",                                                            \
      "Largest message sent eagerly (one SEND); larger ones use rendezvous with RDMA_READ. "       \
      "Capped by the transport's buffer size.")                                                    \
    X(EAGER_CREDITS, INT, "32", "1..65535",                                                        \
      "Eager messages a rank may have unmatched at each peer; more wait at the sender, so "        \
      "unexpected-message memory stays bounded.")                                                  \
    X(RNDV_CHUNK, SIZE, "512k", "4k..1g",                                                          \
      "Bytes per RDMA_READ of a rendezvous transfer over rc (shared memory copies a message in "   \
      "one call).")                                                                                \
    X(RNDV_READS, INT, "4", "1..8",                                                                \
      "RDMA_READs in flight per rendezvous transfer (also bounded by the QP's max_rd_atomic).")    \
    X(RCACHE, BOOL, "no", "",                                                                      \
      "Keep rendezvous buffers registered for reuse; off by default: see README (invalidation).")  \
    X(RCACHE_SIZE, SIZE, "256m", "0..",                                                            \
      "Most bytes the registration cache keeps registered (least recently used evicted first).")   \
    X(SM_CELLS, INT, "64", "4..65536",                                                             \
      "Cells (each of RCMSG_SRQ_BUF_SIZE bytes) in each shared-memory ring, one ring per local "   \
      "sender.")                                                                                   \
    X(SM_STAGING, SIZE, "256k", "4k..1g",                                                          \
      "Per-peer staging area for large shared-memory messages when CMA is not permitted.")         \
    X(SM_CMA, ENUM, "auto", "auto|yes|no",                                                         \
      "Single-copy reads between local ranks with process_vm_readv; no copies through the "        \
      "segment instead; auto falls back when the kernel refuses.")                                 \
    X(WAIT_MODE, ENUM, "poll", "poll|event|hybrid",                                                \
      "How waits idle: poll busy-polls; event sleeps on completion events at once; hybrid "        \
      "spins RCMSG_SPIN_COUNT polls first.")                                                       \
    X(SPIN_COUNT, INT, "2000", "0..",                                                              \
      "Idle polls before a hybrid-mode wait sleeps on completion events.")                         \
    X(YIELD, ENUM, "auto", "auto|yes|no",                                                          \
      "Call sched_yield() in idle polling rounds; auto: when the node runs more ranks than it "    \
      "has online CPUs (oversubscribed).")                                                         \
    X(COLL_BARRIER_ALGORITHM, ENUM, "auto", "auto|dissemination",                                  \
      "Barrier algorithm (the same on every rank, like every RCMSG_COLL_* variable).")             \
    X(COLL_BCAST_ALGORITHM, ENUM, "auto", "auto|binomial|scatter_allgather",                       \
      "Broadcast algorithm; auto: scatter_allgather from RCMSG_COLL_BCAST_LONG bytes on 3 or "     \
      "more ranks, else binomial.")                                                                \
    X(COLL_BCAST_LONG, SIZE, "64k", "0..",                                                         \
      "Message size from which broadcasts scatter+allgather.")                                     \
    X(COLL_REDUCE_ALGORITHM, ENUM, "auto", "auto|binomial|reduce_scatter_gather",                  \
      "Reduce algorithm; auto: reduce_scatter_gather from RCMSG_COLL_REDUCE_LONG bytes on 3 or "   \
      "more ranks, else binomial.")                                                                \
    X(COLL_REDUCE_LONG, SIZE, "64k", "0..",                                                        \
      "Vector size from which reduce uses reduce-scatter + gather.")                               \
    X(COLL_ALLREDUCE_ALGORITHM, ENUM, "auto", "auto|recursive_doubling|rabenseifner|ring",         \
      "Allreduce algorithm; auto: recursive_doubling below RCMSG_COLL_ALLREDUCE_SHORT bytes or "   \
      "on 2 ranks, rabenseifner below RCMSG_COLL_ALLREDUCE_LONG, else ring.")                      \
    X(COLL_ALLREDUCE_SHORT, SIZE, "16k", "0..",                                                    \
      "Vector size from which allreduce leaves recursive doubling.")                               \
    X(COLL_ALLREDUCE_LONG, SIZE, "1m", "0..", "Vector size from which allreduce uses the ring.")   \
    X(COLL_ALLGATHER_ALGORITHM, ENUM, "auto", "auto|recursive_doubling|bruck|ring",                \
      "Allgather algorithm; auto: ring from RCMSG_COLL_ALLGATHER_LONG bytes gathered, else "       \
      "recursive_doubling on a power-of-two number of ranks and bruck otherwise.")                 \
    X(COLL_ALLGATHER_LONG, SIZE, "256k", "0..",                                                    \
      "Total gathered size (ranks x block) from which allgather uses the ring.")                   \
    X(COLL_ALLTOALL_ALGORITHM, ENUM, "auto", "auto|bruck|pairwise",                                \
      "Alltoall algorithm; auto: bruck for blocks up to RCMSG_COLL_ALLTOALL_TINY bytes on 4 or "   \
      "more ranks, else pairwise.")                                                                \
    X(COLL_ALLTOALL_TINY, SIZE, "256", "0..", "Largest block for which alltoall uses Bruck.")      \
    X(COLL_GATHER_ALGORITHM, ENUM, "auto", "auto|binomial", "Gather algorithm.")                   \
    X(COLL_SCATTER_ALGORITHM, ENUM, "auto", "auto|binomial", "Scatter algorithm.")                 \
    X(COLL_REDUCE_SCATTER_ALGORITHM, ENUM, "auto", "auto|recursive_halving|ring",                  \
      "Reduce-scatter (block) algorithm; auto: ring from RCMSG_COLL_REDUCE_SCATTER_LONG bytes "    \
      "in all (ranks x block), else recursive_halving.")                                           \
    X(COLL_REDUCE_SCATTER_LONG, SIZE, "512k", "0..",                                               \
      "Total size (ranks x block) from which reduce-scatter uses the ring.")

#endif /* RCMSG_BASE_CONFIG_VARS_H */
