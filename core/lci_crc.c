/* lci_crc.c - the packet CRC: CRC-32 (IEEE 802.3 polynomial) from zlib. */
#include "config.h"

#include "lci_crc.h"

#include <limits.h>
#include <zlib.h>

uint32_t lci_crc32_update(uint32_t crc, const void *buf, size_t len)
{
    const Bytef *p = buf;

    /* zlib treats a NULL buffer as "give me the initial value" and would
     * forget crc; an empty piece must leave the CRC as it was. */
    if (len == 0) {
        return crc;
    }
    /* zlib's length is a uInt: feed larger buffers in pieces. */
    while (len > 0) {
        uInt chunk = len > UINT_MAX ? UINT_MAX : (uInt)len;

        crc = (uint32_t)crc32((uLong)crc, p, chunk);
        p += chunk;
        len -= chunk;
    }
    return crc;
}

uint32_t lci_crc32(const void *buf, size_t len)
{
    return lci_crc32_update(0, buf, len);
}
