/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state dump and the stall check (pml_dump.c).
 */
#ifndef RCMSG_PML_DUMP_H
#define RCMSG_PML_DUMP_H

#include "pml_fail.h"

typedef struct {
    uint64_t stall_activity; /* activity (and the progress hooks' counts) at the last stall check */
    uint64_t stall_since_us; /* when the last check saw it change (coarse clock) */
    uint64_t stall_us;       /* RCMSG_STALL_TIMEOUT; 0: off */
    bool stall_dumped;       /* this stall was dumped already */
} pml_stall_t;

extern pml_stall_t pml_stall;

void pml_dump_init(void);
void pml_dump_fini(void);
void pml_dump(const char *why);
void pml_stall_check(void);

#endif /* RCMSG_PML_DUMP_H */
