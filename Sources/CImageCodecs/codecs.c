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

static int decode_png(const unsigned char *data, size_t length, size_t max_pixels,
                      unsigned char **pixels, int *width, int *height, char *error, size_t error_length) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        set_error(error, error_length, image.message[0] ? image.message : "not a readable PNG");
        return -1;
    }
    if ((size_t)image.width * (size_t)image.height > max_pixels) {
        png_image_free(&image);
        set_error(error, error_length, "the image has too many pixels");
        return -1;
    }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) { png_image_free(&image); set_error(error, error_length, "out of memory"); return -1; }
    if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
        free(buffer);
        set_error(error, error_length, image.message[0] ? image.message : "PNG decoding failed");
        return -1;
    }
    *pixels = buffer;
    *width = (int)image.width;
    *height = (int)image.height;
    return 0;
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
    if (keep_width > 0 && keep_height > 0) {
        double w = info.image_width, h = info.image_height;
        double scale = (double)keep_width / w < (double)keep_height / h ? (double)keep_width / w : (double)keep_height / h;
        if (scale < 1) {
            double kept_w = w * scale, kept_h = h * scale;
            unsigned int denom = 1;
            while (denom < 8 && w / (denom * 2) >= kept_w && h / (denom * 2) >= kept_h) denom *= 2;
            info.scale_num = 1;
            info.scale_denom = denom;
        }
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
        int status = decode_png(data, length, max_pixels, pixels, width, height, error, error_length);
        if (status == 0) { *source_width = *width; *source_height = *height; }
        return status;
    }
    if (length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        return decode_jpeg(data, length, max_pixels, keep_width, keep_height, pixels, width, height, source_width, source_height,
                           error, error_length);
    }
    set_error(error, error_length, "not a PNG or JPEG file");
    return -1;
}

void rocket_image_free(unsigned char *pixels) { free(pixels); }
