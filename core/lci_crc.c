/* lci_crc.c - the packet CRC: CRC-32 (IEEE 802.3 polynomial, as zlib and
 * gzip compute it), from ISA-L when configure found it, else from zlib.
 * Both give the same value; ISA-L folds with carry-less multiplication
 * and is about ten times faster, which matters on the live wire, where
 * every packet sent and every packet received costs one. */
#include "config.h"

#include "lci_crc.h"

#include <limits.h>
#if LCI_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

uint32_t lci_crc32_update(uint32_t crc, const void *buf, size_t len)
{
    /* An empty piece leaves the CRC as it was (zlib would treat a NULL
     * buffer as a request for the initial value). */
    if (len == 0) {
        return crc;
    }
#if LCI_HAVE_ISAL
    return crc32_gzip_refl(crc, buf, len);
#else
    const Bytef *p = buf;
    /* zlib's length is a uInt: feed larger buffers in pieces. */
    while (len > 0) {
        uInt chunk = len > UINT_MAX ? UINT_MAX : (uInt)len;

        crc = (uint32_t)crc32((uLong)crc, p, chunk);
        p += chunk;
        len -= chunk;
    }
    return crc;
#endif
}

uint32_t lci_crc32(const void *buf, size_t len)
{
    return lci_crc32_update(0, buf, len);
}
