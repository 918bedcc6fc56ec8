/*
 * lci_engine_threads.c - the threads of a node process (lci_thread_* in
 * lci.h, processes engine): POSIX threads of which exactly one runs, the
 * one holding the process's lock; a switch names the next and waits on the
 * caller's own condition until it is named again.  The order is the
 * program's, never the operating system's, so runs stay deterministic.
 */
#include <pthread.h>
#include <stdlib.h>

#include "lci_engine.h"

struct lci_thread {
    pthread_cond_t go; /* signalled when this thread is named */
    pthread_t tid;
    void (*func)(void *);
    void *arg;
};

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static lci_thread_t main_thread = {.go = PTHREAD_COND_INITIALIZER};
static lci_thread_t *current; /* the thread holding running_lock */

/* The first use makes the calling thread the node's main thread. */
static lci_thread_t *self(void)
{
    if (current == NULL) {
        pthread_mutex_lock(&running_lock);
        current = &main_thread;
    }
    return current;
}

/* Waits, holding the lock, until me is named. */
static void wait_turn(lci_thread_t *me)
{
    while (current != me) {
        pthread_cond_wait(&me->go, &running_lock);
    }
}

static void *trampoline(void *arg)
{
    lci_thread_t *t = arg;
    pthread_mutex_lock(&running_lock);
    wait_turn(t);
    t->func(t->arg);
    abort(); /* func ends with lci_thread_exit_to */
}

lci_status_t lci_engine_pthread_create(lci_thread_t **thread_p,
                                       void (*func)(void *), void *arg)
{
    self();
    lci_thread_t *t = calloc(1, sizeof *t);
    if (t == NULL || pthread_cond_init(&t->go, NULL) != 0) {
        free(t);
        return LCI_ERR_NOMEM;
    }
    t->func = func;
    t->arg = arg;
    if (pthread_create(&t->tid, NULL, trampoline, t) != 0) {
        pthread_cond_destroy(&t->go);
        free(t);
        return LCI_ERR_NOMEM;
    }
    *thread_p = t;
    return LCI_OK;
}

lci_thread_t *lci_engine_pthread_self(void)
{
    return self();
}

void lci_engine_pthread_switch(lci_thread_t *to)
{
    lci_thread_t *me = self();
    current = to;
    pthread_cond_signal(&to->go);
    wait_turn(me);
}

void lci_engine_pthread_exit_to(lci_thread_t *to)
{
    self();
    current = to;
    pthread_cond_signal(&to->go);
    pthread_mutex_unlock(&running_lock);
    pthread_exit(NULL);
}

void lci_engine_pthread_free(lci_thread_t *thread)
{
    pthread_join(thread->tid, NULL);
    pthread_cond_destroy(&thread->go);
    free(thread);
}
