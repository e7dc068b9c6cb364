#ifndef SFUMATO_CWEBP_SHIM_H
#define SFUMATO_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <webp/demux.h>

// WebPGetDecoderVersion etc. are functions; the *_ABI_VERSION checks live in macros Swift
// cannot call, so the init helpers are wrapped here.
static inline int sf_webp_init_decoder_config(WebPDecoderConfig *config) { return WebPInitDecoderConfig(config); }
static inline int sf_webp_config_init(WebPConfig *config, float quality) {
    return WebPConfigPreset(config, WEBP_PRESET_DEFAULT, quality);
}
static inline int sf_webp_picture_init(WebPPicture *picture) { return WebPPictureInit(picture); }
static inline WebPMux *sf_webp_mux_new(void) { return WebPMuxNew(); }
static inline WebPDemuxer *sf_webp_demux(const WebPData *data) { return WebPDemux(data); }
static inline void sf_webp_data_init(WebPData *data) { WebPDataInit(data); }
static inline void sf_webp_data_clear(WebPData *data) { WebPDataClear(data); }
#endif
