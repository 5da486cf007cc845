// Raw llama.cpp baseline of `runanywhere bench lora`.
//
// One context made as the SDK makes it (one slot). Each repetition first generates N_BETWEEN
// greedy tokens with no adapter, with A and B, and with A alone (the generation speeds), then
// measures a pair of requests, each after a request of N_BETWEEN tokens under adapter A:
//   same:     adapter A again;
//   switched: adapter B.
// A request clears the KV cache, sets its adapter (llama_set_adapters_lora, which marks the
// scheduler for a re-reserve when the set changes), decodes the prompt and samples one token;
// ttft_ms is the time from the adapter call to that token, as the SDK's time to first token.
// The prompt file is used as it is (no chat template), as the SDK's side is asked to.
// Prints one JSON object per repetition on stdout, after one unprinted warm-up pair.
//
// usage: raw-lora-bench MODEL.gguf ADAPTER_A.gguf ADAPTER_B.gguf PROMPT_FILE THREADS REPS CTX N_BETWEEN
#include <llama.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <raw_bench_support.h>

static void quiet(enum ggml_log_level level, const char *text, void *data) {
    (void)data;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

struct bench {
    struct llama_context *ctx;
    struct llama_sampler *greedy;
    llama_token *tokens;
    int n_prompt;
};

// One request under `n` adapters at scale 1 (none when `n` is 0): the prompt, then `n_gen`
// tokens. Returns the time to the first token in ms and sets `*tps` to the generation speed
// after it, as the SDK defines both; negative when llama.cpp fails.
static double request(struct bench *b, struct llama_adapter_lora **adapters, size_t n, int n_gen, double *tps) {
    float scales[2] = {1.0f, 1.0f};
    double t0 = now_ms();
    if (llama_set_adapters_lora(b->ctx, n ? adapters : NULL, n, n ? scales : NULL) != 0) return -1;
    llama_memory_seq_rm(llama_get_memory(b->ctx), 0, -1, -1);
    if (llama_decode(b->ctx, llama_batch_get_one(b->tokens, b->n_prompt)) != 0) return -1;
    llama_token token = llama_sampler_sample(b->greedy, b->ctx, -1);
    double t_first = now_ms();
    for (int i = 1; i < n_gen; i++) {
        if (llama_decode(b->ctx, llama_batch_get_one(&token, 1)) != 0) return -1;
        token = llama_sampler_sample(b->greedy, b->ctx, -1);
    }
    if (tps) *tps = n_gen > 1 ? (n_gen - 1) / ((now_ms() - t_first) / 1e3) : 0;
    return t_first - t0;
}

int main(int argc, char **argv) {
    if (argc != 9) {
        fprintf(stderr, "usage: %s MODEL.gguf ADAPTER_A.gguf ADAPTER_B.gguf PROMPT_FILE THREADS REPS CTX N_BETWEEN\n",
                argv[0]);
        return 2;
    }
    char *prompt = read_file(argv[4]);
    int threads = atoi(argv[5]), reps = atoi(argv[6]), n_ctx = atoi(argv[7]), n_between = atoi(argv[8]);
    if (!prompt || threads < 1 || reps < 1 || n_ctx < 16 || n_between < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }

    llama_log_set(quiet, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    struct llama_adapter_lora *a = llama_adapter_lora_init(model, argv[2]);
    struct llama_adapter_lora *b = llama_adapter_lora_init(model, argv[3]);
    if (!a || !b) {
        fprintf(stderr, "cannot load the adapters\n");
        return 1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_ctx;
    cp.n_seq_max = 1;
    cp.kv_unified = true;
    cp.n_batch = n_ctx < 2048 ? n_ctx : 2048;
    cp.n_ubatch = n_ctx < 512 ? n_ctx : 512;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = true;
    struct bench bench = {0};
    bench.ctx = llama_init_from_model(model, cp);
    if (!bench.ctx) {
        fprintf(stderr, "cannot create context\n");
        return 1;
    }
    bench.greedy = llama_sampler_init_greedy();
    int max_tokens = (int)strlen(prompt) + 8;
    bench.tokens = malloc(sizeof(llama_token) * max_tokens);
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    bench.n_prompt = llama_tokenize(vocab, prompt, (int)strlen(prompt), bench.tokens, max_tokens, true, true);
    if (bench.n_prompt < 1 || bench.n_prompt + n_between > n_ctx || bench.n_prompt > (int)cp.n_batch) {
        fprintf(stderr, "prompt does not fit\n");
        return 1;
    }

    struct llama_adapter_lora *both[2] = {a, b};
    for (int rep = -1; rep < reps; rep++) {
        double same, switched, tps_none, tps_one, tps_two;
        if (request(&bench, NULL, 0, n_between, &tps_none) < 0 || request(&bench, both, 2, n_between, &tps_two) < 0 ||
            request(&bench, &a, 1, n_between, &tps_one) < 0 || (same = request(&bench, &a, 1, 1, NULL)) < 0 ||
            request(&bench, &a, 1, n_between, NULL) < 0 || (switched = request(&bench, &b, 1, 1, NULL)) < 0) {
            fprintf(stderr, "decode failed\n");
            return 1;
        }
        if (rep < 0) continue;
        printf("{\"rep\":%d,\"prompt_tokens\":%d,\"same_ms\":%.3f,\"switched_ms\":%.3f,\"tokens_per_second_none\":%.3f,"
               "\"tokens_per_second_one\":%.3f,\"tokens_per_second_two\":%.3f}\n",
               rep, bench.n_prompt, same, switched, tps_none, tps_one, tps_two);
        fflush(stdout);
    }
    llama_sampler_free(bench.greedy);
    free(bench.tokens);
    free(prompt);
    llama_free(bench.ctx);
    llama_adapter_lora_free(a);
    llama_adapter_lora_free(b);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
