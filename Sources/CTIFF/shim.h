#ifndef SFUMATO_CTIFF_SHIM_H
#define SFUMATO_CTIFF_SHIM_H
// libtiff: TIFF reading and writing. All parsing, decompression and compression is libtiff's;
// this gives it a file in memory (its client I/O procedures), keeps its messages instead of
// printing them, and wraps the variadic TIFFGetField/TIFFSetField, which Swift cannot call.
#include <tiffio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A file in memory: read from `data` (not owned), or written into a buffer that grows
/// (owned; free `data` with free()). The first error libtiff reports is kept in `message`.
struct sf_tiff_stream {
    unsigned char *data;
    uint64_t size;
    uint64_t capacity;
    uint64_t position;
    int writable;
    char message[256];
};

static inline tmsize_t sf_tiff_read(thandle_t h, void *buf, tmsize_t n) {
    struct sf_tiff_stream *s = (struct sf_tiff_stream *)h;
    if (n <= 0 || s->position >= s->size) return 0;
    uint64_t left = s->size - s->position;
    uint64_t count = (uint64_t)n < left ? (uint64_t)n : left;
    memcpy(buf, s->data + s->position, (size_t)count);
    s->position += count;
    return (tmsize_t)count;
}

static inline tmsize_t sf_tiff_write(thandle_t h, void *buf, tmsize_t n) {
    struct sf_tiff_stream *s = (struct sf_tiff_stream *)h;
    if (!s->writable || n < 0) return -1;
    uint64_t end = s->position + (uint64_t)n;
    if (end > ((uint64_t)1 << 33)) return -1;  // 8 GiB: far past any image Sfumato writes
    if (end > s->capacity) {
        uint64_t want = s->capacity ? s->capacity : 1 << 16;
        while (want < end) want *= 2;
        unsigned char *grown = (unsigned char *)realloc(s->data, (size_t)want);
        if (!grown) return -1;
        memset(grown + s->capacity, 0, (size_t)(want - s->capacity));
        s->data = grown;
        s->capacity = want;
    }
    memcpy(s->data + s->position, buf, (size_t)n);
    s->position = end;
    if (end > s->size) s->size = end;
    return n;
}

static inline toff_t sf_tiff_seek(thandle_t h, toff_t offset, int whence) {
    struct sf_tiff_stream *s = (struct sf_tiff_stream *)h;
    uint64_t base = whence == SEEK_CUR ? s->position : whence == SEEK_END ? s->size : 0;
    uint64_t target = base + offset;
    if (target < base && whence != SEEK_SET) return (toff_t)-1;
    if (!s->writable && target > s->size) target = s->size;
    s->position = target;
    return (toff_t)target;
}

static inline int sf_tiff_close(thandle_t h) { (void)h; return 0; }
static inline toff_t sf_tiff_size(thandle_t h) { return (toff_t)((struct sf_tiff_stream *)h)->size; }
static inline int sf_tiff_map(thandle_t h, void **base, toff_t *size) {
    struct sf_tiff_stream *s = (struct sf_tiff_stream *)h;
    if (s->writable) return 0;
    *base = s->data;
    *size = (toff_t)s->size;
    return 1;
}
static inline void sf_tiff_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static inline int sf_tiff_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    struct sf_tiff_stream *s = (struct sf_tiff_stream *)user;
    if (s && s->message[0] == 0) vsnprintf(s->message, sizeof s->message, fmt, ap);
    return 1;
}
static inline int sf_tiff_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;  // warnings are not errors, and a library does not print
}

/// Opens the stream for reading ("r") or writing ("w"), with no allocation over `max_alloc`
/// bytes and messages kept in the stream.
static inline TIFF *sf_tiff_open(struct sf_tiff_stream *s, const char *mode, tmsize_t max_alloc) {
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, max_alloc);
    TIFFOpenOptionsSetErrorHandlerExtR(opts, sf_tiff_on_error, s);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, sf_tiff_on_warning, s);
    TIFF *tif = TIFFClientOpenExt("image.tif", mode, (thandle_t)s, sf_tiff_read, sf_tiff_write, sf_tiff_seek,
                                  sf_tiff_close, sf_tiff_size, sf_tiff_map, sf_tiff_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

static inline int sf_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *v) { return TIFFGetFieldDefaulted(tif, tag, v); }
static inline int sf_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *v) { return TIFFGetFieldDefaulted(tif, tag, v); }
/// A tag stored as a count and bytes (ICC profile, XMP packet).
static inline int sf_tiff_get_bytes(TIFF *tif, uint32_t tag, uint32_t *count, const void **data) {
    return TIFFGetField(tif, tag, count, data);
}
static inline int sf_tiff_get_extra_samples(TIFF *tif, uint16_t *count, const uint16_t **types) {
    return TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, count, types);
}
static inline int sf_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t v) { return TIFFSetField(tif, tag, (int)v); }
static inline int sf_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t v) { return TIFFSetField(tif, tag, v); }
static inline int sf_tiff_set_bytes(TIFF *tif, uint32_t tag, uint32_t count, const void *data) {
    return TIFFSetField(tif, tag, count, data);
}
static inline int sf_tiff_set_extra_samples(TIFF *tif, uint16_t count, const uint16_t *types) {
    return TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (int)count, types);
}

