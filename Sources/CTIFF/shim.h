#ifndef SFUMATO_CTIFF_SHIM_H
#define SFUMATO_CTIFF_SHIM_H
// libtiff: TIFF reading and writing. All parsing, decompression and compression is libtiff's;
// this gives it a file in memory (its client I/O procedures), keeps its messages instead of
// printing them, and wraps the variadic TIFFGetField/TIFFSetField, which Swift cannot call.
#include <tiffio.h>
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <stdarg.h>
#include <math.h>
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
/// Registers `tag`, which libtiff does not know, in `out`'s current directory as a counted field
/// of the EXIF entry's own type (a camera's private tags: print settings, vendor blocks), so that
/// it can be set and written. NULL for a format TIFF has no type for.
static inline const TIFFField *sf_tiff_anonymous_field(TIFF *out, uint32_t tag, ExifFormat format) {
    TIFFDataType type;
    switch (format) {
    case EXIF_FORMAT_BYTE: type = TIFF_BYTE; break;
    case EXIF_FORMAT_ASCII: type = TIFF_ASCII; break;
    case EXIF_FORMAT_SHORT: type = TIFF_SHORT; break;
    case EXIF_FORMAT_LONG: type = TIFF_LONG; break;
    case EXIF_FORMAT_RATIONAL: type = TIFF_RATIONAL; break;
    case EXIF_FORMAT_SBYTE: type = TIFF_SBYTE; break;
    case EXIF_FORMAT_UNDEFINED: type = TIFF_UNDEFINED; break;
    case EXIF_FORMAT_SSHORT: type = TIFF_SSHORT; break;
    case EXIF_FORMAT_SLONG: type = TIFF_SLONG; break;
    case EXIF_FORMAT_SRATIONAL: type = TIFF_SRATIONAL; break;
    case EXIF_FORMAT_FLOAT: type = TIFF_FLOAT; break;
    case EXIF_FORMAT_DOUBLE: type = TIFF_DOUBLE; break;
    default: return NULL;
    }
    static char name[] = "PrivateExifTag";
    const TIFFFieldInfo info = {tag, TIFF_VARIABLE2, TIFF_VARIABLE2, type, FIELD_CUSTOM, 1, 1, name};
    if (TIFFMergeFieldInfo(out, &info, 1) != 0) return NULL;
    return TIFFFindField(out, tag, TIFF_ANY);
}

