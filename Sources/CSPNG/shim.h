#ifndef SFUMATO_CSPNG_SHIM_H
#define SFUMATO_CSPNG_SHIM_H
#include <stdio.h>
#include <spng.h>
#endif
