// Raw llama.cpp baseline for `runanywhere bench llm`.
//
// Does exactly what the SDK's llama.cpp backend does for one greedy generation, with
// nothing around it: one context created once; per repetition forget the KV cache (as the
// SDK's llama_memory_seq_rm does: the cells' metadata, not a wipe of their data), make the
// sampler, tokenize, decode the prompt in batches, then sample/decode a fixed number of tokens
// (end-of-sequence ignored). Timing uses the same definitions and the same start as the SDK:
//   ttft_ms  = start of the request (before the cache is forgotten and the prompt
//              tokenized) -> first token's text available
//   gen_tps  = (n - 1) / (time between first and last token)
//   prompt_tps = prompt tokens / ttft
//   load_ms  = backend start, model and context (the SDK's first load does all three)
// Prints one JSON object per repetition on stdout. It exits without freeing the model or the
// context, as the runanywhere CLI does, so both sides end the same way.
//
// With N_SEQ > 1 (the baseline of `runanywhere bench serve`) it decodes N_SEQ sequences
// together, as the SDK's batch decoder does: one KV stream of CTX cells per sequence, the
// prompts in one batch, then one token of every sequence per llama_decode. gen_tps is then the
// aggregate: N_SEQ * (N_GEN - 1) / (time between first and last step). With `chat` as the
// last argument each line of PROMPT_FILE is one user message, written through the model's chat
// template as the server writes it, and sequence s takes line s modulo the number of lines.
//
// usage: raw-llama-bench MODEL.gguf PROMPT_FILE N_GEN THREADS REPS CTX [N_SEQ [chat]]
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

// The prompt of each of N_SEQ sequences: the whole file, or with `chat` each line (cycled)
// through the model's chat template with the generation prompt added. Tokenized with BOS and
// special tokens, as the SDK tokenizes a prompt. Returns the token count or -1.
static int sequence_tokens(const struct llama_model *model, const struct llama_vocab *vocab, char *file, int chat,
                           int s, llama_token *out, int max_tokens) {
    const char *text = file;
    char *line = NULL, *templated = NULL;
    if (chat) {
        int lines = 0;
        for (char *p = file; *p; p++) lines += *p == '\n' || p[1] == 0;
        int wanted = s % (lines ? lines : 1), at = 0;
        char *start = file;
        for (char *p = file; *p && at < wanted; p++) if (*p == '\n') { at++; start = p + 1; }
        size_t length = strcspn(start, "\n");
        line = strndup(start, length);
        struct llama_chat_message message = {"user", line};
        int size = (int)length * 2 + 1024;
        templated = malloc(size);
        int written = llama_chat_apply_template(llama_model_chat_template(model, NULL), &message, 1, true, templated, size);
        if (written < 0 || written >= size) { free(line); free(templated); return -1; }
        templated[written] = 0;
        text = templated;
    }
    int n = llama_tokenize(vocab, text, (int)strlen(text), out, max_tokens, true, true);
    free(line);
    free(templated);
    return n;
}

