#ifndef PHOTOS_CCURL_SHIM_H
#define PHOTOS_CCURL_SHIM_H
#include <curl/curl.h>
#endif
