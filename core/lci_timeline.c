/*
 * lci_timeline.c - trace-event JSON writer (see lci_timeline.h).
 */
#include "lci_timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lci_timeline_on;
uint64_t lci_timeline_from, lci_timeline_until = UINT64_MAX;

static int timeline_fd = -1;
static char timeline_buf[1 << 16];
static size_t timeline_used;

/* One write() per flush: O_APPEND keeps each flush whole in the file. */
void lci_timeline_flush(void)
{
    size_t off = 0;
    while (timeline_fd >= 0 && off < timeline_used) {
        ssize_t n = write(timeline_fd, timeline_buf + off, timeline_used - off);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break; /* a full disk loses the rest of the timeline, not the run */
        }
        off += (size_t)n;
    }
    timeline_used = 0;
}

static void timeline_at_exit(void)
{
    lci_timeline_flush();
}

int lci_timeline_open(void)
{
    const char *path = getenv(LCI_TIMELINE_ENV);
    if (path == NULL || path[0] == '\0' || timeline_fd >= 0) {
        return 0;
    }
    const char *window = getenv(LCI_TIMELINE_WINDOW_ENV);
    if (window != NULL && window[0] != '\0' &&
        lci_timeline_window_parse(window, &lci_timeline_from,
                                  &lci_timeline_until) != 0) {
        errno = EINVAL;
        return -1;
    }
    timeline_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (timeline_fd < 0) {
        return -1;
    }
    lci_timeline_on = 1;
    atexit(timeline_at_exit);
    return 0;
}

void lci_timeline_record(uint32_t node, lci_track_t track, const char *what,
                         uint64_t start, uint64_t end)
{
    if (sizeof timeline_buf - timeline_used < 256) {
        lci_timeline_flush();
    }
    /* Trace-event times are microseconds; keep nanosecond precision. */
    int n = snprintf(timeline_buf + timeline_used,
                     sizeof timeline_buf - timeline_used,
                     "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%d,"
                     "\"ts\":%llu.%03llu,\"dur\":%llu.%03llu},\n",
                     what, node, (int)track,
                     (unsigned long long)(start / 1000),
                     (unsigned long long)(start % 1000),
                     (unsigned long long)((end - start) / 1000),
                     (unsigned long long)((end - start) % 1000));
    if (n > 0 && (size_t)n < sizeof timeline_buf - timeline_used) {
        timeline_used += (size_t)n;
    }
}

int lci_timeline_window_parse(const char *text, uint64_t *from_ns,
                              uint64_t *until_ns)
{
    char *end;
    errno = 0;
    double from = strtod(text, &end);
    if (end == text || *end != ':' || errno != 0) {
        return -1;
    }
    const char *rest = end + 1;
    double until = strtod(rest, &end);
    if (end == rest || *end != '\0' || errno != 0 || !(from >= 0) ||
        !(until > from) || until > 1e12) {
        return -1;
    }
    *from_ns = (uint64_t)(from * 1e6);
    *until_ns = (uint64_t)(until * 1e6);
    return 0;
}

int lci_timeline_create(const char *path, uint32_t nnodes)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -1;
    }
    /* The array format lets the closing bracket be left out, so nodes only
     * ever append. */
    int ok = fputs("[\n", f) >= 0;
    for (uint32_t k = 0; k < nnodes && ok; k++) {
        ok = fprintf(f,
                     "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                     "\"args\":{\"name\":\"node %u\"}},\n"
                     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                     "\"tid\":0,\"args\":{\"name\":\"host\"}},\n"
                     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,"
                     "\"tid\":1,\"args\":{\"name\":\"NI\"}},\n",
                     k, k, k, k) > 0;
    }
    return (fclose(f) == 0 && ok) ? 0 : -1;
}
