/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error classes, codes and strings, and the error handlers of communicators. Every MPI call
 * that fails goes through mpi_err(): the message names the call and the problem ("MPI_Send:
 * rank 7 out of range (communicator of 4)"); the communicator's handler then decides.
 * MPI_ERRORS_ARE_FATAL (the default) prints the message and aborts the job with status 1
 * (rcmsg_abort: the launcher ends every rank). MPI_ERRORS_RETURN returns the code to the
 * caller.
 */
#include "mpi/mpi_objects.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Codes: cls + MPI_ERR_STATUS_STRIDE * (1 - s) for a failed rcmsg status s (0 for none) +
 * MPI_ERR_NOTE_STRIDE * n, n > 0 naming the specific message of an error raised (or noted) by
 * the library ("MPI_Send: negative count -1"), as MPICH's codes do: MPI_Error_string gives it,
 * MPI_Error_class the class. The last MPI_ERR_NOTES messages are kept; an older code's string
 * is its class's (and status's) text. A note number is never given twice (a code the program
 * kept would name another error's message): after MPI_ERR_NOTE_MAX notes (the largest n whose
 * codes fit an int), errors are no longer noted and their string is their class's text.
 */
#define MPI_ERR_STATUS_STRIDE 256
#define MPI_ERR_STATUS_SLOTS  32
#define MPI_ERR_NOTE_STRIDE   (MPI_ERR_STATUS_STRIDE * MPI_ERR_STATUS_SLOTS)
#define MPI_ERR_NOTE_MAX      ((INT_MAX - (MPI_ERR_NOTE_STRIDE - 1)) / MPI_ERR_NOTE_STRIDE)
#define MPI_ERR_NOTES         64

#define MPI_ERR_CLASS_LIST(X)                                                                      \
    X(MPI_SUCCESS, "no error")                                                                     \
    X(MPI_ERR_BUFFER, "invalid buffer pointer")                                                    \
    X(MPI_ERR_COUNT, "invalid count argument")                                                     \
    X(MPI_ERR_TYPE, "invalid datatype")                                                            \
    X(MPI_ERR_TAG, "invalid tag")                                                                  \
    X(MPI_ERR_COMM, "invalid communicator")                                                        \
    X(MPI_ERR_RANK, "invalid rank")                                                                \
    X(MPI_ERR_ROOT, "invalid root")                                                                \
    X(MPI_ERR_GROUP, "invalid group")                                                              \
    X(MPI_ERR_OP, "invalid operation")                                                             \
    X(MPI_ERR_TOPOLOGY, "invalid topology")                                                        \
    X(MPI_ERR_DIMS, "invalid dimension argument")                                                  \
    X(MPI_ERR_ARG, "invalid argument")                                                             \
    X(MPI_ERR_UNKNOWN, "unknown error")                                                            \
    X(MPI_ERR_TRUNCATE, "message truncated")                                                       \
    X(MPI_ERR_OTHER, "other error")                                                                \
    X(MPI_ERR_INTERN, "internal error")                                                            \
    X(MPI_ERR_IN_STATUS, "error code in status")                                                   \
    X(MPI_ERR_PENDING, "pending request")                                                          \
    X(MPI_ERR_REQUEST, "invalid request")                                                          \
    X(MPI_ERR_KEYVAL, "invalid keyval")                                                            \
    X(MPI_ERR_NO_MEM, "out of memory")                                                             \
    X(MPI_ERR_UNSUPPORTED_OPERATION, "operation not supported")                                    \
    X(MPI_ERR_PROC_ABORTED, "a peer process is lost")                                              \
    X(MPI_ERR_INFO_KEY, "invalid info key")                                                        \
    X(MPI_ERR_INFO_VALUE, "invalid info value")                                                    \
    X(MPI_ERR_INFO_NOKEY, "no such info key")                                                      \
    X(MPI_ERR_INFO, "invalid info object")                                                         \
    MPI_ERR_CLASS_LIST_WIN(X)