/// Any TIFF libtiff can show, as 8-bit RGBA words (R in the low byte) in stored row order (the
/// file's orientation is left to the caller), colour premultiplied by alpha where there is alpha.
static inline int sf_tiff_read_rgba(TIFF *tif, uint32_t width, uint32_t height, uint32_t *raster, char *message) {
    TIFFRGBAImage img;
    if (!TIFFRGBAImageOK(tif, message) || !TIFFRGBAImageBegin(&img, tif, 0, message)) return 0;
    img.req_orientation = img.orientation;
    int ok = TIFFRGBAImageGet(&img, raster, width, height);
    TIFFRGBAImageEnd(&img);
    return ok;
}
/// Copies every tag of `src`'s current directory that libtiff lists as set (the custom tags:
/// in an EXIF directory read with TIFFReadEXIFDirectory, all of them) into `dst`'s current
/// directory, each through its field's own get/set convention. Returns how many were copied.
static inline int sf_tiff_copy_custom_tags(TIFF *src, TIFF *dst) {
    int copied = 0, n = TIFFGetTagListCount(src);
    for (int i = 0; i < n; i++) {
        uint32_t tag = TIFFGetTagListEntry(src, i);
        const TIFFField *f = TIFFFieldWithTag(src, tag);
        if (!f || !TIFFFieldWithTag(dst, tag)) continue;
        TIFFDataType type = TIFFFieldDataType(f);
        int ok = 0;
        if (TIFFFieldPassCount(f)) {
            void *data = NULL;
            if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
                uint32_t count = 0;
                if (TIFFGetField(src, tag, &count, &data) && data) ok = TIFFSetField(dst, tag, count, data);
            } else {
                uint16_t count = 0;
                if (TIFFGetField(src, tag, &count, &data) && data) ok = TIFFSetField(dst, tag, (int)count, data);
            }
        } else if (type == TIFF_ASCII) {
            char *text = NULL;
            if (TIFFGetField(src, tag, &text) && text) ok = TIFFSetField(dst, tag, text);
        } else if (TIFFFieldReadCount(f) == 1) {
            int size = TIFFFieldSetGetSize(f);
            switch (type) {
            case TIFF_BYTE: case TIFF_SBYTE: case TIFF_UNDEFINED: {
                uint8_t v = 0; if (TIFFGetField(src, tag, &v)) ok = TIFFSetField(dst, tag, (int)v); break; }
            case TIFF_SHORT: case TIFF_SSHORT: {
                uint16_t v = 0; if (TIFFGetField(src, tag, &v)) ok = TIFFSetField(dst, tag, (int)v); break; }
            case TIFF_LONG: case TIFF_SLONG: case TIFF_IFD: {
                uint32_t v = 0; if (TIFFGetField(src, tag, &v)) ok = TIFFSetField(dst, tag, v); break; }
            case TIFF_RATIONAL: case TIFF_SRATIONAL: case TIFF_FLOAT: case TIFF_DOUBLE:
                if (size == 8) { double v = 0; if (TIFFGetField(src, tag, &v)) ok = TIFFSetField(dst, tag, v); }
                else { float v = 0; if (TIFFGetField(src, tag, &v)) ok = TIFFSetField(dst, tag, (double)v); }
                break;
            default: break;
            }
        } else {
            void *data = NULL;
            if (TIFFGetField(src, tag, &data) && data) ok = TIFFSetField(dst, tag, data);
        }
        if (ok) copied++;
    }
    return copied;
}

/// IFD0's EXIF directory offset (0 when there is none).
static inline uint64_t sf_tiff_exif_offset(TIFF *tif) {
    uint64_t offset = 0;
    return TIFFGetField(tif, TIFFTAG_EXIFIFD, &offset) ? offset : 0;
}

static inline int sf_tiff_set_exif_offset(TIFF *tif, uint64_t offset) { return TIFFSetField(tif, TIFFTAG_EXIFIFD, offset); }

/// An ASCII tag of the current directory, or NULL.
static inline const char *sf_tiff_get_ascii(TIFF *tif, uint32_t tag) {
    char *text = NULL;
    return TIFFGetField(tif, tag, &text) ? text : NULL;
}

static inline int sf_tiff_set_ascii(TIFF *tif, uint32_t tag, const char *text) { return TIFFSetField(tif, tag, text); }

#endif
