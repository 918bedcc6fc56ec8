/*
 * mg_term.c - distributed termination detection: Safra's algorithm
 * (Dijkstra, "Shmuel Safra's version of termination detection", EWD998).
 *
 * Each node counts jobs sent minus jobs received and turns black when it
 * receives jobs.  A token travels from node 0 down the ring N-1, N-2, ...,
 * 1 and back to 0; a node passes it on only when passive (no queued work,
 * nothing waiting to be sent), adding its count, blackening the token if
 * it is black itself, and turning white.  Node 0 declares termination when
 * the token comes back white, node 0 is white, and the counts sum to zero
 * (no job in flight); otherwise it starts a new wave.  A barrier could not
 * do this: a node that reaches it may still receive a job in flight.
 */
#include "mg_internal.h"

void mg_term_reset(void)
{
    mg.count = 0;
    mg.colour = MG_WHITE;
    mg.done = 0;
    /* Node 0 starts holding a black token: its first pass starts a wave. */
    mg.has_token = mg.rank == 0;
    mg.token_colour = MG_BLACK;
    mg.token_q = 0;
}

static void send_token(int dest, int64_t q, mg_colour_t colour)
{
    mg_msg_hdr_t h = {
        .type = MG_MSG_TOKEN, .colour = (uint8_t)colour, .run = mg.run, .q = q};
    mg.has_token = 0;
    mg_send_packet(dest, &h, NULL, 0);
}

void mg_term_on_token(const mg_msg_hdr_t *h)
{
    if (h->run != mg.run || mg.has_token) {
        mg_fatal("search layer: node %d: a stray termination token (run %u, "
                 "this node is in run %u)",
                 mg.rank, h->run, mg.run);
    }
    mg.has_token = 1;
    mg.token_colour = (mg_colour_t)h->colour;
    mg.token_q = h->q;
}

void mg_term_passive(void)
{
    if (!mg.has_token || mg.done) {
        return;
    }
    if (mg.rank != 0) {
        mg_colour_t c = mg.colour == MG_BLACK ? MG_BLACK : mg.token_colour;
        send_token(mg.rank - 1, mg.token_q + mg.count, c);
        mg.colour = MG_WHITE;
        return;
    }
    if (mg.token_colour == MG_WHITE && mg.colour == MG_WHITE &&
        mg.token_q + mg.count == 0) {
        mg_msg_hdr_t h = {.type = MG_MSG_DONE, .run = mg.run};
        mg.has_token = 0;
        mg.done = 1;
        mg_send_packet(-1, &h, NULL, 0);
        return;
    }
    mg.colour = MG_WHITE;
    mg.stats.token_waves++;
    send_token(mg.size - 1, 0, MG_WHITE);
}
