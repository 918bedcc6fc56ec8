/*
 * lci_live_netns.c - where lci-run places a live node on one machine: in a
 * network namespace of its own and with its own UDP address, so that a
 * lossy network between namespaces can be tested without a cluster.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lci_live.h"

/* Item k of a comma-separated list, into buf; 0 if there is none. */
static int list_item(const char *list, uint32_t k, char *buf, size_t len)
{
    const char *p = list;
    for (uint32_t i = 0; i < k; i++) {
        p = strchr(p, ',');
        if (p == NULL) {
            return 0;
        }
        p++;
    }
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= len) {
        return 0;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    return 1;
}

lci_status_t lci_live_place_check(const char *list, uint32_t nnodes,
                                  const char *what, char *err, size_t errlen)
{
    char item[256];
    if (list == NULL) {
        return LCI_OK;
    }
    if (!list_item(list, nnodes - 1, item, sizeof item) ||
        list_item(list, nnodes, item, sizeof item)) {
        snprintf(err, errlen,
                 "--%s: expected %u comma-separated items, one per node, "
                 "got '%s'",
                 what, nnodes, list);
        return LCI_ERR_CONFIG;
    }
    return LCI_OK;
}

lci_status_t lci_live_place_node(uint32_t k, const char *netns,
                                 const char *addrs, char *err, size_t errlen)
{
    char item[256], path[300];
    if (netns != NULL && list_item(netns, k, item, sizeof item)) {
        snprintf(path, sizeof path, "/var/run/netns/%s", item);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
            snprintf(err, errlen, "cannot enter network namespace %s: %s",
                     item, strerror(errno));
            return LCI_ERR_PLATFORM;
        }
        close(fd);
    }
    if (addrs != NULL && list_item(addrs, k, item, sizeof item)) {
        setenv("LCI_UDP_ADDR", item, 1);
    }
    return LCI_OK;
}
