#pragma once
// libcurl (Debian's libcurl4-openssl-dev), the transfer engine behind model downloads.
//
// Nothing here links it: `CurlLibrary` opens libcurl.so.4 on the first transfer, so a process
// that downloads nothing maps neither libcurl nor the TLS, Kerberos, LDAP and SSH libraries it
// brings (8,000 symbol bindings at start-up when linked). The header gives the constants and,
// through these typedefs, each function's exact type for the pointer looked up at run time.
#include <curl/curl.h>

typedef __typeof__(curl_global_init) *ra_curl_global_init_fn;
typedef __typeof__(curl_easy_init) *ra_curl_easy_init_fn;
typedef __typeof__(curl_easy_cleanup) *ra_curl_easy_cleanup_fn;
typedef __typeof__(curl_easy_perform) *ra_curl_easy_perform_fn;
typedef __typeof__(curl_easy_strerror) *ra_curl_easy_strerror_fn;
typedef __typeof__(curl_slist_append) *ra_curl_slist_append_fn;
typedef __typeof__(curl_slist_free_all) *ra_curl_slist_free_all_fn;
typedef __typeof__(curl_version) *ra_curl_version_fn;

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these typed
// wrappers call them through the pointer (`setopt`, `getinfo`) with C's variadic convention.
typedef __typeof__(curl_easy_setopt) *ra_curl_setopt_fn;
typedef __typeof__(curl_easy_getinfo) *ra_curl_getinfo_fn;

static inline CURLcode ra_curl_setopt_long(void *setopt, CURL *handle, CURLoption option, long value) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, value);
}
static inline CURLcode ra_curl_setopt_offset(void *setopt, CURL *handle, CURLoption option, curl_off_t value) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, value);
}
static inline CURLcode ra_curl_setopt_string(void *setopt, CURL *handle, CURLoption option, const char *value) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, value);
}
static inline CURLcode ra_curl_setopt_pointer(void *setopt, CURL *handle, CURLoption option, const void *value) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, value);
}
static inline CURLcode ra_curl_setopt_slist(void *setopt, CURL *handle, CURLoption option, struct curl_slist *value) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, value);
}
typedef size_t (*ra_curl_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode ra_curl_setopt_data_callback(
    void *setopt, CURL *handle, CURLoption option, ra_curl_data_callback callback
) {
    return ((ra_curl_setopt_fn)setopt)(handle, option, callback);
}
typedef int (*ra_curl_progress_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ra_curl_setopt_progress_callback(void *setopt, CURL *handle, ra_curl_progress_callback callback) {
    return ((ra_curl_setopt_fn)setopt)(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline long ra_curl_response_code(void *getinfo, CURL *handle) {
    long code = 0;
    ((ra_curl_getinfo_fn)getinfo)(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
static inline curl_off_t ra_curl_content_length(void *getinfo, CURL *handle) {
    curl_off_t length = -1;
    ((ra_curl_getinfo_fn)getinfo)(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}
