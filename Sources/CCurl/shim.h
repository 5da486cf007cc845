#pragma once
// libcurl (Debian's libcurl4-openssl-dev), the transfer engine behind model downloads.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these
// typed wrappers are the only way in.
#include <curl/curl.h>

static inline CURLcode ra_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ra_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ra_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ra_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ra_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*ra_curl_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode ra_curl_setopt_data_callback(CURL *handle, CURLoption option, ra_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
typedef int (*ra_curl_progress_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ra_curl_setopt_progress_callback(CURL *handle, ra_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline long ra_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
static inline curl_off_t ra_curl_content_length(CURL *handle) {
    curl_off_t length = -1;
    curl_easy_getinfo(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}
