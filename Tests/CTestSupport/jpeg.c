#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include "CTestSupport.h"

unsigned long rocket_test_jpeg_mode(const unsigned char *rgb, int width, int height, int progressive, unsigned char **out) {
    struct jpeg_compress_struct info;
    struct jpeg_error_mgr errors;
    unsigned long size = 0;
    *out = NULL;
    info.err = jpeg_std_error(&errors);
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, out, &size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, 95, TRUE);
    if (progressive) jpeg_simple_progression(&info);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * (size_t)width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return size;
}

unsigned long rocket_test_jpeg(const unsigned char *rgb, int width, int height, unsigned char **out) {
    return rocket_test_jpeg_mode(rgb, width, height, 0, out);
}
