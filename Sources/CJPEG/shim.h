// libjpeg-turbo: the TurboJPEG API (in-memory encode/decode) and the libjpeg API
// (scanline streaming, DCT scaling, markers). libjpeg reports fatal errors by calling
// error_exit, which must not return; Swift cannot catch a longjmp, so every libjpeg call
// that can fail goes through a wrapper here that sets a jump point and returns a status.
#ifndef SFUMATO_CJPEG_SHIM_H
#define SFUMATO_CJPEG_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <turbojpeg.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct sf_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warnings;
    int first_warning_code;
} sf_jpeg_error;

/// libjpeg's message code for "Premature end of JPEG file" (the data was cut short).
static const int SF_JWRN_JPEG_EOF = JWRN_JPEG_EOF;

static void sf_jpeg_error_exit(j_common_ptr cinfo) {
    sf_jpeg_error *err = (sf_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void sf_jpeg_emit_message(j_common_ptr cinfo, int level) {
    sf_jpeg_error *err = (sf_jpeg_error *)cinfo->err;
    if (level < 0) {
        // Corrupt-data warnings (premature end of data, bad Huffman code): remember the first.
        if (err->warnings == 0) {
            (*cinfo->err->format_message)(cinfo, err->message);
            err->first_warning_code = cinfo->err->msg_code;
        }
        err->warnings += 1;
    }
}

/// A decompressor with its error manager, allocated together so Swift holds one pointer.
typedef struct sf_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    sf_jpeg_error err;
} sf_jpeg_decoder;

typedef struct sf_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    sf_jpeg_error err;
} sf_jpeg_encoder;

static inline sf_jpeg_decoder *sf_jpeg_decoder_create(void) {
    sf_jpeg_decoder *d = (sf_jpeg_decoder *)calloc(1, sizeof(sf_jpeg_decoder));
    if (!d) return NULL;
    d->cinfo.err = jpeg_std_error(&d->err.pub);
    d->err.pub.error_exit = sf_jpeg_error_exit;
    d->err.pub.emit_message = sf_jpeg_emit_message;
    if (setjmp(d->err.jump)) { free(d); return NULL; }
    jpeg_create_decompress(&d->cinfo);
    return d;
}

static inline void sf_jpeg_decoder_destroy(sf_jpeg_decoder *d) {
    if (!d) return;
    if (!setjmp(d->err.jump)) jpeg_destroy_decompress(&d->cinfo);
    free(d);
}

/// Reads the header from an in-memory buffer (which must outlive the decoder), keeping the
/// APP1 (EXIF) and APP2 (ICC) markers. Returns 0, or -1 with err.message set.
static inline int sf_jpeg_read_header(sf_jpeg_decoder *d, const unsigned char *data, unsigned long size) {
    if (setjmp(d->err.jump)) return -1;
    jpeg_mem_src(&d->cinfo, data, size);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    return 0;
}

/// Same as sf_jpeg_read_header, from an open file.
static inline int sf_jpeg_read_header_file(sf_jpeg_decoder *d, FILE *file) {
    if (setjmp(d->err.jump)) return -1;
    jpeg_stdio_src(&d->cinfo, file);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    return 0;
}

/// Copies the ICC profile into a malloc'd buffer (caller frees). Returns its length, 0 if none, -1 on error.
static inline long sf_jpeg_icc_profile(sf_jpeg_decoder *d, unsigned char **out) {
    if (setjmp(d->err.jump)) return -1;
    JOCTET *data = NULL; unsigned int len = 0;
    if (!jpeg_read_icc_profile(&d->cinfo, &data, &len)) { *out = NULL; return 0; }
    *out = data;
    return (long)len;
}

