#include "CImageCodecs.h"
#include <string.h>
#if !__has_include(<zlib.h>)
#error "zlib.h is missing: install Debian's zlib1g-dev (sh scripts/install-deps.sh)"
#endif
#include <zlib.h>

size_t rocket_gzip(const unsigned char *data, size_t size, unsigned char *out, size_t capacity) {
    z_stream z;
    memset(&z, 0, sizeof z);
    // windowBits 15 + 16: a gzip header and trailer around the deflate data.
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)capacity;
    int rc = deflate(&z, Z_FINISH);
    size_t produced = capacity - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? produced : 0;
}
