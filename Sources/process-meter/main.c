// Runs a program and reports its wall time and peak resident memory, as /usr/bin/time does,
// for `runanywhere bench startup`:
//
//   process-meter REPORT.json PROGRAM [ARG...]
//
// The program's standard streams are this process's; the report is one JSON object
// {"wall_ms", "max_rss_kib", "exit_status"}; the exit status is the program's.
//
// Why a program of its own: Linux counts the memory a process had before exec in its peak.
// A process started by a large parent through posix_spawn (which shares the parent's memory
// until exec) reports at least the parent's size; forked from this small one it reports its own.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_bench_support.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPORT.json PROGRAM [ARG...]\n", argv[0]);
        return 2;
    }
    double start = now_ms();
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        execv(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    double wall = now_ms() - start;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *report = fopen(argv[1], "w");
    if (!report) { perror(argv[1]); return 2; }
    fprintf(report, "{\"wall_ms\":%.3f,\"max_rss_kib\":%ld,\"exit_status\":%d}\n", wall, usage.ru_maxrss, code);
    fclose(report);
    return code;
}
