#include "StandardStreams.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int closed_at_start = 0;

// Runs before the rest of photos (the Swift runtime, Dispatch and libraries open files of their
// own as they start): a standard descriptor found closed is opened on /dev/null. open() returns
// the lowest free number, which is the closed descriptor's own.
__attribute__((constructor)) static void photos_reserve_standard_streams(void) {
    for (int descriptor = 0; descriptor <= 2; descriptor++) {
        if (fcntl(descriptor, F_GETFD) != -1 || errno != EBADF) continue;
        closed_at_start |= 1 << descriptor;
        int null = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != descriptor) {
            dup2(null, descriptor);
            close(null);
        }
    }
}

bool photos_standard_stream_was_closed(int descriptor) {
    return descriptor >= 0 && descriptor <= 2 && (closed_at_start >> descriptor) & 1;
}
