// Raw whisper.cpp baseline for `runanywhere bench stt`.
//
// Does exactly what the SDK's whisper.cpp backend does for one transcription, with
// nothing around it: the model loaded once; per repetition one whisper_full call with the
// same parameters (one greedy pass without temperature fallback, no context, English, and
// the threads, audio context and token bound the caller gives, as the SDK computes them).
// Prints one JSON object per repetition on stdout: {"ms": wall time of whisper_full,
// "fallbacks": whisper's temperature fallbacks, "encoder_runs" and "decoder_runs": how many
// times each ran, "tokens": tokens in the result, "no_speech": the first segment's no-speech
// probability, "text": transcript}.
//
// usage: raw-whisper-bench MODEL.bin AUDIO.f32 THREADS AUDIO_CTX MAX_TOKENS REPS
//   AUDIO.f32 holds raw little-endian float32 samples, 16 kHz mono.
#include <whisper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <raw_bench_support.h>

// whisper.cpp reports its temperature fallbacks and its encoder and decoder runs only in
// whisper_print_timings' log lines ("fallbacks = 2 p / 0 h", "encode time = … / 3 runs"):
// the log callback picks the counts out of them. The fallback count never resets.
static int fallbacks = 0, encodes = 0, decodes = 0;

static void quiet(enum ggml_log_level level, const char *text, void *data) {
    (void)data;
    const char *found;
    float ms;
    if ((found = strstr(text, "fallbacks ="))) sscanf(found, "fallbacks = %d", &fallbacks);
    if ((found = strstr(text, "encode time ="))) sscanf(found, "encode time = %f ms / %d", &ms, &encodes);
    if ((found = strstr(text, "decode time ="))) sscanf(found, "decode time = %f ms / %d", &ms, &decodes);
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') { putchar('\\'); putchar(*s); }
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s MODEL.bin AUDIO.f32 THREADS AUDIO_CTX MAX_TOKENS REPS\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[3]), audio_ctx = atoi(argv[4]), max_tokens = atoi(argv[5]), reps = atoi(argv[6]);
    FILE *f = fopen(argv[2], "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", argv[2]); return 1; }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    int n = (int)(bytes / 4);
    float *samples = malloc(sizeof(float) * (n > 0 ? n : 1));
    if (fread(samples, 4, n, f) != (size_t)n) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);

    whisper_log_set(quiet, NULL);
    struct whisper_context_params cparams = whisper_context_default_params();
    cparams.use_gpu = false;
    cparams.flash_attn = false;
    struct whisper_context *ctx = whisper_init_from_file_with_params(argv[1], cparams);
    if (!ctx) { fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }

    for (int r = 0; r < reps; r++) {
        struct whisper_full_params p = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
        p.n_threads = threads;
        p.print_progress = false;
        p.print_realtime = false;
        p.print_special = false;
        p.print_timestamps = false;
        p.no_context = true;
        p.audio_ctx = audio_ctx;
        p.suppress_blank = true;
        // As the SDK: one greedy pass, with the caller's token bound.
        p.temperature_inc = 0.0f;
        p.max_tokens = max_tokens;
        p.language = "en";
        p.detect_language = false;
        whisper_reset_timings(ctx);
        int fallbacks_before = fallbacks;
        encodes = decodes = 0;
        double t0 = now_ms();
        if (whisper_full(ctx, p, samples, n) != 0) { fprintf(stderr, "whisper_full failed\n"); return 1; }
        double ms = now_ms() - t0;
        whisper_print_timings(ctx);
        char text[4096] = "";
        int tokens = 0;
        float no_speech = 0;
        for (int i = 0; i < whisper_full_n_segments(ctx); i++) {
            strncat(text, whisper_full_get_segment_text(ctx, i), sizeof(text) - strlen(text) - 1);
            tokens += whisper_full_n_tokens(ctx, i);
            if (i == 0) no_speech = whisper_full_get_segment_no_speech_prob(ctx, i);
        }
        printf("{\"ms\": %.3f, \"fallbacks\": %d, \"encoder_runs\": %d, \"decoder_runs\": %d, \"tokens\": %d, "
               "\"no_speech\": %.4f, \"text\": ",
               ms, fallbacks - fallbacks_before, encodes, decodes, tokens, no_speech);
        print_json_string(text);
        printf("}\n");
        fflush(stdout);
    }
    whisper_free(ctx);
    free(samples);
    return 0;
}
