/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGUSR1 asks a rank for its state dump. The handler only sets a flag (async-signal-safe);
 * whoever is waiting takes it and prints: the pml's progress during the job, the wireup's
 * fence and the transports' flush inside rcmsg_finalize, rcmsg_finalize itself at its end. It
 * is installed by the pml's init and restored only when rcmsg_finalize (or a failed
 * rcmsg_init) returns, so that a SIGUSR1 sent to a rank stuck in finalize never kills it.
 */
#ifndef RCMSG_BASE_DUMP_SIGNAL_H
#define RCMSG_BASE_DUMP_SIGNAL_H

#include <stdbool.h>

/* SIGUSR1 sets the flag, unless the application has a handler of its own (said at info). */
void rcmsg_dump_signal_install(void);
/* SIGUSR1's disposition from before install, and the flag cleared. */
void rcmsg_dump_signal_restore(void);
/* Whether a dump was asked for since the last call (clears the flag). */
bool rcmsg_dump_signal_take(void);

#endif
