#ifndef SFUMATO_CLCMS2_SHIM_H
#define SFUMATO_CLCMS2_SHIM_H
#include <lcms2.h>
// lcms2's pixel-type constants are macros Swift cannot import.
static const cmsUInt32Number SF_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number SF_TYPE_RGBA_16 = TYPE_RGBA_16;
static const cmsUInt32Number SF_TYPE_RGBA_FLT = TYPE_RGBA_FLT;
static const cmsUInt32Number SF_TYPE_CMYK_8 = TYPE_CMYK_8;
static const cmsUInt32Number SF_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
static const cmsUInt32Number SF_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number SF_FLAGS_COPY_ALPHA = cmsFLAGS_COPY_ALPHA;
#endif
