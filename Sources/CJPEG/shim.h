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

/// A destination in memory that grows with realloc. Unlike jpeg_mem_dest, whose caller's pointer
/// dangles if compression fails after the buffer grew, `data` is always the live buffer, so the
/// encoder frees it whatever happened.
typedef struct sf_jpeg_memory {
    struct jpeg_destination_mgr pub;
    unsigned char *data;
    size_t capacity;
    size_t size;
} sf_jpeg_memory;

typedef struct sf_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    sf_jpeg_error err;
    sf_jpeg_memory memory;
} sf_jpeg_encoder;

static void sf_jpeg_memory_init(j_compress_ptr cinfo) {
    sf_jpeg_memory *m = (sf_jpeg_memory *)cinfo->dest;
    m->pub.next_output_byte = m->data;
    m->pub.free_in_buffer = m->capacity;
    m->size = 0;
}

static boolean sf_jpeg_memory_grow(j_compress_ptr cinfo) {
    // libjpeg calls this only when the buffer is full.
    sf_jpeg_memory *m = (sf_jpeg_memory *)cinfo->dest;
    size_t capacity = m->capacity * 2;
    unsigned char *data = (unsigned char *)realloc(m->data, capacity);
    if (!data) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    m->pub.next_output_byte = data + m->capacity;
    m->pub.free_in_buffer = capacity - m->capacity;
    m->data = data;
    m->capacity = capacity;
    return TRUE;
}

static void sf_jpeg_memory_term(j_compress_ptr cinfo) {
    sf_jpeg_memory *m = (sf_jpeg_memory *)cinfo->dest;
    m->size = m->capacity - m->pub.free_in_buffer;
}

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
    free(e->memory.data);
    free(e);
}

/// Sets an encoder's image, quality (1...100), chroma subsampling (444, 422 or 420), DCT (the
/// accurate or the fast integer one) and restart interval in MCUs (0: none). Call after setjmp.
static inline void sf_jpeg_configure(sf_jpeg_encoder *e, int width, int height, int grayscale, int quality,
                                     int subsampling, int fast_dct, unsigned int restart_mcus) {
    e->cinfo.image_width = (JDIMENSION)width;
    e->cinfo.image_height = (JDIMENSION)height;
    e->cinfo.input_components = grayscale ? 1 : 4;
    e->cinfo.in_color_space = grayscale ? JCS_GRAYSCALE : JCS_EXT_RGBA;
    jpeg_set_defaults(&e->cinfo);
    jpeg_set_quality(&e->cinfo, quality, TRUE);
    e->cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    e->cinfo.optimize_coding = FALSE;
    e->cinfo.restart_interval = restart_mcus;
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
}

/// Starts compressing RGBA (or grey) rows to `file` (see sf_jpeg_configure); writes the ICC
/// profile when given. 0, or -1 with err.message set.
static inline int sf_jpeg_start_compress(sf_jpeg_encoder *e, FILE *file, int width, int height,
                                         int grayscale, int quality, int subsampling, int fast_dct,
                                         const unsigned char *icc, unsigned int icc_len) {
    if (setjmp(e->err.jump)) return -1;
    jpeg_stdio_dest(&e->cinfo, file);
    sf_jpeg_configure(e, width, height, grayscale, quality, subsampling, fast_dct, 0);
    jpeg_start_compress(&e->cinfo, TRUE);
    if (icc && icc_len > 0) jpeg_write_icc_profile(&e->cinfo, icc, icc_len);
    return 0;
}

/// Starts compressing RGBA (or grey) rows into memory (sf_jpeg_memory_bytes gives them once
/// finished; the encoder owns them), starting with room for `capacity` bytes, with a restart
/// marker every `restart_mcus` MCUs (0: none); writes the ICC profile when given.
static inline int sf_jpeg_start_compress_memory(sf_jpeg_encoder *e, size_t capacity, int width, int height,
                                                int grayscale, int quality, int subsampling, int fast_dct,
                                                unsigned int restart_mcus, const unsigned char *icc,
                                                unsigned int icc_len) {
    if (setjmp(e->err.jump)) return -1;
    if (capacity < 4096) capacity = 4096;
    free(e->memory.data);
    e->memory.data = (unsigned char *)malloc(capacity);
    if (!e->memory.data) ERREXIT1(&e->cinfo, JERR_OUT_OF_MEMORY, 10);
    e->memory.capacity = capacity;
    e->memory.pub.init_destination = sf_jpeg_memory_init;
    e->memory.pub.empty_output_buffer = sf_jpeg_memory_grow;
    e->memory.pub.term_destination = sf_jpeg_memory_term;
    e->cinfo.dest = &e->memory.pub;
    sf_jpeg_configure(e, width, height, grayscale, quality, subsampling, fast_dct, restart_mcus);
    jpeg_start_compress(&e->cinfo, TRUE);
    if (icc && icc_len > 0) jpeg_write_icc_profile(&e->cinfo, icc, icc_len);
    return 0;
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

/// The bytes a memory compression wrote (valid once sf_jpeg_finish_compress returned 0, until the
/// encoder is destroyed).
static inline const unsigned char *sf_jpeg_memory_bytes(const sf_jpeg_encoder *e, size_t *size) {
    *size = e->memory.size;
    return e->memory.data;
}

static inline const char *sf_jpeg_message(sf_jpeg_error *err) { return err->message; }

#endif
