#include <png.h>
#include <stdlib.h>
#include <string.h>
#include "CTestSupport.h"

struct png_sink {
    unsigned char *data;
    size_t length, capacity;
    int failed;
};

static void sink_write(png_structp png, png_bytep bytes, png_size_t count) {
    struct png_sink *sink = (struct png_sink *)png_get_io_ptr(png);
    if (sink->length + count > sink->capacity) {
        size_t capacity = (sink->length + count) * 2;
        unsigned char *grown = realloc(sink->data, capacity);
        if (!grown) { sink->failed = 1; png_error(png, "out of memory"); }
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->length, bytes, count);
    sink->length += count;
}

static void sink_flush(png_structp png) { (void)png; }

unsigned long rocket_test_png(const unsigned char *pixels, int width, int height, int channels, int interlaced, unsigned char **out) {
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    *out = NULL;
    if (channels < 1 || channels > 4) return 0;
    struct png_sink sink = {NULL, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(sink.data);
        return 0;
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, types[channels],
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * (size_t)width * (size_t)channels));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink.data;
    return (unsigned long)sink.length;
}
