// What the raw C baselines of `runanywhere bench` share.
#ifndef RAW_BENCH_SUPPORT_H
#define RAW_BENCH_SUPPORT_H

// A monotonic clock in milliseconds.
double now_ms(void);

// The whole file as a NUL-terminated string (malloc'd), or NULL.
char *read_file(const char *path);

#endif
