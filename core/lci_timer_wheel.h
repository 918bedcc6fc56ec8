/*
 * lci_timer_wheel.h - a hashed timer wheel for firmware and host timers
 * (go-back-N retransmission, delayed acks, soft timers).
 *
 * Firmware rules apply: no malloc, no stdio, no locks.  The caller provides
 * the storage, typically from the NI's SRAM arena:
 *
 *     size_t bytes = lci_timer_wheel_size(ntimers, nslots);
 *     lci_timer_wheel_t *w = <bytes from the arena, 8-byte aligned>;
 *     lci_timer_wheel_init(w, ntimers, nslots, tick_ns);
 *
 * The wheel holds array indices only, never pointers, so it stays valid in a
 * shared segment mapped at different addresses in different processes, and
 * may be copied with memcpy.
 *
 * Timers are named by small integer ids 0..ntimers-1 (for example one per
 * destination).  A timer is idle or running; start() on a running timer
 * re-arms it.  Time is in nanoseconds on any monotonic clock (virtual time in
 * the simulator).  A timer with expiry e sits in slot (e / tick) % nslots,
 * each slot's list kept sorted by (expiry, id); the tick is tick_ns rounded
 * up to a power of two (a shift instead of a division on every step).
 *
 * advance(now) fires every running timer with expiry <= now exactly once, in
 * increasing (expiry, id) order, and makes it idle before its callback runs.
 * The callback may start and cancel any timer (including the one firing).
 * A timer started by a callback behaves as an event scheduled at that
 * moment: if its (expiry, id) comes after the one being fired and its expiry
 * is <= now, it fires later in the same advance(); if it does not come after
 * (it is "in the past"), it waits for the next advance() call, where it
 * fires first.  This keeps advance() finite and the order deterministic.
 * Timers started between advance() calls with an expiry already passed fire
 * at the next advance(), before the others.
 *
 * Cost: start is O(timers in the slot); advance walks the slots tick by tick
 * and jumps over empty stretches longer than one rotation, so long idle
 * periods and expiries many rotations away are cheap.  next_expiry is O(1)
 * while the earliest timer stays (it is remembered, and forgotten only
 * when that timer stops or fires); after that it looks at the occupied
 * slots only (a bitmap of them: nslots / 64 words, and one slot head per
 * running timer at most).
 */
#ifndef LCI_TIMER_WHEEL_H
#define LCI_TIMER_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lci.h"

/* Upper bounds, so that ids and slot numbers fit the index fields. */
#define LCI_TIMER_WHEEL_MAX_TIMERS 65536u
#define LCI_TIMER_WHEEL_MAX_SLOTS  65536u

/* Called for each expired timer. */
typedef void (*lci_timer_wheel_func_t)(void *arg, unsigned id);

/* One timer.  Private to lci_timer_wheel.c; here only for the size. */
typedef struct {
    uint64_t expiry_ns;
    uint32_t next; /* next timer in the same list (an id), or none */
    uint32_t prev;
    uint32_t list; /* slot number, or one of the private list markers */
    uint32_t reserved;
} lci_timer_wheel_entry_t;

typedef struct {
    uint64_t tick_ns;     /* width of one slot: the tick asked for, rounded
                             up to a power of two (1 << tick_shift) */
    uint64_t cur_tick;    /* every timer of an earlier tick has fired */
    uint64_t last_expiry; /* (expiry, id) of the timer last fired by the */
    uint32_t last_id;     /*   advance() in progress */
    uint32_t ntimers;
    uint32_t nslots;
    uint32_t nrunning;
    uint32_t overdue_head; /* timers due before cur_tick, sorted */
    uint8_t in_advance;
    uint8_t has_last;
    uint8_t next_known;   /* next_expiry below is the earliest expiry */
    uint8_t tick_shift;
    uint64_t next_expiry; /* remembered by lci_timer_wheel_next_expiry */
    /* ntimers entries, then the bitmap of occupied slots (nslots bits in
     * uint64_t words), then nslots uint32_t list heads */
    lci_timer_wheel_entry_t entries[];
} lci_timer_wheel_t;

/* Bytes of storage for a wheel of ntimers timers and nslots slots, as a
 * constant expression (for static storage).  Align it like a uint64_t. */
#define LCI_TIMER_WHEEL_SIZE(ntimers, nslots)                                  \
    (sizeof(lci_timer_wheel_t) +                                               \
     (size_t)(ntimers) * sizeof(lci_timer_wheel_entry_t) +                     \
     ((size_t)(nslots) + 63) / 64 * sizeof(uint64_t) +                         \
     (size_t)(nslots) * sizeof(uint32_t))

/* The same as a function; 0 if a count is out of range. */
size_t lci_timer_wheel_size(unsigned ntimers, unsigned nslots);

/* Makes an empty wheel in storage of lci_timer_wheel_size() bytes, at time
 * 0.  LCI_ERR_INVAL if a count is 0 or too large or tick_ns is 0. */
lci_status_t lci_timer_wheel_init(lci_timer_wheel_t *wheel, unsigned ntimers,
                                  unsigned nslots, uint64_t tick_ns);

/* Arms timer id to fire at expiry_ns, re-arming it if it is running.
 * LCI_ERR_INVAL for a bad id. */
lci_status_t lci_timer_wheel_start(lci_timer_wheel_t *wheel, unsigned id,
                                   uint64_t expiry_ns);

/* Stops timer id.  Returns whether it was running. */
bool lci_timer_wheel_cancel(lci_timer_wheel_t *wheel, unsigned id);

bool lci_timer_wheel_is_running(const lci_timer_wheel_t *wheel, unsigned id);

/* Expiry of timer id, or UINT64_MAX if it is idle (or id is bad). */
uint64_t lci_timer_wheel_expiry(const lci_timer_wheel_t *wheel, unsigned id);

/* Number of running timers. */
unsigned lci_timer_wheel_count(const lci_timer_wheel_t *wheel);

/* Fires every timer due at now_ns (see above); returns how many fired.
 * A nested call from a callback does nothing and returns 0. */
unsigned lci_timer_wheel_advance(lci_timer_wheel_t *wheel, uint64_t now_ns,
                                 lci_timer_wheel_func_t func, void *arg);

/* Earliest expiry of any running timer, or UINT64_MAX if none.  (Not
 * const: the wheel remembers the answer.) */
uint64_t lci_timer_wheel_next_expiry(lci_timer_wheel_t *wheel);

#endif
