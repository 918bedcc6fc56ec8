/*
 * bench_paper.h - the paper's published numbers (Bhoedjang et al., ASPLOS
 * 2000, section 4), shown beside measurements as a labelled reference
 * column only.  They are never used to compute or adjust a measurement.
 *
 * One source of truth: the benchmarks use these functions, and the sweep
 * script reads the same table from `lci_logp --reference`.
 */
#ifndef BENCH_PAPER_H
#define BENCH_PAPER_H

#include <stdio.h>

#include "bench_common.h"

/* Table 4 value of metric ("o_s", "o_r", "g", "L", "end-to-end", "fa") for
 * scheme, in microseconds; negative when the paper gives none. */
double bench_paper_logp(bench_scheme_t scheme, const char *metric);

/* Broadcast latency of an empty message on 64 nodes (section 4.2) for a
 * decomposition, in microseconds; negative when the paper gives none. */
double bench_paper_bcast_latency(const char *decomp);

/* Peak unicast throughput without receiver copy (section 4.1, Figure 2) in
 * MB/s for scheme and packet size; negative when the paper gives none. */
double bench_paper_peak_throughput(bench_scheme_t scheme, size_t packet_size);

/* Peak broadcast throughput on 64 nodes with copying (section 4.2,
 * Figure 4): "up to" this many MB/s with packet_size; negative if none. */
double bench_paper_bcast_throughput(size_t packet_size);

/* Writes every reference value as CSV: key,metric,value,unit,source. */
void bench_paper_print_csv(FILE *out);

#endif
