/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threads and the progress thread (issue 41), one MPI program built twice: by rcmsg-mpicc
 * (bench/rcmsg_mt_bench_rcmpi) and by Open MPI's mpicc (bench/rcmsg_mt_bench_mpi), so that both
 * libraries run the same code. Two ranks.
 *
 *   mpirun -np 2 rcmsg_mt_bench_rcmpi rate [--threads T] [--size B] [--window W] [--iters N]
 *   mpirun -np 2 rcmsg_mt_bench_rcmpi idle [--seconds S] [--multiple]
 *
 * rate: T threads per rank (MPI_THREAD_MULTIPLE; T = 1 asks MPI_THREAD_SINGLE unless
 * --multiple), thread t on its own duplicate of the world: rank 0's thread streams windows of
 * W (64) nonblocking sends of B (8) bytes to rank 1's thread t, which answers each window with
 * 4 bytes (as rcmsg_bench rate). Prints "rate T B MSGS_PER_S": the messages of all threads
 * over the time from the first thread's start to the last one's end (rank 0). The last
 * window's payload is checked.
 * idle: after one round trip (connections up), the main thread computes for S (30) seconds
 * without an MPI call; every other thread's CPU time over that interval is read from
 * /proc/self/task/TID/schedstat (ns; stat's ticks if absent). Prints, per rank, "idle RANK
 * CPU_MS THREADS" and one "# thread TID NAME CPU_MS" line per thread.
 * Errors: a message and exit status 1 (2 for bad arguments).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MT_MAX_THREADS 64
#define MT_MAX_WINDOW  1024
#define MT_MAX_TASKS   256

typedef struct {
    int threads, window, iters, warmup, seconds, multiple;
    size_t size;
} mt_opts_t;

typedef struct {
    const mt_opts_t *o;
    MPI_Comm comm;
    int id, rank, failed;
    double t0, t1;
    pthread_barrier_t *start;
} mt_thread_t;

static void die(const char *what, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS) {
        snprintf(text, sizeof(text), "MPI error %d", err);
    }
    fprintf(stderr, "mt_bench: %s: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define MT_CHECK(call)                                                                             \
    do {                                                                                           \
        int err_ = (call);                                                                         \
        if (err_ != MPI_SUCCESS) {                                                                 \
            die(#call, err_);                                                                      \
        }                                                                                          \
    } while (0)

static int usage(void)
{
    fprintf(stderr, "usage: mt_bench rate [--threads T] [--size B] [--window W] [--iters N] "
                    "[--warmup N] [--multiple]\n"
                    "       mt_bench idle [--seconds S] [--multiple]\n");
    return 2;
}

static int parse_int(const char *name, const char *text, long lo, long hi, long *out)
{
    char *end;

    errno = 0;
    *out = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || *out < lo || *out > hi) {
        fprintf(stderr, "mt_bench: %s %s: not an integer in %ld..%ld\n", name, text, lo, hi);
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, mt_opts_t *o)
{
    static const struct {
        const char *name;
        long lo, hi;
    } spec[] = {{"--threads", 1, MT_MAX_THREADS}, {"--size", 1, 1 << 20},
                {"--window", 1, MT_MAX_WINDOW},   {"--iters", 1, 100000000},
                {"--warmup", 0, 100000000},       {"--seconds", 1, 3600}};
    long v[6] = {1, 8, 64, 2000, 200, 30};

    for (int i = 2; i < argc; i++) {
        int k = 0;

        if (strcmp(argv[i], "--multiple") == 0) {
            o->multiple = 1;
            continue;
        }
        while (k < 6 && strcmp(argv[i], spec[k].name) != 0) {
            k++;
        }
        if (k == 6 || i + 1 >= argc) {
            fprintf(stderr, "mt_bench: %s: unknown option or missing value\n", argv[i]);
            return -1;
        }
        if (parse_int(spec[k].name, argv[++i], spec[k].lo, spec[k].hi, &v[k]) != 0) {
            return -1;
        }
    }
    o->threads = (int)v[0];
    o->size = (size_t)v[1];
    o->window = (int)v[2];
    o->iters = (int)v[3];
    o->warmup = (int)v[4];
    o->seconds = (int)v[5];
    o->multiple = o->multiple || o->threads > 1;
    return 0;
}

static double now(void)
{
    return MPI_Wtime();
}

/* One window of thread x: rank 0 sends, rank 1 receives and acks. */
static void window_once(mt_thread_t *x, char *buf, MPI_Request *req, int ack)
{
    const mt_opts_t *o = x->o;
    int w = o->window, n = (int)o->size;

    for (int i = 0; i < w; i++) {
        if (x->rank == 0) {
            MT_CHECK(MPI_Isend(buf + (size_t)i * o->size, n, MPI_BYTE, 1, x->id, x->comm, &req[i]));
        } else {
            MT_CHECK(MPI_Irecv(buf + (size_t)i * o->size, n, MPI_BYTE, 0, x->id, x->comm, &req[i]));
        }
    }
    MT_CHECK(MPI_Waitall(w, req, MPI_STATUSES_IGNORE));
    if (x->rank == 0) {
        MT_CHECK(MPI_Recv(&ack, 1, MPI_INT, 1, x->id, x->comm, MPI_STATUS_IGNORE));
    } else {
        MT_CHECK(MPI_Send(&ack, 1, MPI_INT, 0, x->id, x->comm));
    }
}

static void *rate_thread(void *arg)
{
    mt_thread_t *x = arg;
    const mt_opts_t *o = x->o;
    size_t len = (size_t)o->window * o->size;
    char *buf = malloc(len);
    MPI_Request req[MT_MAX_WINDOW];
    unsigned char want = (unsigned char)(x->id * 31 + 7);

    if (buf == NULL) {
        fprintf(stderr, "mt_bench: out of memory\n");
        x->failed = 1;
        return NULL;
    }
    memset(buf, x->rank == 0 ? want : 0, len);
    for (int i = 0; i < o->warmup; i++) {
        window_once(x, buf, req, 0);
    }
    MT_CHECK(MPI_Barrier(x->comm));
    pthread_barrier_wait(x->start);
    if (x->rank == 1) {
        memset(buf, 0, len); /* poisoned: the last window must bring the payload */
    }
    x->t0 = now();
    for (int i = 0; i < o->iters; i++) {
        window_once(x, buf, req, i);
    }
    x->t1 = now();
    for (size_t i = 0; x->rank == 1 && i < len; i++) {
        if ((unsigned char)buf[i] != want) {
            fprintf(stderr, "mt_bench: thread %d: byte %zu is %d, not %d\n", x->id, i,
                    (unsigned char)buf[i], want);
            x->failed = 1;
            break;
        }
    }
    free(buf);
    return NULL;
}

static int run_rate(const mt_opts_t *o, int rank)
{
    mt_thread_t x[MT_MAX_THREADS];
    pthread_t tid[MT_MAX_THREADS];
    pthread_barrier_t start;
    double t0 = 1e300, t1 = 0;
    int failed = 0, any = 0;

    pthread_barrier_init(&start, NULL, (unsigned)o->threads);
    for (int t = 0; t < o->threads; t++) {
        x[t] = (mt_thread_t){.o = o, .id = t, .rank = rank, .start = &start};
        MT_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &x[t].comm));
    }
    for (int t = 0; t < o->threads; t++) {
        if (pthread_create(&tid[t], NULL, rate_thread, &x[t]) != 0) {
            fprintf(stderr, "mt_bench: cannot start thread %d\n", t);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (int t = 0; t < o->threads; t++) {
        pthread_join(tid[t], NULL);
        t0 = x[t].t0 < t0 ? x[t].t0 : t0;
        t1 = x[t].t1 > t1 ? x[t].t1 : t1;
        failed |= x[t].failed;
        MT_CHECK(MPI_Comm_free(&x[t].comm));
    }
    pthread_barrier_destroy(&start);
    MT_CHECK(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (rank == 0 && !any) {
        printf("rate %d %zu %.0f\n", o->threads, o->size,
               (double)o->threads * o->iters * o->window / (t1 - t0));
    }
    return any;
}

/* ns on the CPU of a task of this process: schedstat's first field, else stat's ticks. */
static double task_cpu_ns(const char *tid)
{
    char path[64], line[1024];
    unsigned long long ns, ut, st;
    FILE *f;
    char *p;

    snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", tid);
    if ((f = fopen(path, "r")) != NULL) {
        int ok = fscanf(f, "%llu", &ns) == 1;
        fclose(f);
        if (ok) {
            return (double)ns;
        }
    }
    snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
    if ((f = fopen(path, "r")) == NULL || fgets(line, sizeof(line), f) == NULL) {
        if (f != NULL) {
            fclose(f);
        }
        return -1;
    }
    fclose(f);
    p = strrchr(line, ')'); /* fields 14 and 15: utime, stime */
    if (p == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) {
        return -1;
    }
    return (double)(ut + st) * 1e9 / (double)sysconf(_SC_CLK_TCK);
}

typedef struct {
    char tid[16], name[32];
    double ns;
} mt_task_t;

/* Every task but the calling (main) thread. */
static int tasks(mt_task_t *t, int max)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    char self[16], path[64];
    int n = 0;

    snprintf(self, sizeof(self), "%d", (int)gettid());
    while (d != NULL && (e = readdir(d)) != NULL && n < max) {
        FILE *f;

        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0) {
            continue;
        }
        snprintf(t[n].tid, sizeof(t[n].tid), "%.15s", e->d_name);
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", t[n].tid);
        t[n].name[0] = '\0';
        if ((f = fopen(path, "r")) != NULL) {
            if (fgets(t[n].name, sizeof(t[n].name), f) != NULL) {
                t[n].name[strcspn(t[n].name, "\n")] = '\0';
            }
            fclose(f);
        }
        t[n].ns = task_cpu_ns(t[n].tid);
        n++;
    }
    if (d != NULL) {
        closedir(d);
    }
    return n;
}

static int run_idle(const mt_opts_t *o, int rank)
{
    static mt_task_t before[MT_MAX_TASKS], after[MT_MAX_TASKS];
    int nb, na, ping = 0, counted = 0;
    double total = 0, end, x = 1.0;

    MT_CHECK(MPI_Sendrecv_replace(&ping, 1, MPI_INT, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    nb = tasks(before, MT_MAX_TASKS);
    end = now() + o->seconds;
    while (now() < end) { /* the application computes: no MPI call */
        for (int i = 0; i < 100000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    na = tasks(after, MT_MAX_TASKS);
    for (int i = 0; i < na; i++) {
        double was = 0;

        for (int j = 0; j < nb; j++) {
            if (strcmp(before[j].tid, after[i].tid) == 0) {
                was = before[j].ns;
            }
        }
        printf("# thread rank %d tid %s %s %.3f ms\n", rank, after[i].tid, after[i].name,
               (after[i].ns - was) / 1e6);
        total += (after[i].ns - was) / 1e6;
        counted++;
    }
    printf("idle %d %.3f %d%s\n", rank, total, counted, x < 0 ? " ?" : "");
    fflush(stdout);
    MT_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    return 0;
}

int main(int argc, char **argv)
{
    mt_opts_t o = {0};
    int provided, rank, size, rc;

    if (argc < 2 || (strcmp(argv[1], "rate") != 0 && strcmp(argv[1], "idle") != 0) ||
        parse(argc, argv, &o) != 0) {
        return usage();
    }
    MT_CHECK(MPI_Init_thread(&argc, &argv, o.multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                             &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || (o.multiple && provided < MPI_THREAD_MULTIPLE)) {
        if (rank == 0) {
            fprintf(stderr,
                    "mt_bench: needs 2 ranks (has %d) and, with threads, "
                    "MPI_THREAD_MULTIPLE (provided %d)\n",
                    size, provided);
        }
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;

        MPI_Get_library_version(lib, &len);
        printf("# %s; %s, %d thread(s), level %s\n", strtok(lib, "\n"), argv[1], o.threads,
               o.multiple ? "MULTIPLE" : "SINGLE");
    }
    rc = strcmp(argv[1], "rate") == 0 ? run_rate(&o, rank) : run_idle(&o, rank);
    MPI_Finalize();
    return rc;
}
