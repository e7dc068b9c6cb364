#ifndef SFUMATO_CWEBSOCKETS_SHIM_H
#define SFUMATO_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
// LWS_PRE is a macro Swift cannot import.
static const int SF_LWS_PRE = LWS_PRE;
#endif
