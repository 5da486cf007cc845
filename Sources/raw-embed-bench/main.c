// Raw llama.cpp baseline for `runanywhere bench embed`.
//
// Does what the SDK's llama.cpp embedding backend does, with nothing around it: one
// context (embeddings on, n_ctx = n_batch = n_ubatch = the token budget rounded up to a
// multiple of 64 sequences, unified KV); per repetition, tokenize every text with special
// tokens, pack texts into batches (at most 64 sequences and the token budget each), decode,
// read each sequence's pooled vector and normalize it. Texts longer than the model's
// window are truncated here; the benchmark's texts all fit.
// Prints one JSON object per repetition on stdout: {"ms", "texts", "tokens"}.
//
// usage: raw-embed-bench MODEL.gguf TEXTS_FILE(one text per line) THREADS REPS BATCH_TOKENS
#include <llama.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <raw_bench_support.h>

#define MAX_SEQ 64

static void quiet(enum ggml_log_level level, const char *text, void *data) {
    (void)data;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s MODEL.gguf TEXTS_FILE THREADS REPS BATCH_TOKENS\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[3]), reps = atoi(argv[4]), asked = atoi(argv[5]);
    if (threads < 1 || reps < 1 || asked < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    int budget = (asked + MAX_SEQ - 1) / MAX_SEQ * MAX_SEQ;

    FILE *f = fopen(argv[2], "rb");
    if (!f) { fprintf(stderr, "cannot read %s\n", argv[2]); return 2; }
    int cap = 1024, n_texts = 0;
    char **texts = malloc(cap * sizeof(char *));
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (len == 0) continue;
        if (n_texts == cap) { cap *= 2; texts = realloc(texts, cap * sizeof(char *)); }
        texts[n_texts++] = strdup(line);
    }
    free(line);
    fclose(f);

    llama_log_set(quiet, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) { fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = budget;
    cp.n_batch = budget;
    cp.n_ubatch = budget;
    cp.n_seq_max = MAX_SEQ;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.embeddings = true;
    cp.kv_unified = true;
    cp.no_perf = true;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) { fprintf(stderr, "cannot create a context\n"); return 1; }
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    int dim = llama_model_n_embd(model);
    int window = llama_model_n_ctx_train(model);
    if (window > budget) window = budget;

    llama_token **tokens = malloc(n_texts * sizeof(llama_token *));
    int *counts = malloc(n_texts * sizeof(int));
    float *vector = malloc(dim * sizeof(float));
    struct llama_batch batch = llama_batch_init(budget, 0, 1);

    for (int rep = 0; rep < reps; rep++) {
        double start = now_ms();
        long total = 0;
        for (int i = 0; i < n_texts; i++) {
            int n = (int)strlen(texts[i]) + 8;
            tokens[i] = malloc(n * sizeof(llama_token));
            int got = llama_tokenize(vocab, texts[i], (int)strlen(texts[i]), tokens[i], n, true, false);
            if (got < 0) { fprintf(stderr, "tokenize failed\n"); return 1; }
            counts[i] = got > window ? window : got;
            total += counts[i] - 2;  // content tokens, as the SDK counts them
        }
        int next = 0;
        while (next < n_texts) {
            int end = next, used = 0;
            while (end < n_texts && end - next < MAX_SEQ && used + counts[end] <= budget) used += counts[end++];
            batch.n_tokens = 0;
            for (int s = next; s < end; s++) {
                for (int p = 0; p < counts[s]; p++) {
                    int slot = batch.n_tokens++;
                    batch.token[slot] = tokens[s][p];
                    batch.pos[slot] = p;
                    batch.n_seq_id[slot] = 1;
                    batch.seq_id[slot][0] = s - next;
                    batch.logits[slot] = 1;
                }
            }
            llama_memory_t mem = llama_get_memory(ctx);
            if (mem) llama_memory_clear(mem, true);
            if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
            for (int s = 0; s < end - next; s++) {
                const float *pooled = llama_get_embeddings_seq(ctx, s);
                if (!pooled) { fprintf(stderr, "no pooled vector\n"); return 1; }
                double norm = 0;
                for (int d = 0; d < dim; d++) norm += (double)pooled[d] * pooled[d];
                norm = sqrt(norm);
                for (int d = 0; d < dim; d++) vector[d] = (float)(pooled[d] / (norm > 0 ? norm : 1));
            }
            next = end;
        }
        double ms = now_ms() - start;
        for (int i = 0; i < n_texts; i++) free(tokens[i]);
        printf("{\"ms\": %.3f, \"texts\": %d, \"tokens\": %ld}\n", ms, n_texts, total);
        fflush(stdout);
    }
    llama_batch_free(batch);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