/// Sets the output colour space (JCS_EXT_RGBA, or JCS_CMYK for CMYK/YCCK files) and DCT scale
/// (1/1, 1/2, 1/4, 1/8) and starts decoding.
static inline int sf_jpeg_start(sf_jpeg_decoder *d, int scale_denom, J_COLOR_SPACE out_space) {
    if (setjmp(d->err.jump)) return -1;
    d->cinfo.out_color_space = out_space;
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = (unsigned int)scale_denom;
    d->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&d->cinfo);
    return 0;
}

/// Reads up to `count` rows into consecutive rows of `buffer` (row stride `stride` bytes).
/// Returns the number of rows read, or -1 on error.
static inline int sf_jpeg_read_rows(sf_jpeg_decoder *d, unsigned char *buffer, size_t stride, int count) {
    if (setjmp(d->err.jump)) return -1;
    int done = 0;
    while (done < count && d->cinfo.output_scanline < d->cinfo.output_height) {
        JSAMPROW rows[16];
        int n = count - done; if (n > 16) n = 16;
        for (int i = 0; i < n; i++) rows[i] = buffer + (size_t)(done + i) * stride;
        int got = (int)jpeg_read_scanlines(&d->cinfo, rows, (JDIMENSION)n);
        if (got <= 0) break;
        done += got;
    }
    return done;
}

static inline int sf_jpeg_finish_decompress(sf_jpeg_decoder *d) {
    if (setjmp(d->err.jump)) return -1;
    jpeg_finish_decompress(&d->cinfo);
    return 0;
}

static inline sf_jpeg_encoder *sf_jpeg_encoder_create(void) {
    sf_jpeg_encoder *e = (sf_jpeg_encoder *)calloc(1, sizeof(sf_jpeg_encoder));
    if (!e) return NULL;
    e->cinfo.err = jpeg_std_error(&e->err.pub);
    e->err.pub.error_exit = sf_jpeg_error_exit;
    e->err.pub.emit_message = sf_jpeg_emit_message;
    if (setjmp(e->err.jump)) { free(e); return NULL; }
    jpeg_create_compress(&e->cinfo);
    return e;
}

static inline void sf_jpeg_encoder_destroy(sf_jpeg_encoder *e) {
    if (!e) return;
    if (!setjmp(e->err.jump)) jpeg_destroy_compress(&e->cinfo);
    free(e);
}

/// Starts compressing RGBA (or grey) rows to `file` with the given quality (1...100), chroma
/// subsampling (444, 422 or 420) and DCT (the accurate or the fast integer one); writes the ICC
/// profile when given.
static inline int sf_jpeg_start_compress(sf_jpeg_encoder *e, FILE *file, int width, int height,
                                         int grayscale, int quality, int subsampling, int fast_dct,
                                         const unsigned char *icc, unsigned int icc_len) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_stdio_dest(&e->cinfo, file);
    e->cinfo.image_width = (JDIMENSION)width;
    e->cinfo.image_height = (JDIMENSION)height;
    e->cinfo.input_components = grayscale ? 1 : 4;
    e->cinfo.in_color_space = grayscale ? JCS_GRAYSCALE : JCS_EXT_RGBA;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality, TRUE);
    e->cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    e->cinfo.optimize_coding = FALSE;
    if (!grayscale) {
        int h = subsampling == 444 ? 1 : 2;
        int v = subsampling == 420 ? 2 : 1;
        e->cinfo.comp_info[0].h_samp_factor = h;
        e->cinfo.comp_info[0].v_samp_factor = v;
        e->cinfo.comp_info[1].h_samp_factor = 1;
        e->cinfo.comp_info[1].v_samp_factor = 1;
        e->cinfo.comp_info[2].h_samp_factor = 1;
        e->cinfo.comp_info[2].v_samp_factor = 1;
    }
    jpeg_start_compress(&e->cinfo, TRUE);
    if (icc && icc_len > 0) jpeg_write_icc_profile(&e->cinfo, icc, icc_len);
    return 0;
}

