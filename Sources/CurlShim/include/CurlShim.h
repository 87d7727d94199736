#ifndef PHOTOS_CURL_SHIM_H
#define PHOTOS_CURL_SHIM_H

// Typed, non-variadic wrappers around libcurl's variadic calls, one per argument type.
// Swift cannot call C variadics; every symbol here is prefixed `photos_curl_`.

#include <curl/curl.h>
#include <stdbool.h>

typedef size_t (*photos_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);

/// Loads libcurl and initialises it, once per process (thread-safe); returns the result of the
/// first call (CURLE_FAILED_INIT when libcurl cannot be loaded). Call it before anything else.
///
/// libcurl is loaded with dlopen on first use rather than linked: a command that never touches
/// the network (`photos list --offline`) does not pay for loading libcurl and its thirty-odd
/// dependencies at start-up.
CURLcode photos_curl_global_init_once(void);

/// What the loaded libcurl is and can do (version, TLS library, HTTP/2); NULL when libcurl
/// cannot be loaded.
const curl_version_info_data *photos_curl_version_info(void);

CURL *photos_curl_easy_init(void);
void photos_curl_easy_cleanup(CURL *easy);
const char *photos_curl_easy_strerror(CURLcode code);
struct curl_slist *photos_curl_slist_append(struct curl_slist *list, const char *text);
void photos_curl_slist_free_all(struct curl_slist *list);

CURLM *photos_curl_multi_init(void);
CURLMcode photos_curl_multi_cleanup(CURLM *multi);
CURLMcode photos_curl_multi_add_handle(CURLM *multi, CURL *easy);
CURLMcode photos_curl_multi_remove_handle(CURLM *multi, CURL *easy);
CURLMcode photos_curl_multi_perform(CURLM *multi, int *running);
CURLMcode photos_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds,
                                 int timeout_ms, int *numfds);
CURLMcode photos_curl_multi_wakeup(CURLM *multi);

CURLcode photos_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode photos_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value);
CURLcode photos_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode photos_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode photos_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
CURLcode photos_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, photos_curl_data_callback value);

CURLcode photos_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode photos_curl_easy_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode photos_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);

CURLMcode photos_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// Reads one finished transfer from the multi handle. Returns false when no message is left.
bool photos_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

#endif