/// Sets, in `out`'s current directory, the tags of one IFD of an EXIF block (libexif reads it,
/// whatever types its writer chose): every tag for the EXIF directory when `exif_directory`
/// (`out`'s current directory made by TIFFCreateEXIFDirectory; tags libtiff does not know are
/// registered with their own type first), only the camera's
/// text tags (description, make, model, software, date, artist, copyright) for IFD0. Each
/// value is converted to the C type libtiff's field takes. Returns how many tags were set.
static inline int sf_tiff_set_from_exif(TIFF *out, const unsigned char *data, unsigned int size, int exif_directory) {
    ExifIfd ifd = exif_directory ? EXIF_IFD_EXIF : EXIF_IFD_0;
    ExifData *ed = exif_data_new();
    if (!ed) return 0;
    exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(ed, data, size);
    ExifContent *content = ed->ifd[ifd];
    ExifByteOrder o = exif_data_get_byte_order(ed);
    static const uint32_t camera[] = {270, 271, 272, 305, 306, 315, 33432};
    int set = 0;
    for (unsigned int i = 0; content && i < content->count; i++) {
        ExifEntry *e = content->entries[i];
        if (!e || !e->data || e->components == 0 || e->components > 15000) continue;
        uint32_t tag = e->tag;
        if (ifd == EXIF_IFD_0) {
            int wanted = 0;
            for (int k = 0; k < 7; k++) wanted |= camera[k] == tag;
            if (!wanted) continue;
        }
        const TIFFField *f = TIFFFindField(out, tag, TIFF_ANY);
        if (!f && exif_directory) f = sf_tiff_anonymous_field(out, tag, e->format);
        if (!f) continue;
        TIFFDataType type = TIFFFieldDataType(f);
        unsigned long n = e->components;
        if (type == TIFF_ASCII) {
            // Text, also where a camera stored it as bytes (up to the first NUL, as text ends).
            if (e->format != EXIF_FORMAT_ASCII && e->format != EXIF_FORMAT_BYTE && e->format != EXIF_FORMAT_UNDEFINED) continue;
            char *text = (char *)calloc(1, e->size + 1);
            if (!text) continue;
            memcpy(text, e->data, e->size);
            int stored = TIFFFieldPassCount(f) ? TIFFSetField(out, tag, (uint32_t)(strlen(text) + 1), text) : TIFFSetField(out, tag, text);
            if (stored) set++;
            free(text);
            continue;
        }
        // The entry's values as doubles (integers exactly), whatever its format.
        unsigned int esize = exif_format_get_size(e->format);
        if (esize == 0 || e->size < esize * n) continue;
        double *v = (double *)calloc(n, sizeof(double));
        if (!v) continue;
        int ok = 1;
        for (unsigned long k = 0; k < n && ok; k++) {
            const unsigned char *p = e->data + k * esize;
            switch (e->format) {
            case EXIF_FORMAT_BYTE: case EXIF_FORMAT_UNDEFINED: v[k] = p[0]; break;
            case EXIF_FORMAT_SBYTE: v[k] = (int8_t)p[0]; break;
            case EXIF_FORMAT_SHORT: v[k] = exif_get_short(p, o); break;
            case EXIF_FORMAT_SSHORT: v[k] = exif_get_sshort(p, o); break;
            case EXIF_FORMAT_LONG: v[k] = exif_get_long(p, o); break;
            case EXIF_FORMAT_SLONG: v[k] = exif_get_slong(p, o); break;
            case EXIF_FORMAT_RATIONAL: { ExifRational r = exif_get_rational(p, o); ok = r.denominator != 0; if (ok) v[k] = (double)r.numerator / r.denominator; break; }
            case EXIF_FORMAT_SRATIONAL: { ExifSRational r = exif_get_srational(p, o); ok = r.denominator != 0; if (ok) v[k] = (double)r.numerator / r.denominator; break; }
            case EXIF_FORMAT_FLOAT: { uint32_t b = exif_get_long(p, o); float x; memcpy(&x, &b, 4); v[k] = x; ok = isfinite(x); break; }
            case EXIF_FORMAT_DOUBLE: {
                uint64_t first = exif_get_long(p, o), second = exif_get_long(p + 4, o);
                uint64_t b = o == EXIF_BYTE_ORDER_MOTOROLA ? first << 32 | second : second << 32 | first;
                double x; memcpy(&x, &b, 8); v[k] = x; ok = isfinite(x); break;
            }
            default: ok = 0; break;
            }
        }
        int size = TIFFFieldSetGetSize(f);
        int floating = type == TIFF_RATIONAL || type == TIFF_SRATIONAL || type == TIFF_FLOAT || type == TIFF_DOUBLE;
        int single = !TIFFFieldPassCount(f) && TIFFFieldReadCount(f) == 1;
        if (ok && single) {
            if (floating) ok = TIFFSetField(out, tag, v[0]);
            else if (size == 4) ok = TIFFSetField(out, tag, (uint32_t)v[0]);
            else ok = TIFFSetField(out, tag, (int)v[0]);
        } else if (ok && (size == 1 || size == 2 || size == 4 || size == 8)) {
            // An array in the field's own element type: counted, or of the field's fixed length.
            if (!TIFFFieldPassCount(f) && (long)n != TIFFFieldReadCount(f)) ok = 0;
            void *a = ok ? calloc(n, (size_t)size) : NULL;
            if (!a) ok = 0;
            for (unsigned long k = 0; ok && k < n; k++) {
                if (floating && size == 4) ((float *)a)[k] = (float)v[k];
                else if (floating) ((double *)a)[k] = v[k];
                else if (size == 1) ((uint8_t *)a)[k] = (uint8_t)v[k];
                else if (size == 2) ((uint16_t *)a)[k] = (uint16_t)v[k];
                else if (size == 4) ((uint32_t *)a)[k] = (uint32_t)v[k];
                else ((uint64_t *)a)[k] = (uint64_t)v[k];
            }
            if (ok) {
                if (!TIFFFieldPassCount(f)) ok = TIFFSetField(out, tag, a);
                else if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) ok = TIFFSetField(out, tag, (uint32_t)n, a);
                else ok = n <= 65535 && TIFFSetField(out, tag, (int)n, a);
            }
            free(a);
        }
        free(v);
        if (ok) set++;
    }
    exif_data_unref(ed);
    return set;
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