/// Starts compressing planes already converted to Y, Cb and Cr and downsampled (libjpeg's raw
/// data input) into memory (`sf_jpeg_memory_result` gives the bytes after finishing): quality
/// 1...100, subsampling 444, 422 or 420, the accurate or the fast integer DCT. The planes'
/// rows must reach a whole number of 8x8 blocks (the caller pads by repeating the edge).
static inline int sf_jpeg_start_compress_planes(sf_jpeg_encoder *e, unsigned char **buffer, unsigned long *size,
                                                int width, int height, int quality, int subsampling,
                                                int fast_dct) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_mem_dest(&e->cinfo, buffer, size);
    e->cinfo.image_width = (JDIMENSION)width;
    e->cinfo.image_height = (JDIMENSION)height;
    e->cinfo.input_components = 3;
    e->cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality, TRUE);
    e->cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    e->cinfo.optimize_coding = FALSE;
    e->cinfo.raw_data_in = TRUE;
    e->cinfo.comp_info[0].h_samp_factor = subsampling == 444 ? 1 : 2;
    e->cinfo.comp_info[0].v_samp_factor = subsampling == 420 ? 2 : 1;
    for (int c = 1; c < 3; c++) {
        e->cinfo.comp_info[c].h_samp_factor = 1;
        e->cinfo.comp_info[c].v_samp_factor = 1;
    }
    jpeg_start_compress(&e->cinfo, TRUE);
    return 0;
}

/// Writes an ICC profile (in APP2 markers) before the first row; 0, or -1 with err.message set.
static inline int sf_jpeg_write_icc(sf_jpeg_encoder *e, const unsigned char *icc, unsigned int len) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_write_icc_profile(&e->cinfo, icc, len);
    return 0;
}

/// Compresses one row of MCUs from the planes: 8 x (luma's vertical sampling factor) luma rows
/// from `y`, 8 chroma rows each from `cb` and `cr`. 0, or -1 with err.message set.
static inline int sf_jpeg_write_planes(sf_jpeg_encoder *e, const unsigned char *y, size_t y_stride,
                                       const unsigned char *cb, const unsigned char *cr, size_t c_stride) {
    if (setjmp(e->err.jump)) return -1;
    JSAMPROW luma[16], blue[8], red[8];
    int lines = 8 * e->cinfo.comp_info[0].v_samp_factor;
    for (int i = 0; i < lines; i++) luma[i] = (JSAMPROW)(y + (size_t)i * y_stride);
    for (int i = 0; i < 8; i++) {
        blue[i] = (JSAMPROW)(cb + (size_t)i * c_stride);
        red[i] = (JSAMPROW)(cr + (size_t)i * c_stride);
    }
    JSAMPARRAY planes[3] = {luma, blue, red};
    return jpeg_write_raw_data(&e->cinfo, planes, (JDIMENSION)lines) == (JDIMENSION)lines ? 0 : -1;
}

/// Writes an APPn marker (n = marker - JPEG_APP0) before the first row; 0, or -1 with err.message set.
static inline int sf_jpeg_write_marker(sf_jpeg_encoder *e, int marker, const unsigned char *data, unsigned int len) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_write_marker(&e->cinfo, marker, data, len);
    return 0;
}

static inline int sf_jpeg_write_rows(sf_jpeg_encoder *e, const unsigned char *buffer, size_t stride, int count) {
    if (setjmp(e->err.jump)) return -1;
    int done = 0;
    while (done < count) {
        JSAMPROW rows[16];
        int n = count - done; if (n > 16) n = 16;
        for (int i = 0; i < n; i++) rows[i] = (JSAMPROW)(buffer + (size_t)(done + i) * stride);
        int got = (int)jpeg_write_scanlines(&e->cinfo, rows, (JDIMENSION)n);
        if (got <= 0) return -1;
        done += got;
    }
    return done;
}

static inline int sf_jpeg_finish_compress(sf_jpeg_encoder *e) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_finish_compress(&e->cinfo);
    return 0;
}

static inline const char *sf_jpeg_message(sf_jpeg_error *err) { return err->message; }

#endif
