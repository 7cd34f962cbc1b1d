/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration table: every RCMSG_* variable (see config_vars.h), parsed once by
 * rcmsg_config_load() from the environment. Defaults and user values go through the same
 * parser. This module is the only place that reads the environment.
 */
#ifndef RCMSG_BASE_CONFIG_TABLE_H
#define RCMSG_BASE_CONFIG_TABLE_H

#include "config_vars.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    RCMSG_CFG_TYPE_BOOL,
    RCMSG_CFG_TYPE_INT,
    RCMSG_CFG_TYPE_SIZE,
    RCMSG_CFG_TYPE_TIME,
    RCMSG_CFG_TYPE_ENUM,
    RCMSG_CFG_TYPE_LIST,
    RCMSG_CFG_TYPE_STRING, /* any text, kept as given (a path) */
    RCMSG_CFG_TYPE_COUNT   /* not a type: the number of them */
} rcmsg_config_type_t;

typedef enum {
#define RCMSG_CONFIG_ID(id, type, def, form, help) RCMSG_CFG_##id,
    RCMSG_CONFIG_VARS(RCMSG_CONFIG_ID)
#undef RCMSG_CONFIG_ID
        RCMSG_CFG_COUNT
} rcmsg_config_id_t;

/* A variable's declaration: static, valid for the life of the program. */
typedef struct {
    const char *name; /* full name, e.g. "RCMSG_LOG_LEVEL" */
    rcmsg_config_type_t type;
    const char *def;
    const char *form;
    const char *help;
    const char *const *choices; /* ENUM: the names, indexed by the variable's C enum */
    unsigned nchoices;          /* ENUM: the number of choices; 0 for other types */
} rcmsg_config_desc_t;

/* A parsed value. For LIST, items[] and the strings belong to the value (see _value_free). */
typedef struct {
    union {
        bool b;
        long long i;      /* INT */
        uint64_t size;    /* SIZE, in bytes */
        uint64_t time_us; /* TIME, in microseconds */
        int choice;       /* ENUM: the enumerator of the name (index into "a|b|c") */
    };
    char **items; /* LIST: NULL-terminated */
    size_t count; /* LIST: number of items */
} rcmsg_config_value_t;

const rcmsg_config_desc_t *rcmsg_config_desc(rcmsg_config_id_t id);
/* The id of the variable named [name, name + len) (e.g. "RCMSG_LOG_LEVEL"), or -1. */
int rcmsg_config_lookup(const char *name, size_t len);
const char *rcmsg_config_type_name(rcmsg_config_type_t type);

/*
 * Parse TEXT as a value of the variable DESC. On error, writes a message naming the
 * variable, the value and the accepted form or range (the form's, closed by the limits of the
 * C type the value is kept in: see the getters) into err (if not NULL) and returns
 * RCMSG_ERR_CONFIG; value_p is set only on success.
 */
rcmsg_status_t rcmsg_config_parse(const rcmsg_config_desc_t *desc, const char *text, char *err,
                                  size_t errlen, rcmsg_config_value_t *value_p);
void rcmsg_config_value_free(rcmsg_config_value_t *value);

/*
 * Load every variable: defaults, then the RCMSG_* entries of envp (the process environment
 * when NULL). Each bad value is logged as an error and makes the call fail with
 * RCMSG_ERR_CONFIG; each unknown RCMSG_* name or near miss of one is logged as a warning
 * (see rcmsg_config_name_warning). Sets the log level. May be called again (values are reloaded).
 */
rcmsg_status_t rcmsg_config_load(char *const *envp);
void rcmsg_config_unload(void);

/* Typed getters; the variable must be of that type (checked by assert). An INT is a C int: the
 * parser refuses a value outside the variable's range or INT_MIN..INT_MAX (an open end of the
 * range stops there), SIZE and TIME values beyond LLONG_MAX bytes or microseconds; a module
 * that keeps a value in a narrower field declares a range that fits it. */
bool rcmsg_config_bool(rcmsg_config_id_t id);
int rcmsg_config_int(rcmsg_config_id_t id);
uint64_t rcmsg_config_size(rcmsg_config_id_t id);
uint64_t rcmsg_config_time_us(rcmsg_config_id_t id);
/* ENUM: the C enum value of RCMSG_CFG_<ID>_CHOICES (config_vars.h); cast it to its enum type. */
int rcmsg_config_enum(rcmsg_config_id_t id);
/* ENUM: the name of the current value; of any VALUE of the variable's enum (NULL if none). */
const char *rcmsg_config_enum_text(rcmsg_config_id_t id);
const char *rcmsg_config_enum_name(rcmsg_config_id_t id, int value);
char *const *rcmsg_config_list(rcmsg_config_id_t id, size_t *count_p);
/* STRING: the text as given ("" when unset and the default is empty). */
const char *rcmsg_config_string(rcmsg_config_id_t id);

/* The text the current value came from, and whether the user set it. */
const char *rcmsg_config_text(rcmsg_config_id_t id);
bool rcmsg_config_is_set(rcmsg_config_id_t id);

/*
 * The known variables a misspelt NAME (RCMSG_ and the rest) most likely means, best first, in
 * names[] (up to RCMSG_CONFIG_SUGGEST_MAX); returns how many are equally likely (it may exceed
 * the array), 0 when none is near. First a known name whose words NAME's words abbreviate in
 * order (RCMSG_COLL_ALLREDUCE_ALGO: RCMSG_COLL_ALLREDUCE_ALGORITHM; RCMSG_IB_RETRY:
 * RCMSG_IB_RETRY_COUNT), then the smallest edit distance (RCMSG_LOG_LEVL: RCMSG_LOG_LEVEL),
 * up to a third of the name.
 */
#define RCMSG_CONFIG_SUGGEST_MAX 3
size_t rcmsg_config_suggest(const char *name, const char *names[RCMSG_CONFIG_SUGGEST_MAX]);

/* The first of rcmsg_config_suggest(), or NULL if none is near. */
const char *rcmsg_config_closest(const char *name);

/*
 * The warning an environment variable NAME (LEN bytes, the text before '=') deserves, written
 * into msg: an unknown RCMSG_* name, with the variables it likely means or a pointer to
 * rcmsg_info when none is near; or a near miss of the prefix (RCMSQ_, RCMGS_, RCSMG_, RCMSGX_,
 * lower or mixed case) followed by a known name, naming the variable meant. False (msg
 * untouched) for a known variable and for names that are not ours: PATH, OMPI_*, PMIX_*,
 * SLURM_*, RCMSGX_FOO. rcmsg_config_load() logs these warnings; the check is cheap for names
 * whose first word is not near RCMSG.
 */
bool rcmsg_config_name_warning(const char *name, size_t len, char *msg, size_t msglen);

/* A variable that is not ours (launcher variables such as SLURM_STEP_NUM_TASKS), or NULL. */
const char *rcmsg_config_foreign(const char *name);

#endif /* RCMSG_BASE_CONFIG_TABLE_H */
