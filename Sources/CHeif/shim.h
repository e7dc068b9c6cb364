#ifndef SFUMATO_CHEIF_SHIM_H
#define SFUMATO_CHEIF_SHIM_H
// libheif: HEIC/HEIF and AVIF. All parsing, decoding and encoding is libheif's (with libde265,
// dav1d and libaom behind it); this only collects libheif's output into memory, which Swift
// cannot do through a C callback that captures.
#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

/// Grows as libheif writes; freed by the caller with free().
struct sf_heif_buffer {
    unsigned char *data;
    size_t size;
    size_t capacity;
    int failed;
};

static inline struct heif_error sf_heif_buffer_write(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    struct sf_heif_buffer *b = (struct sf_heif_buffer *)userdata;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    if (size > b->capacity - b->size) {
        size_t want = b->capacity ? b->capacity : 1 << 16;
        while (want - b->size < size) {
            if (want > ((size_t)1 << 40)) { b->failed = 1; break; }
            want *= 2;
        }
        unsigned char *grown = b->failed ? NULL : (unsigned char *)realloc(b->data, want);
        if (!grown) {
            b->failed = 1;
            struct heif_error e = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
            return e;
        }
        b->data = grown;
        b->capacity = want;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
    return ok;
}

/// Writes the context's file into `buffer` (which starts zeroed).
static inline struct heif_error sf_heif_write_to_memory(struct heif_context *ctx, struct sf_heif_buffer *buffer) {
    struct heif_writer writer;
    writer.writer_api_version = 1;
    writer.write = sf_heif_buffer_write;
    return heif_context_write(ctx, &writer, buffer);
}
#endif
