#include "CurlShim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libcurl's entry points, resolved once by photos_curl_global_init_once.
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    curl_version_info_data *(*version_info)(CURLversion);
} curl;

static pthread_once_t photos_curl_once = PTHREAD_ONCE_INIT;
static CURLcode photos_curl_init_result = CURLE_FAILED_INIT;

#define PHOTOS_RESOLVE(field, symbol)                                   \
    do {                                                                \
        *(void **)(&curl.field) = dlsym(library, symbol);               \
        if (curl.field == NULL) return;                                 \
    } while (0)

static void photos_curl_init(void) {
#if defined(__APPLE__)
    void *library = dlopen("libcurl.4.dylib", RTLD_NOW | RTLD_LOCAL);
#else
    // Lazily bound: what libcurl's dependencies (Kerberos, LDAP, ...) never call is never looked
    // up. libcurl, libssl and libcrypto are linked BIND_NOW and are bound at once regardless.
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
#endif
    if (library == NULL) return;
    PHOTOS_RESOLVE(global_init, "curl_global_init");
    PHOTOS_RESOLVE(easy_init, "curl_easy_init");
    PHOTOS_RESOLVE(easy_cleanup, "curl_easy_cleanup");
    PHOTOS_RESOLVE(easy_strerror, "curl_easy_strerror");
    PHOTOS_RESOLVE(easy_setopt, "curl_easy_setopt");
    PHOTOS_RESOLVE(easy_getinfo, "curl_easy_getinfo");
    PHOTOS_RESOLVE(slist_append, "curl_slist_append");
    PHOTOS_RESOLVE(slist_free_all, "curl_slist_free_all");
    PHOTOS_RESOLVE(multi_init, "curl_multi_init");
    PHOTOS_RESOLVE(multi_cleanup, "curl_multi_cleanup");
    PHOTOS_RESOLVE(multi_add_handle, "curl_multi_add_handle");
    PHOTOS_RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    PHOTOS_RESOLVE(multi_perform, "curl_multi_perform");
    PHOTOS_RESOLVE(multi_poll, "curl_multi_poll");
    PHOTOS_RESOLVE(multi_wakeup, "curl_multi_wakeup");
    PHOTOS_RESOLVE(multi_setopt, "curl_multi_setopt");
    PHOTOS_RESOLVE(multi_info_read, "curl_multi_info_read");
    PHOTOS_RESOLVE(version_info, "curl_version_info");
    photos_curl_init_result = curl.global_init(CURL_GLOBAL_ALL);
}

CURLcode photos_curl_global_init_once(void) {
    pthread_once(&photos_curl_once, photos_curl_init);
    return photos_curl_init_result;
}

const curl_version_info_data *photos_curl_version_info(void) {
    if (photos_curl_global_init_once() != CURLE_OK) return NULL;
    return curl.version_info(CURLVERSION_NOW);
}

// Every function below is only reached after photos_curl_global_init_once returned CURLE_OK.

CURL *photos_curl_easy_init(void) { return curl.easy_init(); }
void photos_curl_easy_cleanup(CURL *easy) { curl.easy_cleanup(easy); }
const char *photos_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

struct curl_slist *photos_curl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}

void photos_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLM *photos_curl_multi_init(void) { return curl.multi_init(); }
CURLMcode photos_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
CURLMcode photos_curl_multi_add_handle(CURLM *multi, CURL *easy) { return curl.multi_add_handle(multi, easy); }
CURLMcode photos_curl_multi_remove_handle(CURLM *multi, CURL *easy) { return curl.multi_remove_handle(multi, easy); }
CURLMcode photos_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }

CURLMcode photos_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds,
                                 int timeout_ms, int *numfds) {
    return curl.multi_poll(multi, extra_fds, extra_nfds, timeout_ms, numfds);
}

CURLMcode photos_curl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }

CURLcode photos_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, photos_curl_data_callback value) {
    return curl.easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

CURLcode photos_curl_easy_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl.easy_getinfo(easy, info, value);
}

CURLcode photos_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl.easy_getinfo(easy, info, value);
}

CURLMcode photos_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl.multi_setopt(multi, option, value);
}

bool photos_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return true;
        }
    }
    return false;
}
