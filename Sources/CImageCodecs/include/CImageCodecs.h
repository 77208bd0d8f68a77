#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
#include <stddef.h>

/// Decodes a PNG or JPEG held in memory into 8-bit RGBA rows.
/// On success returns 0 and sets *pixels (free with rocket_image_free), *width and *height.
/// On failure returns -1 and writes a message into error (at most error_length bytes).
/// Images larger than max_pixels are refused (a bound on memory). A JPEG may come back smaller
/// than it is, by 1/2, 1/4 or 1/8, while it is at least as large as the caller keeps of it: the
/// picture fitted (aspect kept) within keep_width x keep_height (0, 0: never). *source_width and
/// *source_height are the picture's own size, as its file states it.
int rocket_image_decode(const unsigned char *data, size_t length, size_t max_pixels, size_t keep_width, size_t keep_height,
                        unsigned char **pixels, int *width, int *height, int *source_width, int *source_height,
                        char *error, size_t error_length);

/// Frees pixels returned by rocket_image_decode.
void rocket_image_free(unsigned char *pixels);

/// Compresses `size` bytes into a gzip member in `out` (capacity `capacity`), at level 9; the
/// compressed size, or 0 when it does not fit or fails (zlib, which libpng already links).
size_t rocket_gzip(const unsigned char *data, size_t size, unsigned char *out, size_t capacity);

#endif
