#include "CurlShim.h"
#include <pthread.h>

static pthread_once_t photos_curl_once = PTHREAD_ONCE_INIT;
static CURLcode photos_curl_init_result = CURLE_FAILED_INIT;

static void photos_curl_init(void) {
    photos_curl_init_result = curl_global_init(CURL_GLOBAL_ALL);
}

CURLcode photos_curl_global_init_once(void) {
    pthread_once(&photos_curl_once, photos_curl_init);
    return photos_curl_init_result;
}

CURLcode photos_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_data_callback(CURL *easy, CURLoption option, photos_curl_data_callback value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode photos_curl_easy_setopt_xferinfo_callback(CURL *easy, photos_curl_xferinfo_callback value) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, value);
}

CURLcode photos_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode photos_curl_easy_getinfo_offset(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode photos_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode photos_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLMcode photos_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

bool photos_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return true;
        }
    }
    return false;
}
