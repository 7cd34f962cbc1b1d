/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry: every transport of this build, one line each. A new transport adds its folder
 * (with its rcmsg_btl_component_t, see btl_component.h), its Makefile.include and one line
 * here; wireup, pml and progress take it from this table. The order is only that of the
 * info line "transports: ..."; priorities decide the rest.
 */
#include "config.h"

#include "btl_component.h"

#include "base/compiler.h"

#define RCMSG_BTL_COMPONENT_LIST(X)                                                                \
    X(self) /* btl_self: a rank's own messages */                                                  \
    X(sm)   /* btl_sm: shared memory on one node */                                                \
    X(rc)   /* btl_rc: RDMA reliable connections (rc_none.c without verbs) */

#define RCMSG_BTL_COMPONENT_DECL(name)                                                             \
    extern const rcmsg_btl_component_t rcmsg_btl_##name##_component;
RCMSG_BTL_COMPONENT_LIST(RCMSG_BTL_COMPONENT_DECL)
#undef RCMSG_BTL_COMPONENT_DECL

static const rcmsg_btl_component_t *const btl_components[] = {
#define RCMSG_BTL_COMPONENT_ENTRY(name) &rcmsg_btl_##name##_component,
    RCMSG_BTL_COMPONENT_LIST(RCMSG_BTL_COMPONENT_ENTRY)
#undef RCMSG_BTL_COMPONENT_ENTRY
};

/* the allowed mask of rcmsg_btl_allowed() has one bit per component */
RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(btl_components) <= RCMSG_BTL_MAX,
                    "more components than RCMSG_BTL_MAX");

const rcmsg_btl_table_t rcmsg_btl_table = {btl_components, (int)RCMSG_ARRAY_SIZE(btl_components)};