/// The closest fraction n / d to `v` >= 0 with d <= 1 000 000 (continued fractions): a rational
/// libtiff handed over as a float comes back as the camera wrote it (1/250, 28/10) whenever its
/// denominator was small.
static inline void sf_rational(double v, uint32_t *num, uint32_t *den) {
    *num = 0; *den = 1;
    if (!(v > 0)) return;
    if (v > 4294967295.0) { *num = 4294967295u; return; }
    double x = v;
    uint64_t h0 = 1, h1 = 0, k0 = 0, k1 = 1;  // convergents h/k
    for (int i = 0; i < 40; i++) {
        double a = x < 4294967295.0 ? (double)(uint64_t)x : 4294967295.0;
        uint64_t h = (uint64_t)a * h0 + h1, k = (uint64_t)a * k0 + k1;
        if (k > 1000000 || h > 4294967295u) break;
        h1 = h0; h0 = h; k1 = k0; k0 = k;
        double f = x - a;
        if (f < 1e-12 || (double)h / (double)k == v) break;
        x = 1 / f;
    }
    if (k0 == 0) return;
    *num = (uint32_t)h0; *den = (uint32_t)k0;
}

/// Adds an entry of `format` with `components` values to `ifd`, its bytes made by `fill`ing a
/// zeroed buffer in Intel byte order.
static inline unsigned char *sf_exif_add(ExifData *ed, ExifIfd ifd, uint32_t tag, ExifFormat format, unsigned long components) {
    unsigned long size = exif_format_get_size(format) * components;
    if (size == 0 || size > 60000) return NULL;
    ExifEntry *e = exif_entry_new();
    if (!e) return NULL;
    e->data = (unsigned char *)calloc(1, size);
    if (!e->data) { exif_entry_unref(e); return NULL; }
    e->tag = (ExifTag)tag; e->format = format; e->components = components; e->size = (unsigned int)size;
    exif_content_add_entry(ed->ifd[ifd], e);
    exif_entry_unref(e);
    return ed->ifd[ifd]->entries[ed->ifd[ifd]->count - 1]->data;
}

