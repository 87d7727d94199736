#ifndef PHOTOS_CTURBOJPEG_SHIM_H
#define PHOTOS_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
