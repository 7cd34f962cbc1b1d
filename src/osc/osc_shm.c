/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided: rcmsg_win_allocate's memory (osc.h). Where sm is opened it is a memfd mapping, and
 * the members on this node map each other's (through /proc/PID/fd, as btl_sm maps segments):
 * a put or get to such a member is a memcpy and an atomic the CPU's, with no system call and
 * no message. Elsewhere, or where a mapping fails, memory of the heap and the transports.
 */
#define _GNU_SOURCE
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "core/core.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

rcmsg_status_t osc_shm_alloc(rcmsg_win_t win, size_t size)
{
    void *p;

    win->shm_fd = -1;
    if (size == 0) {
        return RCMSG_OK;
    }
    if (rcmsg_wireup_btl(rcmsg_core_wireup(), "sm") != NULL) {
        int fd = memfd_create("rcmsg-window", MFD_CLOEXEC);
        if (fd >= 0 && ftruncate(fd, (off_t)size) == 0 &&
            (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) != MAP_FAILED) {
            win->base = p;
            win->shm_fd = fd;
            return RCMSG_OK;
        }
        rcmsg_info("rcmsg_win_allocate: no shared mapping of %zu bytes (%m): heap memory", size);
        if (fd >= 0) {
            close(fd);
        }
    }
    p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (p == NULL) {
        rcmsg_error("rcmsg_win_allocate: out of memory for %zu bytes", size);
        return RCMSG_ERR_NO_MEMORY;
    }
    memset(p, 0, size);
    win->base = p;
    return RCMSG_OK;
}

void osc_shm_map(rcmsg_win_t win)
{
    rcmsg_btl_t *sm = rcmsg_wireup_btl(rcmsg_core_wireup(), "sm");

    for (int i = 0; sm != NULL && i < win->size; i++) {
        const osc_member_t *m = &win->m[i];
        char path[64];
        void *p;
        int fd;

        if (i == win->rank || win->btl[i] != sm || m->fd < 0 || m->size == 0) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)m->pid, (int)m->fd);
        fd = open(path, O_RDWR | O_CLOEXEC);
        p = fd < 0 ? MAP_FAILED : mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (fd >= 0) {
            close(fd);
        }
        if (p == MAP_FAILED) {
            rcmsg_info("one-sided: member %d's window not mapped (%s: %m): copies through the "
                       "kernel instead",
                       i, path);
            continue;
        }
        win->mapped[i] = p;
    }
}

void osc_shm_release(rcmsg_win_t win)
{
    for (int i = 0; win->mapped != NULL && i < win->size; i++) {
        if (win->mapped[i] != NULL) {
            munmap(win->mapped[i], win->m[i].size);
        }
    }
    free(win->mapped);
    if (win->allocated && win->shm_fd >= 0) {
        munmap(win->base, win->len);
        close(win->shm_fd);
    } else if (win->allocated) {
        free(win->base);
    }
}
