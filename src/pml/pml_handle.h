/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The communicator handle table (pml_handle.c): every communicator of this process lives in
 * the slot of its context id (ctx / 2), so that a handle is checked, and the communicator of
 * a message found, in O(1), as MPI implementations keep their handles in tables. A handle is
 * the address of its slot: it is valid when it points at a slot of the table and the slot is
 * live; a freed handle stays invalid until its id is agreed again (pml_ctx.c). The table is
 * allocated at init and stays until fini, so a stale handle is never read outside it.
 */
#ifndef RCMSG_PML_HANDLE_H
#define RCMSG_PML_HANDLE_H

#include "pml.h"
#include "pml_types.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    struct rcmsg_comm *slots;         /* [PML_CTX_IDS]: the communicator of context id i (ctx 2i) */
    struct rcmsg_comm *world;         /* slot 0 once the pml is initialized, else NULL */
    struct rcmsg_comm *world_private; /* slot 1 likewise (rcmsg_comm_world_private) */
    rcmsg_queue_t live;               /* the live communicators, in creation order (live_link) */
} pml_comms_t;

extern pml_comms_t pml_comms;

/* the context of rcmsg_comm_world_private: taken at init by every process, with no agreement */
#define PML_CTX_WORLD_PRIVATE 2u

rcmsg_status_t pml_comms_init(void);
/* Releases the table (the communicators were destroyed first). */
void pml_comms_fini(void);
/* The slot of context ctx (even) made live and cleared but for live_link; NULL when ctx is out
 * of range or its slot is live already. */
struct rcmsg_comm *pml_comms_take(uint32_t ctx);
/* c's slot is free again (not live). */
void pml_comms_put(struct rcmsg_comm *c);

/* Whether comm is a live communicator of this process (a freed or foreign handle: false; it is
 * read only when it points at a slot of the table). */
static inline bool pml_comm_valid(rcmsg_comm_t comm)
{
    uintptr_t off;

    if (comm == pml_comms.world) {
        return comm != NULL; /* the common case */
    }
    off = (uintptr_t)comm - (uintptr_t)pml_comms.slots;
    return pml_comms.slots != NULL && off < PML_CTX_IDS * sizeof(struct rcmsg_comm) &&
           off % sizeof(struct rcmsg_comm) == 0 && comm->live;
}

/* The communicator of a context (either space), or NULL when this rank has none. */
static inline struct rcmsg_comm *pml_comm_of_ctx(uint32_t ctx)
{
    uint32_t id = ctx >> 1;

    if (id >= PML_CTX_IDS || pml_comms.slots == NULL || !pml_comms.slots[id].live) {
        return NULL;
    }
    return &pml_comms.slots[id];
}

#endif /* RCMSG_PML_HANDLE_H */
