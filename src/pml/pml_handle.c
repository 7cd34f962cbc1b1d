/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The communicator handle table (pml_handle.h): slots by context id, and the live ones.
 */
#include "config.h"

#include "pml_handle.h"

#include "base/log.h"

#include <stdlib.h>
#include <string.h>

pml_comms_t pml_comms;

rcmsg_status_t pml_comms_init(void)
{
    pml_comms_fini();
    /* (calloc: the pages of slots never used are never touched) */
    pml_comms.slots = calloc(PML_CTX_IDS, sizeof(*pml_comms.slots));
    if (pml_comms.slots == NULL) {
        rcmsg_error("out of memory for the table of communicators");
        return RCMSG_ERR_NO_MEMORY;
    }
    rcmsg_queue_init(&pml_comms.live);
    return RCMSG_OK;
}

void pml_comms_fini(void)
{
    free(pml_comms.slots);
    memset(&pml_comms, 0, sizeof(pml_comms));
}

struct rcmsg_comm *pml_comms_take(uint32_t ctx)
{
    struct rcmsg_comm *c;

    if ((ctx >> 1) >= PML_CTX_IDS || pml_comms.slots[ctx >> 1].live) {
        return NULL;
    }
    c = &pml_comms.slots[ctx >> 1];
    memset(c, 0, sizeof(*c));
    c->live = true;
    c->ctx = ctx;
    rcmsg_queue_push_tail(&pml_comms.live, &c->live_link);
    if (ctx == 0) {
        pml_comms.world = c;
    } else if (ctx == PML_CTX_WORLD_PRIVATE) {
        pml_comms.world_private = c;
    }
    return c;
}

void pml_comms_put(struct rcmsg_comm *c)
{
    rcmsg_queue_remove(&pml_comms.live, &c->live_link);
    c->live = false;
    if (c == pml_comms.world) {
        pml_comms.world = NULL;
    } else if (c == pml_comms.world_private) {
        pml_comms.world_private = NULL;
    }
}