// N_SEQ sequences decoded together; see the header.
static int run_batched(struct llama_context *ctx, const struct llama_model *model, const struct llama_vocab *vocab,
                       char *prompt, int chat, int n_gen, int reps, int n_ctx, int n_seq, double load_ms) {
    int max_tokens = (int)strlen(prompt) + 1024;
    llama_token *tokens = malloc(sizeof(llama_token) * max_tokens * n_seq);
    int *n_prompt = malloc(sizeof(int) * n_seq);
    int total = 0;
    for (int s = 0; s < n_seq; s++) {
        n_prompt[s] = sequence_tokens(model, vocab, prompt, chat, s, tokens + s * max_tokens, max_tokens);
        if (n_prompt[s] < 0 || n_prompt[s] + n_gen > n_ctx) { fprintf(stderr, "prompt does not fit\n"); return 1; }
        total += n_prompt[s];
    }
    if (total > 2048) { fprintf(stderr, "prompts do not fit one batch\n"); return 1; }
    struct llama_batch batch = llama_batch_init(total > n_seq ? total : n_seq, 0, 1);
    llama_token *next = malloc(sizeof(llama_token) * n_seq);
    int *last_row = malloc(sizeof(int) * n_seq);
    struct llama_sampler **samplers = malloc(sizeof(struct llama_sampler *) * n_seq);
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_ms();
        llama_memory_clear(llama_get_memory(ctx), false);
        for (int s = 0; s < n_seq; s++) {
            samplers[s] = llama_sampler_chain_init(llama_sampler_chain_default_params());
            llama_sampler_chain_add(samplers[s], llama_sampler_init_greedy());
        }
        batch.n_tokens = 0;
        for (int s = 0; s < n_seq; s++) {
            for (int i = 0; i < n_prompt[s]; i++) {
                int r = batch.n_tokens++;
                batch.token[r] = tokens[s * max_tokens + i];
                batch.pos[r] = i;
                batch.n_seq_id[r] = 1;
                batch.seq_id[r][0] = s;
                batch.logits[r] = i == n_prompt[s] - 1;
                if (i == n_prompt[s] - 1) last_row[s] = r;
            }
        }
        if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
        for (int s = 0; s < n_seq; s++) next[s] = llama_sampler_sample(samplers[s], ctx, last_row[s]);
        double t_first = now_ms(), t_last = t_first;
        for (int step = 1; step < n_gen; step++) {
            batch.n_tokens = 0;
            for (int s = 0; s < n_seq; s++) {
                int r = batch.n_tokens++;
                batch.token[r] = next[s];
                batch.pos[r] = n_prompt[s] + step - 1;
                batch.n_seq_id[r] = 1;
                batch.seq_id[r][0] = s;
                batch.logits[r] = 1;
            }
            if (llama_decode(ctx, batch) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
            for (int s = 0; s < n_seq; s++) next[s] = llama_sampler_sample(samplers[s], ctx, s);
            t_last = now_ms();
        }
        double ttft = t_first - t0;
        printf("{\"rep\":%d,\"load_ms\":%.3f,\"sequences\":%d,\"prompt_tokens\":%d,\"generated_tokens\":%d,"
               "\"ttft_ms\":%.3f,\"generation_tps\":%.3f,\"total_ms\":%.3f,\"aggregate_tps\":%.3f}\n",
               rep, load_ms, n_seq, total, n_gen * n_seq, ttft,
               n_seq * (n_gen - 1) / ((t_last - t_first) / 1e3), t_last - t0,
               n_seq * n_gen / ((t_last - t0) / 1e3));
        fflush(stdout);
        for (int s = 0; s < n_seq; s++) llama_sampler_free(samplers[s]);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 7 || argc > 9 || (argc == 9 && strcmp(argv[8], "chat") != 0)) {
        fprintf(stderr, "usage: %s MODEL.gguf PROMPT_FILE N_GEN THREADS REPS CTX [N_SEQ [chat]]\n", argv[0]);
        return 2;
    }
    int n_seq = argc >= 8 ? atoi(argv[7]) : 1;
    int chat = argc == 9;
    const char *model_path = argv[1];
    char *prompt = read_file(argv[2]);
    int n_gen = atoi(argv[3]), threads = atoi(argv[4]), reps = atoi(argv[5]), n_ctx = atoi(argv[6]);
    if (!prompt || n_gen < 2 || threads < 1 || reps < 1 || n_ctx < 16 || n_seq < 1 || n_seq > 64) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }

    double t_load = now_ms();
    llama_log_set(quiet, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(model_path, mp);
    if (!model) { fprintf(stderr, "cannot load %s\n", model_path); return 1; }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_ctx * n_seq;
    cp.n_seq_max = n_seq;
    cp.kv_unified = n_seq == 1;
    cp.n_batch = n_ctx * n_seq < 2048 ? n_ctx * n_seq : 2048;
    cp.n_ubatch = n_ctx * n_seq < 512 ? n_ctx * n_seq : 512;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = true;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) { fprintf(stderr, "cannot create context\n"); return 1; }
    double load_ms = now_ms() - t_load;
    const struct llama_vocab *vocab = llama_model_get_vocab(model);

    int max_tokens = (int)strlen(prompt) + 8;
    llama_token *tokens = malloc(sizeof(llama_token) * max_tokens);
    char piece[256];

    // Nothing is freed on the way out: the runanywhere CLI exits with its model loaded too.
    if (n_seq > 1 || chat) return run_batched(ctx, model, vocab, prompt, chat, n_gen, reps, n_ctx, n_seq, load_ms);

    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_ms();
        llama_memory_clear(llama_get_memory(ctx), false);
        struct llama_sampler *smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
        llama_sampler_chain_add(smpl, llama_sampler_init_greedy());
        int n_prompt = llama_tokenize(vocab, prompt, (int)strlen(prompt), tokens, max_tokens, true, true);
        if (n_prompt < 0 || n_prompt + n_gen > n_ctx) { fprintf(stderr, "prompt does not fit\n"); return 1; }
        for (int off = 0; off < n_prompt; off += cp.n_batch) {
            int n = n_prompt - off < (int)cp.n_batch ? n_prompt - off : (int)cp.n_batch;
            if (llama_decode(ctx, llama_batch_get_one(tokens + off, n)) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
        }
        double t_first = 0, t_last = 0;
        long bytes = 0;
        for (int i = 0; i < n_gen; i++) {
            llama_token tok = llama_sampler_sample(smpl, ctx, -1);
            int n = llama_token_to_piece(vocab, tok, piece, sizeof piece, 0, false);
            if (n > 0) bytes += n;
            double t = now_ms();
            if (i == 0) t_first = t;
            t_last = t;
            if (i + 1 == n_gen) break;
            if (llama_decode(ctx, llama_batch_get_one(&tok, 1)) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
        }
        double ttft = t_first - t0;
        printf("{\"rep\":%d,\"load_ms\":%.3f,\"prompt_tokens\":%d,\"generated_tokens\":%d,\"ttft_ms\":%.3f,"
               "\"prompt_tps\":%.3f,\"generation_tps\":%.3f,\"total_ms\":%.3f,\"bytes\":%ld}\n",
               rep, load_ms, n_prompt, n_gen, ttft, n_prompt / (ttft / 1e3),
               (n_gen - 1) / ((t_last - t_first) / 1e3), t_last - t0, bytes);
        fflush(stdout);
        llama_sampler_free(smpl);
    }
    return 0;
}
