/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * THE table of every RCMSG_* environment variable. One line each:
 *     X(ID, TYPE, DEFAULT, FORM, HELP)
 * ID      the variable's name without the RCMSG_ prefix (also names RCMSG_CFG_<ID>)
 * TYPE    BOOL, INT, SIZE (bytes, k/m/g suffixes), TIME (us/ms/s), ENUM, LIST or STRING
 * DEFAULT the default, as a string: it goes through the same parser as user values
 * FORM    for ENUM RCMSG_CHOICES(ID): the choices "a|b|c" of RCMSG_CFG_<ID>_CHOICES below;
 *         for INT, SIZE and TIME an optional range "min..max" (either end may be empty); for
 *         BOOL, LIST and STRING ""
 * HELP    one sentence, printed by rcmsg_info and in docs/config.md
 * Add new variables here, then regenerate docs/config.md (src/tools/rcmsg_info --markdown),
 * which the test suite checks against this table.
 */
#ifndef RCMSG_BASE_CONFIG_VARS_H
#define RCMSG_BASE_CONFIG_VARS_H

#include "compiler.h"
#include "log.h" /* rcmsg_log_level_t: the choices of RCMSG_LOG_LEVEL */

/*
 * Range ends that bound arrays: written once here, quoted in the variable's FORM with
 * RCMSG_STRINGIFY, and stated with RCMSG_STATIC_ASSERT next to each array they size (plain
 * integer literals, so that the FORM text reads as before).
 */
#define RCMSG_POLL_BATCH_MAX 256 /* rc_rx_poll: struct ibv_wc wc[] on the stack */
#define RCMSG_RNDV_READS_MAX 8   /* pml: rcmsg_btl_desc_t descs[PML_MAX_READS] per request */

/*
 * The choices of each ENUM variable, bound to a C enum by name: RCMSG_CFG_<ID>_CHOICES(Y) lists
 * Y(ENUMERATOR, "name") in order. The variable's form "a|b|c" is derived from it
 * (RCMSG_CHOICES(ID) below), so the value rcmsg_config_enum() returns is the enumerator of the
 * name parsed; code compares with the enumerators, never with numbers. Each enum ends with a
 * _COUNT member for RCMSG_ASSERT_COVERS on the arrays it indexes.
 */
#define RCMSG_CFG_LOG_LEVEL_CHOICES(Y) RCMSG_LOG_LEVEL_LIST(Y)
#define RCMSG_CFG_IB_MTU_CHOICES(Y)                                                                \
    Y(RCMSG_IB_MTU_AUTO, "auto")                                                                   \
    Y(RCMSG_IB_MTU_256, "256")                                                                     \
    Y(RCMSG_IB_MTU_512, "512")                                                                     \
    Y(RCMSG_IB_MTU_1024, "1024")                                                                   \
    Y(RCMSG_IB_MTU_2048, "2048")                                                                   \
    Y(RCMSG_IB_MTU_4096, "4096")
#define RCMSG_CFG_CONNECT_CHOICES(Y)                                                               \
    Y(RCMSG_CONNECT_AUTO, "auto")                                                                  \
    Y(RCMSG_CONNECT_EAGER, "eager")                                                                \
    Y(RCMSG_CONNECT_LAZY, "lazy")
#define RCMSG_CFG_SM_CMA_CHOICES(Y)                                                                \
    Y(RCMSG_SM_CMA_AUTO, "auto")                                                                   \
    Y(RCMSG_SM_CMA_YES, "yes")                                                                     \
    Y(RCMSG_SM_CMA_NO, "no")
#define RCMSG_CFG_EAGER_RDMA_CHOICES(Y)                                                            \
    Y(RCMSG_EAGER_RDMA_AUTO, "auto")                                                               \
    Y(RCMSG_EAGER_RDMA_YES, "yes")                                                                 \
    Y(RCMSG_EAGER_RDMA_NO, "no")
#define RCMSG_CFG_READ_CONFIRM_CHOICES(Y)                                                          \
    Y(RCMSG_READ_CONFIRM_AUTO, "auto")                                                             \
    Y(RCMSG_READ_CONFIRM_YES, "yes")                                                               \
    Y(RCMSG_READ_CONFIRM_NO, "no")
