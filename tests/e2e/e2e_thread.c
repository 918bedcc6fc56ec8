/*
 * e2e_thread.c - a node program that makes a POSIX thread of its own (a
 * helper that sums an array), so lci-run must run it a process per node:
 * the simulator's fiber engine runs a node as one fiber.
 */
#include <pthread.h>

#include "e2e_common.h"

static long numbers[1000];
static long sum;

static void *sum_numbers(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        sum += numbers[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    e2e_init(&argc, &argv, "e2e_thread");
    for (int i = 0; i < 1000; i++) {
        numbers[i] = i + lci_rank();
    }
    pthread_t helper;
    if (pthread_create(&helper, NULL, sum_numbers, NULL) != 0 ||
        pthread_join(helper, NULL) != 0) {
        e2e_fail("cannot run a helper thread");
    }
    if (sum != 499500 + 1000L * lci_rank()) {
        e2e_fail("the helper thread summed %ld", sum);
    }
    e2e_check(lci_barrier(), "lci_barrier");
    e2e_check(lci_finalize(), "lci_finalize");
    return 0;
}
