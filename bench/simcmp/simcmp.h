/*
 * simcmp.h - what the sim-compare programs share: option parsing, the
 * result lines and the memory report.  Plain C and MPI only, so that every
 * program builds unchanged with lci-mpicc (LCI's MPI subset) and with
 * smpicc (SimGrid's SMPI); bench/sim-compare compiles them with both.
 *
 * Every program prints, from rank 0, lines "NAME VALUE" that the script
 * reads:
 *   messages N     point-to-point messages and broadcast deliveries the
 *                  program exchanged (barriers not counted);
 *   sim_s S        simulated (MPI_Wtime) seconds of the timed part;
 * and program-specific results.  At the end every rank prints one line
 *   mem PID HWM_KB PSS_KB
 * for its own process (VmHWM from /proc/self/status, Pss from
 * /proc/self/smaps_rollup), read while every rank is still alive; rank 0
 * adds the same line for its parent process (the launcher).  Ranks that
 * share a process print the same PID, so the script counts each process
 * once whether the simulator runs a process per node or one for all.
 *
 * The simulators' own time, real seconds of the machine, is
 * simcmp_real_s(): both run one rank at a time, so a rank's real time
 * between two points is what the whole simulation took meanwhile.
 */
#ifndef SIMCMP_H
#define SIMCMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

/* "4096", "4K", "4k", "1M": bytes.  Returns -1 if S is not a size. */
static long simcmp_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0) {
        return -1;
    }
    if (*end == 'K' || *end == 'k') {
        v *= 1024;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        v *= 1024 * 1024;
        end++;
    }
    return *end == '\0' ? v : -1;
}

/* The value of option NAME at argv[*i] ("--iters 100"), parsed as a size;
 * 0 if argv[*i] is not NAME.  A missing or bad value stops the program. */
static int simcmp_opt(int argc, char **argv, int *i, const char *name,
                      long *value)
{
    if (strcmp(argv[*i], name) != 0) {
        return 0;
    }
    long v = *i + 1 < argc ? simcmp_size(argv[*i + 1]) : -1;
    if (v < 0) {
        fprintf(stderr, "%s needs a number (like 100, 4K or 1M)\n", name);
        exit(2);
    }
    *value = v;
    (*i)++;
    return 1;
}

static void simcmp_usage(int rank, const char *arg, const char *usage)
{
    if (rank == 0) {
        fprintf(stderr, "unknown argument '%s'; expected %s\n", arg, usage);
    }
    exit(2);
}

/* Real seconds on a monotonic clock, not simulated ones: by system call,
 * since smpicc's headers turn clock_gettime into SMPI's simulated clock. */
static double simcmp_real_s(void)
{
    struct timespec ts;
    if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) != 0) {
        return 0;
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first number on the line of FILE that starts with KEY, or -1. */
static long simcmp_proc_kb(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, n) == 0) {
            v = strtol(line + n, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* One "mem" line for the process whose /proc directory is DIR. */
static void simcmp_mem_line(const char *dir)
{
    char status[64], rollup[64];
    snprintf(status, sizeof status, "%s/status", dir);
    snprintf(rollup, sizeof rollup, "%s/smaps_rollup", dir);
    printf("mem %ld %ld %ld\n", simcmp_proc_kb(status, "Pid:"),
           simcmp_proc_kb(status, "VmHWM:"), simcmp_proc_kb(rollup, "Pss:"));
    fflush(stdout);
}

/* The memory report; call it before freeing the buffers and before
 * MPI_Finalize.  The barriers make every rank read while all are alive
 * (a proportional share depends on who else maps the page).  Process ids
 * come from /proc, not getpid(): SMPI's getpid() gives the rank's actor. */
static void simcmp_memory(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    simcmp_mem_line("/proc/self");
    if (rank == 0) {
        char dir[32];
        snprintf(dir, sizeof dir, "/proc/%ld",
                 simcmp_proc_kb("/proc/self/status", "PPid:"));
        simcmp_mem_line(dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif /* SIMCMP_H */