#define RCMSG_CFG_WAIT_MODE_CHOICES(Y)                                                             \
    Y(RCMSG_WAIT_POLL, "poll")                                                                     \
    Y(RCMSG_WAIT_EVENT, "event")                                                                   \
    Y(RCMSG_WAIT_HYBRID, "hybrid")
#define RCMSG_CFG_ASYNC_PROGRESS_CHOICES(Y)                                                        \
    Y(RCMSG_ASYNC_PROGRESS_NO, "no")                                                               \
    Y(RCMSG_ASYNC_PROGRESS_CONTROL, "control")                                                     \
    Y(RCMSG_ASYNC_PROGRESS_FULL, "full")
#define RCMSG_CFG_YIELD_CHOICES(Y)                                                                 \
    Y(RCMSG_YIELD_AUTO, "auto")                                                                    \
    Y(RCMSG_YIELD_YES, "yes")                                                                      \
    Y(RCMSG_YIELD_NO, "no")
#define RCMSG_CFG_STATS_CHOICES(Y)                                                                 \
    Y(RCMSG_STATS_NO, "no")                                                                        \
    Y(RCMSG_STATS_SUMMARY, "summary")                                                              \
    Y(RCMSG_STATS_PEER, "peer")
#define RCMSG_CFG_COLL_BARRIER_ALGORITHM_CHOICES(Y)                                                \
    Y(RCMSG_COLL_BARRIER_ALG_AUTO, "auto")                                                         \
    Y(RCMSG_COLL_BARRIER_ALG_DISSEMINATION, "dissemination")                                       \
    Y(RCMSG_COLL_BARRIER_ALG_LINEAR, "linear")
#define RCMSG_CFG_COLL_BCAST_ALGORITHM_CHOICES(Y)                                                  \
    Y(RCMSG_COLL_BCAST_ALG_AUTO, "auto")                                                           \
    Y(RCMSG_COLL_BCAST_ALG_BINOMIAL, "binomial")                                                   \
    Y(RCMSG_COLL_BCAST_ALG_SCATTER_ALLGATHER, "scatter_allgather")                                 \
    Y(RCMSG_COLL_BCAST_ALG_LINEAR, "linear")
#define RCMSG_CFG_COLL_REDUCE_ALGORITHM_CHOICES(Y)                                                 \
    Y(RCMSG_COLL_REDUCE_ALG_AUTO, "auto")                                                          \
    Y(RCMSG_COLL_REDUCE_ALG_BINOMIAL, "binomial")                                                  \
    Y(RCMSG_COLL_REDUCE_ALG_REDUCE_SCATTER_GATHER, "reduce_scatter_gather")                        \
    Y(RCMSG_COLL_REDUCE_ALG_LINEAR, "linear")
#define RCMSG_CFG_COLL_ALLREDUCE_ALGORITHM_CHOICES(Y)                                              \
    Y(RCMSG_COLL_ALLREDUCE_ALG_AUTO, "auto")                                                       \
    Y(RCMSG_COLL_ALLREDUCE_ALG_RECURSIVE_DOUBLING, "recursive_doubling")                           \
    Y(RCMSG_COLL_ALLREDUCE_ALG_RABENSEIFNER, "rabenseifner")                                       \
    Y(RCMSG_COLL_ALLREDUCE_ALG_RING, "ring")                                                       \
    Y(RCMSG_COLL_ALLREDUCE_ALG_REDUCE_BCAST, "reduce_bcast")
#define RCMSG_CFG_COLL_ALLGATHER_ALGORITHM_CHOICES(Y)                                              \
    Y(RCMSG_COLL_ALLGATHER_ALG_AUTO, "auto")                                                       \
    Y(RCMSG_COLL_ALLGATHER_ALG_RECURSIVE_DOUBLING, "recursive_doubling")                           \
    Y(RCMSG_COLL_ALLGATHER_ALG_BRUCK, "bruck")                                                     \
    Y(RCMSG_COLL_ALLGATHER_ALG_RING, "ring")