/* the classes of windows (mpi.h's one-sided block) */
#define MPI_ERR_CLASS_LIST_WIN(X)                                                                  \
    X(MPI_ERR_WIN, "invalid window")                                                               \
    X(MPI_ERR_BASE, "invalid base")                                                                \
    X(MPI_ERR_SIZE, "invalid size")                                                                \
    X(MPI_ERR_DISP, "invalid displacement")                                                        \
    X(MPI_ERR_LOCKTYPE, "invalid lock type")                                                       \
    X(MPI_ERR_ASSERT, "invalid assertion")                                                         \
    X(MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window")                                    \
    X(MPI_ERR_RMA_SYNC, "wrong synchronization of one-sided calls")                                \
    X(MPI_ERR_RMA_RANGE, "target memory is outside the window")                                    \
    X(MPI_ERR_RMA_ATTACH, "memory cannot be attached")                                             \
    X(MPI_ERR_RMA_SHARED, "memory cannot be shared")                                               \
    X(MPI_ERR_RMA_FLAVOR, "wrong window flavor")                                                   \
    MPI_ERR_CLASS_LIST_IO(X)

/* the classes of I/O, data conversion and dynamic processes (mpi.h: no call of the subset
 * raises them but MPI_ERR_CONVERSION) */
#define MPI_ERR_CLASS_LIST_IO(X)                                                                   \
    X(MPI_ERR_FILE, "invalid file handle")                                                         \
    X(MPI_ERR_NOT_SAME, "arguments not the same on every process")                                 \
    X(MPI_ERR_AMODE, "invalid access mode")                                                        \
    X(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation")                              \
    X(MPI_ERR_NO_SUCH_FILE, "no such file")                                                        \
    X(MPI_ERR_FILE_EXISTS, "file exists")                                                          \
    X(MPI_ERR_BAD_FILE, "invalid file name")                                                       \
    X(MPI_ERR_ACCESS, "permission denied")                                                         \
    X(MPI_ERR_NO_SPACE, "no space left")                                                           \
    X(MPI_ERR_QUOTA, "quota exceeded")                                                             \
    X(MPI_ERR_READ_ONLY, "read-only file or file system")                                          \
    X(MPI_ERR_FILE_IN_USE, "file in use")                                                          \
    X(MPI_ERR_DUP_DATAREP, "data representation already registered")                               \
    X(MPI_ERR_CONVERSION, "a value cannot be converted to or from the data representation")        \
    X(MPI_ERR_IO, "I/O error")                                                                     \
    X(MPI_ERR_SPAWN, "processes cannot be spawned")                                                \
    X(MPI_ERR_PORT, "invalid port name")                                                           \
    X(MPI_ERR_SERVICE, "invalid service name")                                                     \
    X(MPI_ERR_NAME, "service name not published")

static const char *const class_text[] = {
#define MPI_ERR_CLASS_TEXT(cls, text) [cls] = text,
    MPI_ERR_CLASS_LIST(MPI_ERR_CLASS_TEXT)
#undef MPI_ERR_CLASS_TEXT
};
#define MPI_ERR_CLASS_COUNT ((int)(sizeof(class_text) / sizeof(class_text[0])))

/* user error handlers (MPI_Comm_create_errhandler); 0 and 1 are the predefined ones */
typedef struct {
    MPI_Comm_errhandler_function *fn;
    int refs;
} errhandler_t;

static errhandler_t predefined_eh[2] = {{NULL, 1}, {NULL, 1}};

int mpi_err_init(void)
{
    /* the predefined handlers' slots, so that no user handler gets their values */
    if (mpi_handle_set(MPI_KIND_ERRHANDLER_, MPI_ERRORS_ARE_FATAL & MPI_HANDLE_INDEX_MASK,
                       &predefined_eh[0]) != MPI_SUCCESS ||
        mpi_handle_set(MPI_KIND_ERRHANDLER_, MPI_ERRORS_RETURN & MPI_HANDLE_INDEX_MASK,
                       &predefined_eh[1]) != MPI_SUCCESS) {
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

int mpi_err_code(int cls, rcmsg_status_t s)
{
    return s < 0 ? cls + MPI_ERR_STATUS_STRIDE * (1 - (int)s) : cls;
}

int mpi_err_class_of(rcmsg_status_t s)
{
    switch (s) {
    case RCMSG_OK:
        return MPI_SUCCESS;
    case RCMSG_ERR_TRUNCATED:
        return MPI_ERR_TRUNCATE;
    case RCMSG_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    case RCMSG_ERR_INVALID_PARAM:
        return MPI_ERR_ARG;
    case RCMSG_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case RCMSG_ERR_CONNECTION:
    case RCMSG_ERR_PEER_DATA:
    case RCMSG_ERR_LAUNCHER:
        return MPI_ERR_PROC_ABORTED;
    case RCMSG_ERR_PENDING:
        return MPI_ERR_PENDING;
    default:
        return MPI_ERR_OTHER;
    }
}

/* ---- the program's error classes and codes (MPI_Add_error_class / _code / _string) --------
 * A class is MPI_ERR_USER_BASE + MPI_ERR_USER_FIRST + i (i < 192): above MPI_ERR_LASTCODE, as
 * MPICH's and Open MPI's are (MPI_LASTUSEDCODE, the largest class, then is the last one added),
 * and its low byte, the class part of a code, is MPI_ERR_USER_FIRST + i (the class index); a
 * code of class index ci is ci + MPI_ERR_STATUS_STRIDE * MPI_ERR_USER_SLOT (a status slot no
 * rcmsg status uses) + MPI_ERR_NOTE_STRIDE * k, k > 0 its number. A code may be added to a
 * predefined class too (MPI-4.0 9.5 allows any class; MPICH's errhan tests do it): ci is then
 * the class itself (below MPI_ERR_USER_FIRST). Their strings are kept until Finalize. */
#define MPI_ERR_USER_BASE  (MPI_ERR_LASTCODE + 1) /* a multiple of MPI_ERR_NOTE_STRIDE */
#define MPI_ERR_USER_FIRST 64
#define MPI_ERR_USER_MAX   (MPI_ERR_STATUS_STRIDE - MPI_ERR_USER_FIRST)
#define MPI_ERR_USER_SLOT  (MPI_ERR_STATUS_SLOTS - 1)
static char *user_class_text[MPI_ERR_USER_MAX];
static int user_classes;
static struct {
    int cls;
    char *text;
} * user_codes; /* user_codes[k - 1] */
static int user_ncodes;
static int user_lastused = MPI_ERR_LASTCODE;

/* cls is a class the program added (its value, not its index) */
static bool user_class(int cls)
{
    return cls >= MPI_ERR_USER_BASE + MPI_ERR_USER_FIRST &&
           cls < MPI_ERR_USER_BASE + MPI_ERR_USER_FIRST + user_classes;
}

/* k > 0 when code is a code the program added, else 0 */
static int user_code(int code)
{
    int k = code / MPI_ERR_NOTE_STRIDE;

    if (code < 0 || code % MPI_ERR_NOTE_STRIDE / MPI_ERR_STATUS_STRIDE != MPI_ERR_USER_SLOT ||
        k < 1 || k > user_ncodes || user_codes[k - 1].cls != mpi_err_class(code)) {
        return 0;
    }
    return k;
}

bool mpi_err_is_class(int cls)
{
    return (cls > MPI_SUCCESS && cls < MPI_ERR_CLASS_COUNT) || user_class(cls);
}

int mpi_err_add_class(int *cls_p)
{
    if (user_classes == MPI_ERR_USER_MAX) {
        return MPI_ERR_OTHER;
    }
    *cls_p = MPI_ERR_USER_BASE + MPI_ERR_USER_FIRST + user_classes++;
    user_lastused = *cls_p > user_lastused ? *cls_p : user_lastused;
    return MPI_SUCCESS;
}

int mpi_err_add_code(int cls, int *code_p)
{
    void *p;

    if (user_ncodes == MPI_ERR_NOTE_MAX) {
        return MPI_ERR_OTHER;
    }
    p = realloc(user_codes, sizeof(*user_codes) * (size_t)(user_ncodes + 1));
    if (p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    user_codes = p;
    user_codes[user_ncodes].cls = cls;
    user_codes[user_ncodes].text = NULL;
    user_ncodes++;
    *code_p = (user_class(cls) ? cls - MPI_ERR_USER_BASE : cls) +
              MPI_ERR_STATUS_STRIDE * MPI_ERR_USER_SLOT + MPI_ERR_NOTE_STRIDE * user_ncodes;
    user_lastused = *code_p > user_lastused ? *code_p : user_lastused;
    return MPI_SUCCESS;
}

bool mpi_err_user(int code)
{
    return user_code(code) > 0 || user_class(code);
}

int mpi_err_add_string(int code, const char *text)
{
    int k = user_code(code);
    char **slot = k > 0 ? &user_codes[k - 1].text
                        : &user_class_text[code - MPI_ERR_USER_BASE - MPI_ERR_USER_FIRST];
    char *copy = strdup(text);

    if (copy == NULL) {
        return MPI_ERR_NO_MEM;
    }
    free(*slot);
    *slot = copy;
    return MPI_SUCCESS;
}

int *mpi_err_lastused(void)
{
    return &user_lastused;
}

void mpi_err_fini(void)
{
    for (int i = 0; i < user_classes; i++) {
        free(user_class_text[i]);
        user_class_text[i] = NULL;
    }
    for (int k = 0; k < user_ncodes; k++) {
        free(user_codes[k].text);
    }
    free(user_codes);
    user_codes = NULL;
    user_classes = user_ncodes = 0;
    user_lastused = MPI_ERR_LASTCODE;
}

/* the text of class cls, a value or the class part of a code (a user class's string, ""
 * when it has none) */
static const char *class_str(int cls)
{
    if (cls >= 0 && cls < MPI_ERR_CLASS_COUNT) {
        return class_text[cls];
    }
    if (cls >= MPI_ERR_USER_FIRST && cls < MPI_ERR_STATUS_STRIDE) {
        cls += MPI_ERR_USER_BASE;
    }
    if (user_class(cls) && user_class_text[cls - MPI_ERR_USER_BASE - MPI_ERR_USER_FIRST] != NULL) {
        return user_class_text[cls - MPI_ERR_USER_BASE - MPI_ERR_USER_FIRST];
    }
    return "";
}

static bool code_valid(int code)
{
    int cls = code % MPI_ERR_STATUS_STRIDE;
    int status = code % MPI_ERR_NOTE_STRIDE / MPI_ERR_STATUS_STRIDE;

    if (user_code(code) > 0 || user_class(code)) {
        return true;
    }
    return code >= 0 && cls < MPI_ERR_CLASS_COUNT && status <= 1 - (int)RCMSG_ERR_PENDING &&
           code / MPI_ERR_NOTE_STRIDE <= MPI_ERR_NOTE_MAX;
}

/* ---- specific messages ------------------------------------------------------------------ */
static struct {
    int n; /* the code's note number, 0: none */
    char text[MPI_MAX_ERROR_STRING];
} notes[MPI_ERR_NOTES];
static int note_last; /* the last note number given */

static const char *class_name(int code);

/* code (its class and status kept) with text as its specific message; without one when
 * every note number was given (a number given twice would name another error's message) */
static int note_add(int code, const char *text)
{
    int n = note_last + 1;

    if (note_last == MPI_ERR_NOTE_MAX) {
        return code % MPI_ERR_NOTE_STRIDE;
    }
    note_last = n;
    notes[n % MPI_ERR_NOTES].n = n;
    snprintf(notes[n % MPI_ERR_NOTES].text, sizeof(notes[0].text), "%s", text);
    return code % MPI_ERR_NOTE_STRIDE + MPI_ERR_NOTE_STRIDE * n;
}

const char *mpi_err_reason(int code)
{
    int n = code >= 0 ? code / MPI_ERR_NOTE_STRIDE : 0;
    int k = user_code(code);

    if (k > 0) {
        return user_codes[k - 1].text != NULL ? user_codes[k - 1].text : "";
    }
    if (n == 0 || notes[n % MPI_ERR_NOTES].n != n) {
        return NULL;
    }
    return notes[n % MPI_ERR_NOTES].text;
}

int mpi_err_note(int code, const char *fmt, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return note_add(code, text);
}

int mpi_err_recv(rcmsg_status_t s, bool trunc, int source, int tag, size_t cap)
{
    char from[64] = "";
    int code;

    trunc = trunc || s == RCMSG_ERR_TRUNCATED;
    if (!trunc && s == RCMSG_OK) {
        return MPI_SUCCESS;
    }
    if (source >= 0) {
        snprintf(from, sizeof(from), " from rank %d (tag %d)", source, tag);
    }
    if (trunc) {
        code = mpi_err_code(MPI_ERR_TRUNCATE, s);
        return mpi_err_note(code,
                            "message truncated: the message%s is longer than the receive "
                            "buffer of %zu byte(s)",
                            from, cap);
    }
    code = mpi_err_code(mpi_err_class_of(s), s);
    return mpi_err_note(code, "the receive%s failed: %s (%s)", from, rcmsg_strerror(s),
                        rcmsg_status_name(s));
}

bool mpi_err_code_valid(int code)
{
    return code_valid(code);
}

int mpi_err_class(int code)
{
    int cls = code % MPI_ERR_STATUS_STRIDE;

    return cls < MPI_ERR_USER_FIRST ? cls : MPI_ERR_USER_BASE + cls;
}

int mpi_err_string(int errorcode, char *string)
{
    int n, status;
    const char *reason = mpi_err_reason(errorcode);

    status = errorcode % MPI_ERR_NOTE_STRIDE / MPI_ERR_STATUS_STRIDE;
    if (mpi_err_user(errorcode)) { /* the program's string, "" when it set none */
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s",
                     reason != NULL ? reason : class_str(errorcode));
    } else if (reason != NULL) { /* as MPI_ERRORS_ARE_FATAL prints it */
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (%s)", reason, class_name(errorcode));
    } else if (status == 0) {
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s",
                     class_str(errorcode % MPI_ERR_STATUS_STRIDE));
    } else {
        rcmsg_status_t s = (rcmsg_status_t)(1 - status);
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s (%s: %s)",
                     class_text[errorcode % MPI_ERR_STATUS_STRIDE], rcmsg_status_name(s),
                     rcmsg_strerror(s));
    }
    return n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
}

static errhandler_t *errhandler_get(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_ARE_FATAL) {
        return &predefined_eh[0];
    }
    if (eh == MPI_ERRORS_RETURN) {
        return &predefined_eh[1];
    }
    return mpi_handle_get(MPI_KIND_ERRHANDLER_, eh);
}

static const char *class_name(int code)
{
    static const char *const names[] = {
#define MPI_ERR_CLASS_NAME(cls, text) [cls] = #cls,
        MPI_ERR_CLASS_LIST(MPI_ERR_CLASS_NAME)
#undef MPI_ERR_CLASS_NAME
    };
    int cls = code % MPI_ERR_STATUS_STRIDE;

    return cls < MPI_ERR_CLASS_COUNT ? names[cls] : "a class the program added";
}

/* Calls the handler of comm (NULL: COMM_WORLD's) for code; msg: why. note: the code returned
 * (and given to a user handler) names msg (MPI_Error_string), unless it is the program's own
 * class or code (a callback's outcome: Comm_dup's copy callback, ...), returned as it is, as
 * in MPICH (errors/comm/userdup). */
static int err_raise(mpi_comm_t *comm, int code, const char *msg, bool note)
{
    MPI_Errhandler eh = comm != NULL ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
    MPI_Comm handle = comm == NULL             ? MPI_COMM_WORLD
                      : comm->errh_handle != 0 ? comm->errh_handle
                                               : comm->handle;
    errhandler_t *e;

    if (comm == NULL) {
        mpi_comm_t *w = mpi_comm_get(MPI_COMM_WORLD);
        eh = w != NULL ? w->errhandler : MPI_ERRORS_ARE_FATAL;
    }
    if (eh != MPI_ERRORS_ARE_FATAL && note && !mpi_err_user(code)) {
        code = note_add(code, msg);
    }
    if (eh == MPI_ERRORS_RETURN) {
        return code;
    }
    if (eh == MPI_ERRORS_ARE_FATAL) {
        fprintf(stderr, "rcmsg-mpi: rank %d: fatal error: %s (%s); aborting the job\n",
                rcmsg_rank(), msg, class_name(code));
        rcmsg_abort(1, msg); /* every rank of the job ends (PMIx_Abort), status 1 */
    }
    e = errhandler_get(eh);
    if (e != NULL && e->fn != NULL) {
        e->fn(&handle, &code, msg);
    }
    return code;
}

static __thread const char *err_as; /* (mpi_err_as) */

const char *mpi_err_as(const char *call)
{
    const char *prev = err_as;

    err_as = call;
    return prev;
}

int mpi_err(mpi_comm_t *comm, const char *call, int code, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    int n;
    va_list ap;

    n = err_as != NULL ? (int)strlen(call) : 0;
    if (n > 0 && strncmp(err_as, call, (size_t)n) == 0 && strcmp(err_as + n, "_c") == 0) {
        call = err_as; /* the int form of the _c call running */
    }
    n = snprintf(msg, sizeof(msg), "%s: ", call);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    return err_raise(comm, code, msg, true);
}

int mpi_err_again(mpi_comm_t *comm, const char *call, int code)
{
    const char *reason = mpi_err_reason(code);

    if (reason != NULL) {
        return mpi_err(comm, call, code, "%s", reason);
    }
    return mpi_err(comm, call, code, "the operation failed (%s)",
                   class_str(code % MPI_ERR_STATUS_STRIDE));
}

int mpi_err_rcmsg(mpi_comm_t *comm, const char *call, rcmsg_status_t s)
{
    return mpi_err(comm, call, mpi_err_code(mpi_err_class_of(s), s), "%s (%s)", rcmsg_strerror(s),
                   rcmsg_status_name(s));
}

/* ---- error handlers (the calls: mpi_err_api.c) ----------------------------------------------- */
int mpi_errh_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler)
{
    errhandler_t *e = malloc(sizeof(*e));
    int err;

    if (e == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *e = (errhandler_t){function, 1};
    err = mpi_handle_alloc(MPI_KIND_ERRHANDLER_, e, errhandler);
    if (err != MPI_SUCCESS) {
        free(e);
    }
    return err;
}

bool mpi_errh_valid(MPI_Errhandler eh)
{
    return errhandler_get(eh) != NULL;
}

static void errhandler_unref(MPI_Errhandler eh)
{
    errhandler_t *e = errhandler_get(eh);

    if (e != NULL && e->fn != NULL && --e->refs == 0) {
        mpi_handle_release(MPI_KIND_ERRHANDLER_, eh);
        free(e);
    }
}

/* A handler other than ERRORS_ARE_FATAL: the program reports c's errors itself, so the
 * runtime's lines for the ones only c's collectives find (mismatched counts, no context id
 * left) go to its debug log (MPICH and Open MPI print nothing under MPI_ERRORS_RETURN); under
 * ERRORS_ARE_FATAL they precede the fatal message. Per communicator, as the handler is. */
static void errh_log(mpi_comm_t *c)
{
    rcmsg_comm_t rcs[] = {c->rc, c->inter ? c->local_rc : NULL, c->inter ? c->coll_rc : NULL};

    for (size_t i = 0; i < sizeof(rcs) / sizeof(rcs[0]); i++) {
        if (rcs[i] != NULL) {
            (void)rcmsg_comm_log_errors(rcs[i], c->errhandler == MPI_ERRORS_ARE_FATAL);
        }
    }
}

void mpi_errh_set(mpi_comm_t *c, MPI_Errhandler eh)
{
    errhandler_get(eh)->refs++;
    errhandler_unref(c->errhandler);
    c->errhandler = eh;
    errh_log(c);
}

MPI_Errhandler mpi_errh_get(mpi_comm_t *c)
{
    errhandler_get(c->errhandler)->refs++;
    return c->errhandler;
}

void mpi_errh_free(MPI_Errhandler *eh)
{
    errhandler_unref(*eh);
    *eh = MPI_ERRHANDLER_NULL;
}

void mpi_errh_call(mpi_comm_t *c, int code)
{
    err_raise(c, code, "MPI_Comm_call_errhandler: raised by the program", false);
}

void mpi_err_inherit(mpi_comm_t *from, mpi_comm_t *to)
{
    to->errhandler = from->errhandler;
    errhandler_get(to->errhandler)->refs++;
    errh_log(to);
}

void mpi_err_comm_release(mpi_comm_t *c)
{
    errhandler_unref(c->errhandler);
}
