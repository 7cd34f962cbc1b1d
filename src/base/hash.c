/* SPDX-License-Identifier: BSD-3-Clause */
/* The chained hash of intrusive links (hash.h): growth, removal and walks. */
#include "config.h"

#include "hash.h"

#include <stdlib.h>

void rcmsg_hash_fini(rcmsg_hash_t *h)
{
    free(h->buckets);
    rcmsg_hash_init(h);
}

/* Rehashes into a bucket array of 1 << bits; false (nothing changed) without memory. */
static bool hash_resize(rcmsg_hash_t *h, unsigned bits)
{
    rcmsg_hash_t n = {.buckets = calloc((size_t)1 << bits, sizeof(*n.buckets)), .bits = bits};

    if (n.buckets == NULL) {
        return false;
    }
    for (size_t b = 0; h->buckets != NULL && b < (size_t)1 << h->bits; b++) {
        while (h->buckets[b] != NULL) {
            rcmsg_hash_link_t *l = h->buckets[b];
            size_t nb = rcmsg_hash_bucket(&n, l->key);
            h->buckets[b] = l->next;
            l->next = n.buckets[nb];
            n.buckets[nb] = l;
        }
    }
    free(h->buckets);
    h->buckets = n.buckets;
    h->bits = bits;
    return true;
}

rcmsg_status_t rcmsg_hash_insert(rcmsg_hash_t *h, rcmsg_hash_link_t *l, uint64_t key)
{
    size_t b;

    if (h->buckets == NULL) {
        if (!hash_resize(h, RCMSG_HASH_MIN_BITS)) {
            return RCMSG_ERR_NO_MEMORY;
        }
    } else if (h->count >= (size_t)1 << h->bits && h->bits < 8 * sizeof(size_t) - 2) {
        (void)hash_resize(h, h->bits + 1); /* without memory: longer chains, still correct */
    }
    l->key = key;
    b = rcmsg_hash_bucket(h, key);
    l->next = h->buckets[b];
    h->buckets[b] = l;
    h->count++;
    return RCMSG_OK;
}

bool rcmsg_hash_remove(rcmsg_hash_t *h, rcmsg_hash_link_t *l)
{
    if (h->buckets == NULL) {
        return false;
    }
    for (rcmsg_hash_link_t **pp = &h->buckets[rcmsg_hash_bucket(h, l->key)]; *pp != NULL;
         pp = &(*pp)->next) {
        if (*pp == l) {
            *pp = l->next;
            l->next = NULL;
            h->count--;
            return true;
        }
    }
    return false;
}

/* The first entry in bucket b or after it. */
static rcmsg_hash_link_t *hash_from(const rcmsg_hash_t *h, size_t b)
{
    for (; h->buckets != NULL && b < (size_t)1 << h->bits; b++) {
        if (h->buckets[b] != NULL) {
            return h->buckets[b];
        }
    }
    return NULL;
}

rcmsg_hash_link_t *rcmsg_hash_first(const rcmsg_hash_t *h)
{
    return h->count > 0 ? hash_from(h, 0) : NULL;
}

rcmsg_hash_link_t *rcmsg_hash_next(const rcmsg_hash_t *h, const rcmsg_hash_link_t *l)
{
    return l->next != NULL ? l->next : hash_from(h, rcmsg_hash_bucket(h, l->key) + 1);
}
