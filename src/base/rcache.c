/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous registrations, optionally cached (LRU, bounded in bytes). */
#include "config.h"

#include "rcache.h"

#include "base/config_table.h"
#include "base/log.h"
#include "base/queue.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct rcmsg_rcache_entry {
    rcmsg_queue_link_t lru; /* in rc_cache.lru: head = most recently used */
    rcmsg_btl_t *btl;
    uintptr_t start, end;
    bool remote_read;
    int refs;
    rcmsg_btl_mem_t mem;
};

static struct {
    bool enabled;
    size_t limit, bytes;
    rcmsg_queue_t lru; /* cached entries */
    unsigned long hits, regs;
} rc_cache;

void rcmsg_rcache_init(void)
{
    rc_cache = (__typeof__(rc_cache)){0};
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
    e->btl->ops->mem_dereg(e->btl, &e->mem);
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

rcmsg_status_t rcmsg_rcache_get(rcmsg_btl_t *btl, void *addr, size_t len, bool remote_read,
                                rcmsg_rcache_entry_t **entry_p, const rcmsg_btl_mem_t **mem_p)
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
            if (e->btl == btl && e->start <= start && end <= e->end &&
                e->remote_read == remote_read) {
                e->refs++;
                rcmsg_queue_remove(&rc_cache.lru, &e->lru);
                rcmsg_queue_push_head(&rc_cache.lru, &e->lru);
                rc_cache.hits++;
                *entry_p = e;
                *mem_p = &e->mem;
                return RCMSG_OK;
            }
        }
        /* register whole pages, so that neighbours on the same pages hit */
        start &= ~(page - 1);
        end = (end + page - 1) & ~(page - 1);
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    status = btl->ops->mem_reg(btl, (void *)start, end - start, remote_read, &e->mem);
    if (status != RCMSG_OK) {
        free(e);
        return status;
    }
    e->btl = btl;
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
    *mem_p = &e->mem;
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
