#ifndef SFUMATO_CEXIF_SHIM_H
#define SFUMATO_CEXIF_SHIM_H
// libexif: the EXIF block a photo carries, kept through a render with what the render changed
// (the orientation, once applied, and the pixel dimensions) set right. All parsing and writing is
// libexif's; this only puts its calls in order.
#include <libexif/exif-data.h>
#include <libexif/exif-mnote-data.h>
#include <libexif/exif-utils.h>
#include <stdlib.h>
#include <string.h>

/// Sets a SHORT or LONG entry of `ifd` to `value`, if the entry is there.
static inline void sf_exif_set_number(ExifData *ed, ExifIfd ifd, ExifTag tag, unsigned int value) {
    ExifEntry *e = exif_content_get_entry(ed->ifd[ifd], tag);
    if (!e || !e->data) return;
    ExifByteOrder order = exif_data_get_byte_order(ed);
    if (e->format == EXIF_FORMAT_SHORT && e->size >= 2) exif_set_short(e->data, order, (ExifShort)value);
    else if (e->format == EXIF_FORMAT_LONG && e->size >= 4) exif_set_long(e->data, order, (ExifLong)value);
}

/// An EXIF block (a JPEG APP1 payload: "Exif\0\0" then TIFF) rewritten for an upright image of
/// width x height: orientation 1, pixel dimensions updated, the embedded thumbnail (now stale)
/// dropped, every other entry kept (unknown tags and maker notes included). Returns malloc'd
/// bytes in the same form and their length in `out_size`, or NULL when libexif cannot read it.
static inline unsigned char *sf_exif_rewrite(const unsigned char *data, unsigned int size, unsigned int width,
                                             unsigned int height, unsigned int *out_size) {
    *out_size = 0;
    ExifData *ed = exif_data_new();
    if (!ed) return NULL;
    // Keep what libexif does not know, and do not "repair" entries to the specification's liking.
    exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(ed, data, size);
    // Nothing to keep only when no directory holds an entry (a block may hold EXIF tags alone).
    unsigned int entries = 0;
    for (int i = 0; i < EXIF_IFD_COUNT; i++) entries += ed->ifd[i] ? ed->ifd[i]->count : 0;
    if (entries == 0) { exif_data_unref(ed); return NULL; }
    // A maker note libexif took for its maker's but read nothing from would be written back as
    // its (empty) reading: keep its bytes as they came instead. One it read is written back from
    // its entries, with the offsets inside it fixed for where it now lands.
    ExifMnoteData *note = exif_data_get_mnote_data(ed);
    if (note && exif_mnote_data_count(note) == 0) exif_data_set_option(ed, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
    sf_exif_set_number(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION, 1);
    sf_exif_set_number(ed, EXIF_IFD_EXIF, EXIF_TAG_PIXEL_X_DIMENSION, width);
    sf_exif_set_number(ed, EXIF_IFD_EXIF, EXIF_TAG_PIXEL_Y_DIMENSION, height);
    if (ed->data) { free(ed->data); ed->data = NULL; ed->size = 0; }
    unsigned char *out = NULL;
    exif_data_save_data(ed, &out, out_size);
    exif_data_unref(ed);
    return out;
}

/// The orientation (1...8) and pixel dimensions an EXIF block holds (0 where absent), for tests and `info`.
static inline void sf_exif_read(const unsigned char *data, unsigned int size, int *orientation, int *width, int *height) {
    *orientation = 0; *width = 0; *height = 0;
    ExifData *ed = exif_data_new_from_data(data, size);
    if (!ed) return;
    ExifByteOrder order = exif_data_get_byte_order(ed);
    ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (e && e->format == EXIF_FORMAT_SHORT && e->size >= 2) *orientation = exif_get_short(e->data, order);
    ExifTag tags[2] = {EXIF_TAG_PIXEL_X_DIMENSION, EXIF_TAG_PIXEL_Y_DIMENSION};
    int *outs[2] = {width, height};
    for (int i = 0; i < 2; i++) {
        ExifEntry *d = exif_content_get_entry(ed->ifd[EXIF_IFD_EXIF], tags[i]);
        if (!d || !d->data) continue;
        if (d->format == EXIF_FORMAT_SHORT && d->size >= 2) *outs[i] = exif_get_short(d->data, order);
        else if (d->format == EXIF_FORMAT_LONG && d->size >= 4) *outs[i] = (int)exif_get_long(d->data, order);
    }
    exif_data_unref(ed);
}
#endif
