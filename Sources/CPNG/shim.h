#ifndef PHOTOS_CPNG_SHIM_H
#define PHOTOS_CPNG_SHIM_H
#include <png.h>
#endif
