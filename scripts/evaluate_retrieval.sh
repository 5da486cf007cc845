#!/usr/bin/env bash
# Retrieval quality of a RAG index on an IR test collection (BEIR layout prepared by
# scripts/prepare_ir_collection.py: corpus.jsonl, queries.jsonl, qrels.tsv):
# builds index NAME from the corpus (title and text, as BEIR evaluates), searches every
# query in bm25, vector and hybrid mode, and prints nDCG@10, recall and MRR for each
# (scripts/ir_evaluate.py; several chunks of one document count once, at the best rank).
#
#   scripts/evaluate_retrieval.sh COLLECTION_DIR [NAME] [CLI]
set -euo pipefail
collection="$1"
name="${2:-eval-$(basename "$collection")}"
cli="${3:-$(dirname "$0")/../.build/release/runanywhere}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$collection/corpus.jsonl" "$work/corpus.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as source, open(sys.argv[2], "w") as out:
    for line in source:
        doc = json.loads(line)
        text = (doc.get("title") or "").strip()
        text = f"{text}\n\n{doc['text']}" if text else doc["text"]
        out.write(json.dumps({"id": doc["id"], "title": doc.get("title"), "text": text}) + "\n")
PY

"$cli" rag delete "$name" >/dev/null 2>&1 || true
"$cli" rag create "$name" >&2
"$cli" rag ingest "$name" "$work/corpus.jsonl" --json >&2
for mode in bm25 vector hybrid; do
  start=$(date +%s.%N)
  "$cli" rag search "$name" --queries "$collection/queries.jsonl" --top-k 200 --mode "$mode" --json >"$work/run-$mode.jsonl"
  end=$(date +%s.%N)
  printf '{"mode": "%s", "seconds": %.1f, "metrics": %s}\n' "$mode" "$(echo "$end - $start" | bc)" \
    "$(python3 "$(dirname "$0")/ir_evaluate.py" --qrels "$collection/qrels.tsv" --run "$work/run-$mode.jsonl" | tr -d '\n')"
done
