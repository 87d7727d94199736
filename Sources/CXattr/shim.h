#ifndef PHOTOS_CXATTR_SHIM_H
#define PHOTOS_CXATTR_SHIM_H
#include <sys/types.h>
#include <sys/xattr.h>
#endif
