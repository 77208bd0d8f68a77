// PNG (libpng's simplified API) and JPEG (libjpeg) decoding into RGBA, with errors as values.
#if !__has_include(<png.h>) || !__has_include(<jpeglib.h>)
#error "png.h or jpeglib.h is missing: install Debian's libpng-dev and libjpeg-dev (sh scripts/install-deps.sh)"
#endif
#include <png.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodecs.h"

static void set_error(char *error, size_t length, const char *message) {
    if (error && length) { snprintf(error, length, "%s", message); }
}

/* The reduction (1, 2, 4 or 8) a picture of w x h is decoded at while it stays at least the size
   the caller keeps (the picture fitted within keep_width x keep_height); 1 when nothing is kept
   or it fits already. A JPEG is scaled so in its DCT, a PNG by averaging its rows as they come. */
static unsigned int reduction(double w, double h, size_t keep_width, size_t keep_height) {
    if (keep_width == 0 || keep_height == 0 || w <= 0 || h <= 0) return 1;
    double scale = (double)keep_width / w < (double)keep_height / h ? (double)keep_width / w : (double)keep_height / h;
    if (scale >= 1) return 1;
    double kept_w = w * scale, kept_h = h * scale;
    unsigned int denom = 1;
    while (denom < 8 && w / (denom * 2) >= kept_w && h / (denom * 2) >= kept_h) denom *= 2;
    return denom;
}

/* The whole picture through libpng's simplified API (one kept whole),
   from `image` begun on its header (freed here whatever happens). */
static int decode_png_whole(png_image *image, unsigned char **pixels, int *width, int *height, char *error, size_t error_length) {
    image->format = PNG_FORMAT_RGBA;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(*image));
    if (!buffer) { png_image_free(image); set_error(error, error_length, "out of memory"); return -1; }
    if (!png_image_finish_read(image, NULL, buffer, 0, NULL)) {
        free(buffer);
        set_error(error, error_length, image->message[0] ? image->message : "PNG decoding failed");
        return -1;
    }
    *pixels = buffer;
    *width = (int)image->width;
    *height = (int)image->height;
    return 0;
}

struct png_memory {
    const unsigned char *data;
    size_t length, offset;
    char message[200];
};

static void png_memory_read(png_structp png, png_bytep out, png_size_t count) {
    struct png_memory *source = (struct png_memory *)png_get_io_ptr(png);
    if (count > source->length - source->offset) png_error(png, "the PNG ends early");
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static void png_fail(png_structp png, png_const_charp message) {
    struct png_memory *source = (struct png_memory *)png_get_error_ptr(png);
    snprintf(source->message, sizeof source->message, "%s", message);
    png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp message) { (void)png; (void)message; }

/* The sums of a band of `factor` rows, `ow` blocks wide, written to `out`'s row `oy` as means
   and set back to zero. */
static void png_flush_band(unsigned int *sums, unsigned char *out, size_t ow, size_t oy, unsigned int factor, png_uint_32 w, png_uint_32 h) {
    size_t rows = h - oy * factor < factor ? h - oy * factor : factor;
    for (size_t ox = 0; ox < ow; ox++) {
        size_t columns = w - ox * factor < factor ? w - ox * factor : factor;
        unsigned int n = (unsigned int)(rows * columns);
        for (int c = 0; c < 4; c++) out[(oy * ow + ox) * 4 + c] = (unsigned char)(sums[ox * 4 + c] / n);
    }
    memset(sums, 0, ow * 4 * sizeof(unsigned int));
}

/* A PNG reduced `factor` times on the way (each output pixel the mean of its factor x factor
   block, as the caller's own filter takes means): its rows are read one at a time into sums, so
   a 4096 x 4096 picture never needs its 64 MB of RGBA. An interlaced one's rows come in seven
   passes, each pixel added to its block where the pass puts it: it keeps the sums of every
   block (16 bytes each, a 64th of its pixels at most) instead of one band's. Colours as the
   simplified API gives them (8-bit RGBA in sRGB, alpha not premultiplied). */
static int decode_png_reduced(const unsigned char *data, size_t length, unsigned int factor,
                              unsigned char **pixels, int *width, int *height, char *error, size_t error_length) {
    struct png_memory source = { data, length, 0, "" };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, png_fail, png_quiet);
    if (!png) { set_error(error, error_length, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    unsigned char *volatile row = NULL, *volatile out = NULL;
    unsigned int *volatile sums = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        free(row); free(out); free(sums);
        set_error(error, error_length, source.message[0] ? source.message : "PNG decoding failed");
        return -1;
    }
    png_set_read_fn(png, &source, png_memory_read);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    /* Without png_set_interlace_handling, libpng hands over each pass's own rows. */
    int interlaced = png_get_interlace_type(png, info) == PNG_INTERLACE_ADAM7;
    png_set_alpha_mode(png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) png_error(png, "unexpected row layout");
    size_t ow = (w + factor - 1) / factor, oh = (h + factor - 1) / factor;
    size_t bands = interlaced ? oh : 1;
    row = malloc((size_t)w * 4);
    out = malloc(ow * oh * 4);
    sums = calloc(ow * bands * 4, sizeof(unsigned int));
    if (!row || !out || !sums) png_error(png, "out of memory");
    for (int pass = 0; pass < (interlaced ? 7 : 1); pass++) {
        png_uint_32 columns = interlaced ? PNG_PASS_COLS(w, pass) : w, rows = interlaced ? PNG_PASS_ROWS(h, pass) : h;
        /* libpng skips a pass with no pixels, as this does. */
        if (columns == 0 || rows == 0) continue;
        for (png_uint_32 r = 0; r < rows; r++) {
            png_read_row(png, row, NULL);
            png_uint_32 y = interlaced ? PNG_ROW_FROM_PASS_ROW(r, pass) : r;
            unsigned int *band = sums + (interlaced ? (size_t)(y / factor) * ow * 4 : 0);
            for (png_uint_32 i = 0; i < columns; i++) {
                png_uint_32 x = interlaced ? PNG_COL_FROM_PASS_COL(i, pass) : i;
                unsigned int *s = band + (x / factor) * 4;
                s[0] += row[i * 4]; s[1] += row[i * 4 + 1]; s[2] += row[i * 4 + 2]; s[3] += row[i * 4 + 3];
            }
            if (!interlaced && ((y + 1) % factor == 0 || y + 1 == h)) png_flush_band(sums, out, ow, y / factor, factor, w, h);
        }
    }
    if (interlaced) {
        for (size_t oy = 0; oy < oh; oy++) png_flush_band(sums + oy * ow * 4, out, ow, oy, factor, w, h);
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row); free(sums);
    *pixels = out;
    *width = (int)ow;
    *height = (int)oh;
    return 0;
}

static int decode_png(const unsigned char *data, size_t length, size_t max_pixels, size_t keep_width, size_t keep_height,
                      unsigned char **pixels, int *width, int *height, int *source_width, int *source_height,
                      char *error, size_t error_length) {
    /* The header says the size before anything is decoded. */
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        set_error(error, error_length, image.message[0] ? image.message : "not a readable PNG");
        return -1;
    }
    png_uint_32 w = image.width, h = image.height;
    if ((size_t)w * (size_t)h > max_pixels) {
        png_image_free(&image);
        set_error(error, error_length, "the image has too many pixels");
        return -1;
    }
    *source_width = (int)w;
    *source_height = (int)h;
    unsigned int factor = reduction(w, h, keep_width, keep_height);
    if (factor > 1) {
        png_image_free(&image);
        return decode_png_reduced(data, length, factor, pixels, width, height, error, error_length);
    }
    return decode_png_whole(&image, pixels, width, height, error, error_length);
}