#define RCMSG_CFG_COLL_ALLTOALL_ALGORITHM_CHOICES(Y)                                               \
    Y(RCMSG_COLL_ALLTOALL_ALG_AUTO, "auto")                                                        \
    Y(RCMSG_COLL_ALLTOALL_ALG_BRUCK, "bruck")                                                      \
    Y(RCMSG_COLL_ALLTOALL_ALG_PAIRWISE, "pairwise")
#define RCMSG_CFG_COLL_GATHER_ALGORITHM_CHOICES(Y)                                                 \
    Y(RCMSG_COLL_GATHER_ALG_AUTO, "auto")                                                          \
    Y(RCMSG_COLL_GATHER_ALG_BINOMIAL, "binomial")                                                  \
    Y(RCMSG_COLL_GATHER_ALG_LINEAR, "linear")
#define RCMSG_CFG_COLL_SCATTER_ALGORITHM_CHOICES(Y)                                                \
    Y(RCMSG_COLL_SCATTER_ALG_AUTO, "auto")                                                         \
    Y(RCMSG_COLL_SCATTER_ALG_BINOMIAL, "binomial")                                                 \
    Y(RCMSG_COLL_SCATTER_ALG_LINEAR, "linear")
#define RCMSG_CFG_COLL_REDUCE_SCATTER_ALGORITHM_CHOICES(Y)                                         \
    Y(RCMSG_COLL_REDUCE_SCATTER_ALG_AUTO, "auto")                                                  \
    Y(RCMSG_COLL_REDUCE_SCATTER_ALG_RECURSIVE_HALVING, "recursive_halving")                        \
    Y(RCMSG_COLL_REDUCE_SCATTER_ALG_RING, "ring")

#define RCMSG_CONFIG_ENUMERATOR(id, name) id,
typedef enum {
    RCMSG_CFG_IB_MTU_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_IB_MTU_COUNT
} rcmsg_ib_mtu_t;
typedef enum {
    RCMSG_CFG_CONNECT_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_CONNECT_COUNT
} rcmsg_connect_mode_t;
typedef enum {
    RCMSG_CFG_SM_CMA_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_SM_CMA_COUNT
} rcmsg_sm_cma_t;
typedef enum {
    RCMSG_CFG_WAIT_MODE_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_WAIT_COUNT
} rcmsg_wait_mode_t;
typedef enum {
    RCMSG_CFG_EAGER_RDMA_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_EAGER_RDMA_COUNT
} rcmsg_eager_rdma_t;
typedef enum {
    RCMSG_CFG_READ_CONFIRM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_READ_CONFIRM_COUNT
} rcmsg_read_confirm_t;
typedef enum {
    RCMSG_CFG_ASYNC_PROGRESS_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_ASYNC_PROGRESS_COUNT
} rcmsg_async_progress_t;
typedef enum { RCMSG_CFG_YIELD_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_YIELD_COUNT } rcmsg_yield_t;
typedef enum {
    RCMSG_CFG_STATS_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_STATS_COUNT
} rcmsg_stats_mode_t;
typedef enum {
    RCMSG_CFG_COLL_BARRIER_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_BARRIER_ALG_COUNT
} rcmsg_coll_barrier_alg_t;
typedef enum {
    RCMSG_CFG_COLL_BCAST_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_BCAST_ALG_COUNT
} rcmsg_coll_bcast_alg_t;
typedef enum {
    RCMSG_CFG_COLL_REDUCE_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_REDUCE_ALG_COUNT
} rcmsg_coll_reduce_alg_t;
typedef enum {
    RCMSG_CFG_COLL_ALLREDUCE_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR)
        RCMSG_COLL_ALLREDUCE_ALG_COUNT
} rcmsg_coll_allreduce_alg_t;
typedef enum {
    RCMSG_CFG_COLL_ALLGATHER_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR)
        RCMSG_COLL_ALLGATHER_ALG_COUNT
} rcmsg_coll_allgather_alg_t;
typedef enum {
    RCMSG_CFG_COLL_ALLTOALL_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_ALLTOALL_ALG_COUNT
} rcmsg_coll_alltoall_alg_t;
typedef enum {
    RCMSG_CFG_COLL_GATHER_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_GATHER_ALG_COUNT
} rcmsg_coll_gather_alg_t;
typedef enum {
    RCMSG_CFG_COLL_SCATTER_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR) RCMSG_COLL_SCATTER_ALG_COUNT
} rcmsg_coll_scatter_alg_t;
typedef enum {
    RCMSG_CFG_COLL_REDUCE_SCATTER_ALGORITHM_CHOICES(RCMSG_CONFIG_ENUMERATOR)
        RCMSG_COLL_REDUCE_SCATTER_ALG_COUNT
} rcmsg_coll_reduce_scatter_alg_t;

