/* SPDX-License-Identifier: BSD-3-Clause */
/* Locked memory: the limit that applies to registrations, and pools fitted into it. */
#include "config.h"

#include "rc_memlock.h"

#include "base/log.h"

#include <linux/capability.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether CAP_IPC_LOCK is in the effective set (the kernel then ignores RLIMIT_MEMLOCK). */
static int has_ipc_lock(void)
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};

    if (syscall(SYS_capget, &hdr, data) != 0) {
        rcmsg_debug("capget failed: %m; assuming no CAP_IPC_LOCK");
        return 0;
    }
    return (data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective & CAP_TO_MASK(CAP_IPC_LOCK)) != 0;
}

size_t rcmsg_rc_memlock_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        rcmsg_debug("getrlimit(RLIMIT_MEMLOCK) failed: %m; assuming no limit");
        return SIZE_MAX;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= SIZE_MAX || has_ipc_lock()) {
        return SIZE_MAX;
    }
    return (size_t)rl.rlim_cur;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

size_t rcmsg_rc_pools_min_limit(size_t buf_size, int nrbufs, int nsbufs)
{
    size_t nmin = (size_t)min_int(nrbufs, RCMSG_RC_MIN_RECV_BUFS) +
                  (size_t)min_int(nsbufs, RCMSG_RC_MIN_SEND_BUFS);
    return 2 * nmin * buf_size;
}

rcmsg_status_t rcmsg_rc_pools_fit(size_t limit, size_t buf_size, int *nrbufs_p, int *nsbufs_p)
{
    long long nr = *nrbufs_p, ns = *nsbufs_p;
    long long min_r = min_int(*nrbufs_p, RCMSG_RC_MIN_RECV_BUFS);
    long long min_s = min_int(*nsbufs_p, RCMSG_RC_MIN_SEND_BUFS);
    long long total, r, s;

    if (buf_size == 0 || limit / 2 / buf_size >= (size_t)(nr + ns)) {
        return RCMSG_OK;
    }
    total = (long long)(limit / 2 / buf_size); /* < nr + ns, so it fits in a long long */
    if (total < min_r + min_s) {
        return RCMSG_ERR_NO_MEMORY;
    }
    /* in proportion to the counts asked for, each within [its minimum, its count] */
    s = ns * total / (nr + ns);
    s = s < min_s ? min_s : s;
    r = total - s;
    r = r > nr ? nr : r;
    if (r < min_r) {
        r = min_r;
        s = total - r;
    }
    *nrbufs_p = (int)r;
    *nsbufs_p = (int)s;
    return RCMSG_OK;
}
