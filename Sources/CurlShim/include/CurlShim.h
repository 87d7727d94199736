#ifndef PHOTOS_CURL_SHIM_H
#define PHOTOS_CURL_SHIM_H

// Typed, non-variadic wrappers around libcurl's variadic calls, one per argument type.
// Swift cannot call C variadics; every symbol here is prefixed `photos_curl_`.

#include <curl/curl.h>
#include <stdbool.h>

typedef size_t (*photos_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*photos_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                             curl_off_t ultotal, curl_off_t ulnow);

/// Initialises libcurl once per process (thread-safe); returns the result of the first call.
CURLcode photos_curl_global_init_once(void);

CURLcode photos_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode photos_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value);
CURLcode photos_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode photos_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode photos_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
CURLcode photos_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, photos_curl_data_callback value);
CURLcode photos_curl_easy_setopt_xferinfo_callback(CURL *easy, photos_curl_xferinfo_callback value);

CURLcode photos_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode photos_curl_easy_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode photos_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLcode photos_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);

CURLMcode photos_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// Reads one finished transfer from the multi handle. Returns false when no message is left.
bool photos_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

#endif
