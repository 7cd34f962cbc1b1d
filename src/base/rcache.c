/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous registrations, optionally cached (LRU, bounded in bytes). */
#include "config.h"

#include "rcache.h"

#include "base/config_table.h"
#include "base/log.h"
#include "base/queue.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct rcmsg_rcache_entry {
    rcmsg_queue_link_t lru; /* in rc_cache.lru: head = most recently used */
    void *ctx;
    uintptr_t start, end;
    bool remote_read;
    int refs;
    max_align_t handle[]; /* ops->handle_size bytes, filled by ops->reg */
};

static struct {
    const rcmsg_rcache_ops_t *ops;
    bool enabled;
    size_t limit, bytes;
    rcmsg_queue_t lru; /* cached entries */
    unsigned long hits, regs;
} rc_cache;

void rcmsg_rcache_init(const rcmsg_rcache_ops_t *ops)
{
    rc_cache = (__typeof__(rc_cache)){0};
    rc_cache.ops = ops;
    rc_cache.enabled = rcmsg_config_bool(RCMSG_CFG_RCACHE);
    rc_cache.limit = rcmsg_config_size(RCMSG_CFG_RCACHE_SIZE);
    rcmsg_info("registration cache %s%s", rc_cache.enabled ? "on, up to " : "off",
               rc_cache.enabled ? rcmsg_config_text(RCMSG_CFG_RCACHE_SIZE) : "");
}

static rcmsg_rcache_entry_t *lru_entry(rcmsg_queue_link_t *l)
{
    return l != NULL ? RCMSG_CONTAINER_OF(l, rcmsg_rcache_entry_t, lru) : NULL;
}

static void entry_release(rcmsg_rcache_entry_t *e)
{
    rc_cache.ops->dereg(e->ctx, e->handle);
    rc_cache.bytes -= e->end - e->start;
    free(e);
}

/* Evict unused entries, least recently used first, until the cache fits its limit. */
static void evict(void)
{
    rcmsg_rcache_entry_t *e = lru_entry(rcmsg_queue_last(&rc_cache.lru));

    while (e != NULL && rc_cache.bytes > rc_cache.limit) {
        rcmsg_rcache_entry_t *prev = lru_entry(rcmsg_queue_prev(&e->lru));
        if (e->refs == 0) {
            rcmsg_queue_remove(&rc_cache.lru, &e->lru);
            entry_release(e);
        }
        e = prev;
    }
}

rcmsg_status_t rcmsg_rcache_get(void *ctx, void *addr, size_t len, bool remote_read,
                                rcmsg_rcache_entry_t **entry_p, const void **handle_p)
{
    uintptr_t start = (uintptr_t)addr, end = start + len;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    rcmsg_rcache_entry_t *e;
    rcmsg_status_t status;

    if (rc_cache.enabled) {
        for (e = lru_entry(rcmsg_queue_first(&rc_cache.lru)); e != NULL;
             e = lru_entry(rcmsg_queue_next(&e->lru))) {
            /* same access only: a send buffer is registered REMOTE_READ, a read target
             * LOCAL_WRITE, and neither serves the other */
            if (e->ctx == ctx && e->start <= start && end <= e->end &&
                e->remote_read == remote_read) {
                e->refs++;
                rcmsg_queue_remove(&rc_cache.lru, &e->lru);
                rcmsg_queue_push_head(&rc_cache.lru, &e->lru);
                rc_cache.hits++;
                *entry_p = e;
                *handle_p = e->handle;
                return RCMSG_OK;
            }
        }
        /* register whole pages, so that neighbours on the same pages hit */
        start &= ~(page - 1);
        end = (end + page - 1) & ~(page - 1);
    }
    e = calloc(1, sizeof(*e) + rc_cache.ops->handle_size);
    if (e == NULL) {
        rcmsg_error("registration of %zu bytes: no memory for its entry", (size_t)(end - start));
        return RCMSG_ERR_NO_MEMORY;
    }
    status = rc_cache.ops->reg(ctx, (void *)start, end - start, remote_read, e->handle);
    if (status != RCMSG_OK) {
        free(e);
        return status;
    }
    e->ctx = ctx;
    e->start = start;
    e->end = end;
    e->remote_read = remote_read;
    e->refs = 1;
    rc_cache.regs++;
    rc_cache.bytes += end - start;
    if (rc_cache.enabled) {
        rcmsg_queue_push_head(&rc_cache.lru, &e->lru);
        evict();
    }
    *entry_p = e;
    *handle_p = e->handle;
    return RCMSG_OK;
}

void rcmsg_rcache_put(rcmsg_rcache_entry_t *e)
{
    if (--e->refs > 0) {
        return;
    }
    if (!rc_cache.enabled) {
        entry_release(e);
        return;
    }
    evict();
}

void rcmsg_rcache_fini(void)
{
    rcmsg_rcache_entry_t *e;

    while ((e = lru_entry(rcmsg_queue_pop_head(&rc_cache.lru))) != NULL) {
        if (e->refs > 0) {
            rcmsg_warn("registration of %zu bytes at %p still in use at finalize",
                       (size_t)(e->end - e->start), (void *)e->start);
        }
        entry_release(e);
    }
    rcmsg_debug("registration cache: %lu hits, %lu registrations", rc_cache.hits, rc_cache.regs);
}

rcmsg_rcache_stats_t rcmsg_rcache_stats(void)
{
    return (rcmsg_rcache_stats_t){
        .hits = rc_cache.hits, .regs = rc_cache.regs, .bytes = rc_cache.bytes};
}
