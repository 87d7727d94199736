#ifndef PHOTOS_STANDARD_STREAMS_H
#define PHOTOS_STANDARD_STREAMS_H

#include <stdbool.h>

/// Whether file descriptor `descriptor` (0, 1 or 2) was closed when photos started
/// (`photos list >&-`). It is open on /dev/null since, so that no file photos opens takes its
/// number: output meant for a closed stdout would otherwise land in whatever file took
/// descriptor 1 (the cache's index, a download).
bool photos_standard_stream_was_closed(int descriptor);

#endif