struct jpeg_error_context {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_fail(j_common_ptr info) {
    struct jpeg_error_context *context = (struct jpeg_error_context *)info->err;
    (*info->err->format_message)(info, context->message);
    longjmp(context->jump, 1);
}

static void jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

static int decode_jpeg(const unsigned char *data, size_t length, size_t max_pixels, size_t keep_width, size_t keep_height,
                       unsigned char **pixels, int *width, int *height, int *source_width, int *source_height,
                       char *error, size_t error_length) {
    struct jpeg_decompress_struct info;
    struct jpeg_error_context context;
    unsigned char *volatile buffer = NULL;
    info.err = jpeg_std_error(&context.manager);
    context.manager.error_exit = jpeg_fail;
    context.manager.emit_message = jpeg_quiet;
    context.message[0] = 0;
    if (setjmp(context.jump)) {
        jpeg_destroy_decompress(&info);
        free(buffer);
        set_error(error, error_length, context.message[0] ? context.message : "JPEG decoding failed");
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    *source_width = (int)info.image_width;
    *source_height = (int)info.image_height;
    /* The header's size is checked before anything is decoded: libjpeg allocates whole-image
       coefficient buffers for progressive files in jpeg_start_decompress. */
    if ((size_t)info.image_width * (size_t)info.image_height > max_pixels) {
        jpeg_destroy_decompress(&info);
        set_error(error, error_length, "the image has too many pixels");
        return -1;
    }
    info.out_color_space = JCS_RGB;
    /* Scaled in the DCT (1/2, 1/4, 1/8) while it stays at least the size the caller keeps (the
       picture fitted within keep_width x keep_height): a photo then decodes in a fraction of
       the time and memory. */
    unsigned int denom = reduction(info.image_width, info.image_height, keep_width, keep_height);
    if (denom > 1) {
        info.scale_num = 1;
        info.scale_denom = denom;
    }
    jpeg_start_decompress(&info);
    size_t w = info.output_width, h = info.output_height;
    if (w * h > max_pixels) {
        jpeg_destroy_decompress(&info);
        set_error(error, error_length, "the image has too many pixels");
        return -1;
    }
    buffer = malloc(w * h * 4);
    unsigned char *row = malloc(w * 3);
    if (!buffer || !row) {
        free(row); jpeg_destroy_decompress(&info); free(buffer);
        set_error(error, error_length, "out of memory");
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        size_t y = info.output_scanline;
        JSAMPROW rows[1] = { row };
        jpeg_read_scanlines(&info, rows, 1);
        for (size_t x = 0; x < w; x++) {
            buffer[(y * w + x) * 4 + 0] = row[x * 3 + 0];
            buffer[(y * w + x) * 4 + 1] = row[x * 3 + 1];
            buffer[(y * w + x) * 4 + 2] = row[x * 3 + 2];
            buffer[(y * w + x) * 4 + 3] = 255;
        }
    }
    free(row);
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    *pixels = buffer;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

int rocket_image_decode(const unsigned char *data, size_t length, size_t max_pixels, size_t keep_width, size_t keep_height,
                        unsigned char **pixels, int *width, int *height, int *source_width, int *source_height,
                        char *error, size_t error_length) {
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (length >= 8 && memcmp(data, png_signature, 8) == 0) {
        return decode_png(data, length, max_pixels, keep_width, keep_height, pixels, width, height, source_width, source_height,
                          error, error_length);
    }
    if (length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        return decode_jpeg(data, length, max_pixels, keep_width, keep_height, pixels, width, height, source_width, source_height,
                           error, error_length);
    }
    set_error(error, error_length, "not a PNG or JPEG file");
    return -1;
}

void rocket_image_free(unsigned char *pixels) { free(pixels); }