/* The form of an ENUM variable, "a|b|c", from its choices. */
#define RCMSG_CONFIG_FORM_ITEM(id, name) "|" name
#define RCMSG_CHOICES(ID)                &(RCMSG_CFG_##ID##_CHOICES(RCMSG_CONFIG_FORM_ITEM))[1]

#define RCMSG_CONFIG_VARS(X)                                                                       \
    X(LOG_LEVEL, ENUM, "warn", RCMSG_CHOICES(LOG_LEVEL),                                           \
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
    X(IB_MTU, ENUM, "auto", RCMSG_CHOICES(IB_MTU),                                                 \
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
      "warning. A rank holds the buffers of handled messages back until 1/16 of them (at most "    \
      "32) are held, then posts them in one batch, and all of them before it sleeps in an event "  \
      "wait (`RCMSG_WAIT_MODE=event`); a busy-polling rank may keep fewer than that batch back "   \
      "while idle.")                                                                               \
    X(SRQ_BUF_SIZE, SIZE, "9k", "256..1m",                                                         \
      "Size of each rc pre-posted receive buffer and send bounce buffer (header and eager "        \
      "payload); the same on every rank.")                                                         \
    X(SEND_BUFS, INT, "512", "16..65536",                                                          \
      "Registered send bounce buffers per device, shared by all peers; fewer (down to 64) when "   \
      "the rc pools do not fit in half of the locked memory limit (ulimit -l), with a warning.")   \
    X(POLL_BATCH, INT, "16", "1.." RCMSG_STRINGIFY(RCMSG_POLL_BATCH_MAX),                          \
      "Completions taken from a completion queue, or messages from a shared-memory ring, per "     \
      "poll. A blocking wait stops taking messages from shared-memory rings once its request "     \
      "is done, if no other request is open.")                                                     \
    X(DRAIN_TIMEOUT, TIME, "30s", "1ms..",                                                         \
      "How long finalize waits for pending sends to complete before giving up.")                   \
    X(CM_TIMEOUT, TIME, "100ms", "1ms..60s",                                                       \
      "Connection manager: how long a connect request or reply waits for its answer before it "    \
      "is sent again (UD loses packets). Every rc QP is connected through it.")                    \
    X(CM_RETRIES, INT, "300", "1..100000",                                                         \
      "Connection manager: sends of a connect request or reply before the connect fails with "     \
      "RCMSG_ERR_CONNECTION: a peer that does not answer within RCMSG_CM_TIMEOUT x this (30 s; "   \
      "it must be in an rcmsg call to answer) is reported dead, unless its launcher said so "      \
      "first. rcmsg_init's eager connects wait up to RCMSG_LAUNCHER_TIMEOUT.")                     \
    X(CONNECT, ENUM, "auto", RCMSG_CHOICES(CONNECT),                                               \
      "When rc peers are connected: eager, every one before rcmsg_init returns; lazy, each on "    \
      "the first message to it (through the connection manager), its address fetched then "        \
      "(rcmsg_init fetches none but this node's ranks'); auto, eager for jobs of up to "           \
      "RCMSG_CONNECT_EAGER_MAX ranks, lazy above.")                                                \
    X(CONNECT_EAGER_MAX, INT, "64", "0..",                                                         \
      "RCMSG_CONNECT=auto connects eagerly in jobs of up to this many ranks, lazily above.")       \
    X(QP_POOL, INT, "16", "1..65536",                                                              \
      "Lazy connect: RC QPs created in bulk in rcmsg_init and left in INIT for the first "         \
      "connects; progress refills the pool when it falls below half (eager connect creates one "   \
      "per rc peer as it connects it instead).")                                                   \
    X(QP_MAX_ACTIVE, INT, "0", "0..",                                                              \
      "Most connected RC QPs per process (0: no cap). At the cap the least recently used idle "    \
      "connection is disconnected (both sides agree through the connection manager), its QP "      \
      "reset and pooled; a later message reconnects it. Answering a peer's connect may exceed "    \
      "the cap until an idle connection is found.")                                                \
    X(ASYNC_PROGRESS, ENUM, "control", RCMSG_CHOICES(ASYNC_PROGRESS),                              \
      "What rcmsg's own thread does while the application computes: control answers the rc "       \
      "connection manager (connects, disconnects, reconnects after recycling), runs recoveries "   \
      "and the QP state sync, sleeping on completion channels when idle, so none of them waits "   \
      "for the peer to call rcmsg; no leaves all of it to the application's calls; full adds a "   \
      "thread of rcmsg's that also advances the data plane (rendezvous reads and their FINs, "     \
      "queued sends, nonblocking collectives) while the application computes: it takes the "       \
      "core lock only when no application thread holds or wants it, and paces itself (idle: 64 "   \
      "sched_yield rounds only with 2 CPUs per rank, then sleeps on completion channels, sm's "    \
      "wakeup pipe and an eventfd, or 20 us to 1 ms sleeps where no event can wake it); with "     \
      "nothing outstanding it sleeps up to 1 s. Under full every level takes the core lock "       \
      "(docs/threads.md).")                                                                        \
    X(RECOVERY, BOOL, "yes", "",                                                                   \
      "Recover an rc connection whose QP fails with a transient error (retry or RNR retry "        \
      "exceeded, a link flap, a QP found in ERR) or a severe one (QP fatal): drain, replace the "  \
      "QP by a new one, reconnect through the connection manager and replay what the peer did "    \
      "not receive, nothing lost or duplicated; no: the peer fails at the first error.")           \
    X(READ_CONFIRM, ENUM, "auto", RCMSG_CHOICES(READ_CONFIRM),                                     \
      "Trust an rc rendezvous read only once a later request on its connection has completed "     \
      "(a zero-length write follows the last read): a connection that breaks first has the "       \
      "read made again by its recovery; one more round trip per rendezvous. auto: on Soft-RoCE "   \
      "(rxe) with RCMSG_RECOVERY, where a read that completed just before its connection broke "   \
      "was seen to have wrong bytes.")                                                             \
    X(RECOVERY_ATTEMPTS, INT, "1000", "1..1000000",                                                \
      "Recoveries of one connection in a row with no message completed between them before the "   \
      "peer fails with RCMSG_ERR_CONNECTION; such a run also ends after RCMSG_RECOVERY_TIMEOUT: "  \
      "a connection that breaks again at once, for ever, is given up.")                            \
    X(RECOVERY_TIMEOUT, TIME, "30s", "100ms..",                                                    \
      "How long a broken rc connection has to come back (a link flap, a peer outside rcmsg "       \
      "calls): a peer that has not answered the reconnect after this long fails with "             \
      "RCMSG_ERR_CONNECTION (a dead peer is reported after the RC retries plus this), and so "     \
      "does one whose connection keeps breaking with no message completed for this long.")         \
    X(QP_SYNC_INTERVAL, TIME, "1s", "0..3600s",                                                    \
      "How often each rc QP's state, as rcmsg mirrors it, is checked against the hardware "        \
      "(ibv_query_qp, all QPs in one pass); a QP found in error is recovered, and so is one "      \
      "that neither completes nor fails a request for 4 times its retries' time and 5 s more "     \
      "(docs/monitoring.md). 0: never.")                                                           \
    X(EAGER_RDMA, ENUM, "no", RCMSG_CHOICES(EAGER_RDMA),                                           \
      "Eager messages over RDMA WRITE into a ring of slots the receiver registered for the "       \
      "sender "                                                                                    \
      "(rc; no receive work request or completion): auto, for a peer once this rank sent it "      \
      "RCMSG_EAGER_RDMA_THRESHOLD messages, at most RCMSG_EAGER_RDMA_MAX_PEERS rings per "         \
      "process; yes, for every peer from its first message; no, never.")                           \
    X(EAGER_RDMA_THRESHOLD, INT, "16", "0..",                                                      \
      "RCMSG_EAGER_RDMA=auto: messages sent to a peer before a ring is asked of it.")              \
    X(EAGER_RDMA_MAX_PEERS, INT, "8", "0..65536",                                                  \
      "RCMSG_EAGER_RDMA=auto: rings a process registers for its peers to write (the others are "   \
      "refused and keep sending by SEND); memory: this x SLOTS x SLOT_SIZE.")                      \
    X(EAGER_RDMA_SLOTS, INT, "32", "2..4096",                                                      \
      "Slots of a ring; a sender with no free slot sends by SEND until slots come back.")          \
    X(EAGER_RDMA_SLOT_SIZE, SIZE, "2k", "64..64k",                                                 \
      "Bytes of a ring slot (a multiple of 64, at most RCMSG_SRQ_BUF_SIZE): a message of up to "   \
      "this minus 16 bytes (header included) goes into a slot, a longer one by SEND, as does one " \
      "whose 16-byte tail would make the write a packet of the path MTU longer than a SEND.")      \
    X(STATS, ENUM, "no", RCMSG_CHOICES(STATS),                                                     \
      "Counters printed at rcmsg_finalize: summary, one line per rank; peer, one line per peer "   \
      "(rcmsg_info --counters lists them).")                                                       \
    X(STATS_FILE, STRING, "", "",                                                                  \
      "File the counters are written to at rcmsg_finalize as JSON lines, whatever RCMSG_STATS "    \
      "says; %r in the name becomes the rank, %h the host, %p the process id. rcmsg_init fails "   \
      "when it cannot be written (no such directory, no permission).")                             \
    X(STALL_TIMEOUT, TIME, "0", "0..",                                                             \
      "A wait with requests pending that makes no progress for this long prints the state dump "   \
      "once (rcmsg_info --dump explains it); SIGUSR1 prints it at any time. 0: never.")            \
    X(LAUNCHER_TIMEOUT, TIME, "300s", "1s..",                                                      \
      "Longest wait for the launcher (PMIx) in rcmsg_init and rcmsg_finalize: a rank that fails "  \
      "or exits before a fence is reported after this long instead of waited for forever; it "     \
      "also bounds how far apart in time the ranks may call rcmsg_finalize.")                      \
    X(LIVENESS_INTERVAL, TIME, "1s", "10ms..3600s",                                                \
      "How often a rank that waits checks its launcher and probes the rc peers it waits for "      \
      "(a zero-length RDMA write, no receive buffer used), and rc's progress thread the "          \
      "connected peers it heard nothing from while the rank computes; a dead peer fails its "      \
      "requests with RCMSG_ERR_CONNECTION once the probe's retries run out.")                      \
    X(EAGER_LIMIT, SIZE, "8k", "0..1m",                                                            \
      "Largest message sent eagerly (one SEND) over rc and to the rank itself; larger ones use "   \
      "rendezvous with RDMA_READ. Capped by the transport's buffer size. Shared memory has its "   \
      "own, RCMSG_SM_EAGER_LIMIT.")                                                                \
    X(EAGER_CREDITS, INT, "32", "1..65535",                                                        \
      "Eager messages a rank may have unmatched at each peer; more wait at the sender, so "        \
      "unexpected-message memory stays bounded.")                                                  \
    X(RNDV_CHUNK, SIZE, "512k", "4k..1g",                                                          \
      "Bytes per RDMA_READ of a rendezvous transfer over rc (shared memory copies a message in "   \
      "one call).")                                                                                \
    X(RNDV_READS, INT, "4", "1.." RCMSG_STRINGIFY(RCMSG_RNDV_READS_MAX),                           \
      "RDMA_READs in flight per rendezvous transfer (also bounded by the QP's max_rd_atomic).")    \
    X(RCACHE, BOOL, "no", "",                                                                      \
      "Keep rendezvous buffers registered for reuse; off by default: see docs/p2p.md "             \
      "(invalidation).")                                                                           \
    X(RCACHE_SIZE, SIZE, "256m", "0..",                                                            \
      "Most bytes the registration cache keeps registered (least recently used evicted first).")   \
    X(SM_EAGER_LIMIT, SIZE, "8k", "0..1m",                                                         \
      "Largest message sent eagerly over shared memory (copied into a ring cell and out of it); "  \
      "larger ones use rendezvous, one copy with process_vm_readv (CMA). Capped by "               \
      "RCMSG_SM_CELL_SIZE when that is set.")                                                      \
    X(SM_EAGER_CREDITS, INT, "256", "1..65535",                                                    \
      "Eager messages a rank may have unmatched at each local peer: shared memory's own "          \
      "RCMSG_EAGER_CREDITS (unexpected memory up to this many times RCMSG_SM_EAGER_LIMIT per "     \
      "local peer). Unset, RCMSG_EAGER_CREDITS when that is set. The same on every rank.")         \
    X(SM_CELL_SIZE, SIZE, "0", "0..1m",                                                            \
      "Bytes of header and eager payload each shared-memory ring cell holds, at least 64; 0: "     \
      "RCMSG_SM_EAGER_LIMIT plus 64 bytes of header room. The same on every rank.")                \
    X(SM_CELLS, INT, "64", "4..65536",                                                             \
      "Cells (each of RCMSG_SM_CELL_SIZE bytes) in each shared-memory ring, one ring per local "   \
      "sender.")                                                                                   \
    X(SM_STAGING, SIZE, "256k", "4k..1g",                                                          \
      "Per-peer staging area for large shared-memory messages when CMA is not permitted.")         \
    X(SM_CMA, ENUM, "auto", RCMSG_CHOICES(SM_CMA),                                                 \
      "Single-copy reads between local ranks with process_vm_readv; no copies through the "        \
      "segment instead; auto falls back when the kernel refuses.")                                 \
    X(WAIT_MODE, ENUM, "poll", RCMSG_CHOICES(WAIT_MODE),                                           \
      "How waits idle: poll busy-polls; event sleeps on completion events at once; hybrid "        \
      "spins RCMSG_SPIN_COUNT polls first.")                                                       \
    X(SPIN_COUNT, INT, "2000", "0..",                                                              \
      "Idle polls before a hybrid-mode wait sleeps on completion events.")                         \
    X(YIELD, ENUM, "auto", RCMSG_CHOICES(YIELD),                                                   \
      "Call sched_yield() in idle polling rounds; auto: when the node runs more ranks than it "    \
      "has online CPUs (oversubscribed).")                                                         \
    X(COLL_BARRIER_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_BARRIER_ALGORITHM),                 \
      "Barrier algorithm (the same on every rank, like every RCMSG_COLL_* variable); auto: with "  \
      "more ranks than CPUs on the node, linear (fan-in and fan-out through rank 0) on up to 8 "   \
      "ranks, else dissemination.")                                                                \
    X(COLL_BCAST_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_BCAST_ALGORITHM),                     \
      "Broadcast algorithm; auto: with more ranks than CPUs on the node, linear (the root sends "  \
      "to all at once) on up to 8 ranks, else binomial; otherwise scatter_allgather from "         \
      "RCMSG_COLL_BCAST_LONG bytes on 3 or more ranks, else linear on up to 4 ranks, else "        \
      "binomial.")                                                                                 \
    X(COLL_BCAST_LONG, SIZE, "64k", "0..",                                                         \
      "Message size from which broadcasts scatter+allgather.")                                     \
    X(COLL_REDUCE_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_REDUCE_ALGORITHM),                   \
      "Reduce algorithm; auto: with more ranks than CPUs on the node, linear (every vector "       \
      "straight to the root at once) on up to 8 ranks while the root's ranks - 1 vectors are at "  \
      "most 4 MiB in all, else binomial; otherwise "                                               \
      "reduce_scatter_gather from RCMSG_COLL_REDUCE_LONG bytes on 3 or more ranks, else "          \
      "binomial.")                                                                                 \
    X(COLL_REDUCE_LONG, SIZE, "64k", "0..",                                                        \
      "Vector size from which reduce uses reduce-scatter + gather.")                               \
    X(COLL_ALLREDUCE_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_ALLREDUCE_ALGORITHM),             \
      "Allreduce algorithm; auto: recursive_doubling below RCMSG_COLL_ALLREDUCE_SHORT bytes or "   \
      "on 2 ranks, rabenseifner below RCMSG_COLL_ALLREDUCE_LONG, else ring; reduce_bcast (a "      \
      "reduce to rank 0 and a binomial bcast) for a short one with a user operation on more "      \
      "than 2 ranks and more ranks than CPUs.")                                                    \
    X(COLL_ALLREDUCE_SHORT, SIZE, "16k", "0..",                                                    \
      "Vector size from which allreduce leaves recursive doubling.")                               \
    X(COLL_ALLREDUCE_LONG, SIZE, "1m", "0..", "Vector size from which allreduce uses the ring.")   \
    X(COLL_ALLGATHER_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_ALLGATHER_ALGORITHM),             \
      "Allgather algorithm; auto: ring from RCMSG_COLL_ALLGATHER_LONG bytes gathered, else "       \
      "recursive_doubling on a power-of-two number of ranks and bruck otherwise.")                 \
    X(COLL_ALLGATHER_LONG, SIZE, "256k", "0..",                                                    \
      "Total gathered size (ranks x block) from which allgather uses the ring.")                   \
    X(COLL_ALLTOALL_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_ALLTOALL_ALGORITHM),               \
      "Alltoall algorithm; auto: bruck for blocks up to RCMSG_COLL_ALLTOALL_TINY bytes on 4 or "   \
      "more ranks, else pairwise.")                                                                \
    X(COLL_ALLTOALL_TINY, SIZE, "256", "0..", "Largest block for which alltoall uses Bruck.")      \
    X(COLL_GATHER_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_GATHER_ALGORITHM),                   \
      "Gather algorithm; auto: linear (every block straight to the root at once) on up to 4 "      \
      "ranks or when the node runs more ranks than CPUs, else binomial.")                          \
    X(COLL_SCATTER_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_SCATTER_ALGORITHM),                 \
      "Scatter algorithm; auto: linear (every block straight from the root at once) on up to 4 "   \
      "ranks or when the node runs more ranks than CPUs, else binomial.")                          \
    X(COLL_REDUCE_SCATTER_ALGORITHM, ENUM, "auto", RCMSG_CHOICES(COLL_REDUCE_SCATTER_ALGORITHM),   \
      "Reduce-scatter (block) algorithm; auto: ring from RCMSG_COLL_REDUCE_SCATTER_LONG bytes "    \
      "in all (ranks x block), else recursive_halving.")                                           \
    X(COLL_REDUCE_SCATTER_LONG, SIZE, "512k", "0..",                                               \
      "Total size (ranks x block) from which reduce-scatter uses the ring.")                       \
    X(COLL_CHECK, BOOL, "no", "",                                                                  \
      "Ranks agree on the call, root, count, datatype, op and split color before each "            \
      "collective, comm_dup and comm_split (one small allgather); a mismatch fails it on all "     \
      "ranks, naming them.")                                                                       \
    X(TEST_AGREE_KILL, INT, "0", "0..",                                                            \
      "For tests only: the process kills itself (SIGKILL) right after posting its Nth message "    \
      "of the agreements that make communicators (a member lost at a chosen point); 0: never.")

#endif /* RCMSG_BASE_CONFIG_VARS_H */
