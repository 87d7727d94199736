#ifndef PHOTOS_CCHAFA_SHIM_H
#define PHOTOS_CCHAFA_SHIM_H
#include <chafa.h>
#endif
