/*
 * lci_fibers_interpose.c - the C library functions whose meaning is per
 * process, taken over for the nodes that lci-fibers runs as fibers.
 *
 * lci-fibers exports these names, and the dynamic loader resolves every
 * later-loaded object's calls to the first definition in load order: the
 * executable's.  Called from a node, they act on that node alone; called
 * from anywhere else they pass on to the C library's own.
 *   exit          ends the node, not the process
 *   __cxa_atexit  (behind atexit) handlers of a node's program run when
 *                 that node ends
 *   pthread_create  a node is one fiber: a thread of its own would run
 *                 outside the simulation, so the run stops and says why
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "lci_fibers.h"
#include "lci_image.h"
#include "lci_sched.h"

void exit(int status)
{
    if (lci_fibers_running() >= 0) {
        lci_fibers_node_exit(status);
    }
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    if (real != NULL) {
        real(status);
    }
    _Exit(status);
}

int __cxa_atexit(void (*func)(void *), void *arg, void *dso_handle);
int __cxa_atexit(void (*func)(void *), void *arg, void *dso_handle)
{
    if (lci_fibers_running() >= 0 && lci_image_owns(dso_handle)) {
        return lci_fibers_node_atexit(func, arg);
    }
    int (*real)(void (*)(void *), void *, void *) =
        (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT,
                                                        "__cxa_atexit");
    return real != NULL ? real(func, arg, dso_handle) : -1;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg)
{
    int node = lci_fibers_running();
    if (node >= 0) {
        lci_sched_fail(node, LCI_ERR_PLATFORM,
                       "the program creates a thread, which the fiber engine "
                       "cannot run; run it with lci-run --engine processes");
    }
    int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                void *) =
        (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                 void *))dlsym(RTLD_NEXT, "pthread_create");
    return real != NULL ? real(thread, attr, start, arg) : -1;
}