/// One tag of `tif`'s current directory, as libtiff holds it, into a new entry of `ifd`.
static inline void sf_exif_from_tiff_tag(TIFF *tif, uint32_t tag, ExifData *ed, ExifIfd ifd) {
    const TIFFField *f = TIFFFindField(tif, tag, TIFF_ANY);
    if (!f) return;
    TIFFDataType type = TIFFFieldDataType(f);
    ExifByteOrder o = EXIF_BYTE_ORDER_INTEL;
    if (type == TIFF_ASCII && !TIFFFieldPassCount(f)) {
        char *text = NULL;
        if (!TIFFGetField(tif, tag, &text) || !text) return;
        size_t n = strnlen(text, 4096) + 1;
        unsigned char *d = sf_exif_add(ed, ifd, tag, EXIF_FORMAT_ASCII, n);
        if (d) memcpy(d, text, n - 1);
        return;
    }
    // Values: a count and an array (pass-count fields), one value, or a fixed-length array.
    uint32_t count = 1;
    const void *data = NULL;
    union { uint8_t u8; uint16_t u16; uint32_t u32; float f32; double f64; } one;
    int size = TIFFFieldSetGetSize(f);
    if (TIFFFieldPassCount(f)) {
        if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
            uint32_t c = 0; void *p = NULL;
            if (!TIFFGetField(tif, tag, &c, &p)) return;
            count = c; data = p;
        } else {
            uint16_t c = 0; void *p = NULL;
            if (!TIFFGetField(tif, tag, &c, &p)) return;
            count = c; data = p;
        }
    } else if (TIFFFieldReadCount(f) == 1) {
        if (!TIFFGetField(tif, tag, &one)) return;
        data = &one;
    } else if (TIFFFieldReadCount(f) > 1) {
        void *p = NULL;
        if (!TIFFGetField(tif, tag, &p)) return;
        count = (uint32_t)TIFFFieldReadCount(f); data = p;
    }
    if (!data || count == 0 || count > 15000) return;
    unsigned char *d = NULL;
    switch (type) {
    case TIFF_BYTE: case TIFF_SBYTE: case TIFF_UNDEFINED: case TIFF_ASCII:
        if (size != 1) return;
        d = sf_exif_add(ed, ifd, tag, (ExifFormat)type, count);
        if (d) memcpy(d, data, count);
        break;
    case TIFF_SHORT: case TIFF_SSHORT:
        if (size != 2) return;
        d = sf_exif_add(ed, ifd, tag, (ExifFormat)type, count);
        for (uint32_t i = 0; d && i < count; i++) exif_set_short(d + 2 * i, o, ((const uint16_t *)data)[i]);
        break;
    case TIFF_LONG: case TIFF_SLONG: case TIFF_IFD:
        if (size != 4) return;
        d = sf_exif_add(ed, ifd, tag, type == TIFF_SLONG ? EXIF_FORMAT_SLONG : EXIF_FORMAT_LONG, count);
        for (uint32_t i = 0; d && i < count; i++) exif_set_long(d + 4 * i, o, ((const uint32_t *)data)[i]);
        break;
    case TIFF_RATIONAL: case TIFF_SRATIONAL:
        if (size != 4 && size != 8) return;
        d = sf_exif_add(ed, ifd, tag, (ExifFormat)type, count);
        for (uint32_t i = 0; d && i < count; i++) {
            double v = size == 8 ? ((const double *)data)[i] : ((const float *)data)[i];
            uint32_t n, den;
            sf_rational(v < 0 ? -v : v, &n, &den);
            if (type == TIFF_SRATIONAL) {
                ExifSRational r = {(ExifSLong)(v < 0 ? -(int64_t)(n & 0x7fffffff) : (int64_t)(n & 0x7fffffff)), (ExifSLong)(den & 0x7fffffff)};
                exif_set_srational(d + 8 * i, o, r);
            } else {
                ExifRational r = {n, den};
                exif_set_rational(d + 8 * i, o, r);
            }
        }
        break;
    default:
        break;
    }
}

/// The EXIF block (APP1 form: "Exif\0\0", then TIFF) of a TIFF's EXIF directory, with IFD0's
/// camera text tags, made by libexif from the values libtiff reads; NULL when the file has no
/// EXIF directory or libtiff cannot read it. Leaves `tif` at its first directory again (pointers
/// to its tags' data got before this call are stale after it). Free the bytes with free().
static inline unsigned char *sf_tiff_exif_block(TIFF *tif, unsigned int *out_size) {
    *out_size = 0;
    uint64_t offset = 0;
    if (!TIFFGetField(tif, TIFFTAG_EXIFIFD, &offset) || offset == 0) return NULL;
    ExifData *ed = exif_data_new();
    if (!ed) return NULL;
    exif_data_set_byte_order(ed, EXIF_BYTE_ORDER_INTEL);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    static const uint32_t camera[] = {270, 271, 272, 305, 306, 315, 33432};
    for (int i = 0; i < 7; i++) sf_exif_from_tiff_tag(tif, camera[i], ed, EXIF_IFD_0);
    // The image's orientation (TIFF's own tag, 1 when absent), as a camera's IFD0 carries it.
    uint16_t orientation = 1;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    unsigned char *o = sf_exif_add(ed, EXIF_IFD_0, TIFFTAG_ORIENTATION, EXIF_FORMAT_SHORT, 1);
    if (o) exif_set_short(o, EXIF_BYTE_ORDER_INTEL, orientation);
    unsigned char *out = NULL;
    if (TIFFReadEXIFDirectory(tif, offset)) {
        int n = TIFFGetTagListCount(tif);
        for (int i = 0; i < n && i < 1000; i++) sf_exif_from_tiff_tag(tif, TIFFGetTagListEntry(tif, i), ed, EXIF_IFD_EXIF);
        if (ed->ifd[EXIF_IFD_EXIF]->count > 0) exif_data_save_data(ed, &out, out_size);
    }
    exif_data_unref(ed);
    TIFFSetDirectory(tif, 0);
    return out;
}

#endif
