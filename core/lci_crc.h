/* lci_crc.h - the packet CRC (CRC-32 as zlib computes it; by ISA-L or zlib). */
#ifndef LCI_CRC_H
#define LCI_CRC_H

#include <stddef.h>
#include <stdint.h>

uint32_t lci_crc32(const void *buf, size_t len);

/* Continues a CRC over a further piece of data. */
uint32_t lci_crc32_update(uint32_t crc, const void *buf, size_t len);

#endif
