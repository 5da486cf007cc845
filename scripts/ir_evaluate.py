#!/usr/bin/env python3
"""Score a ranked retrieval run against relevance judgments.

    python3 scripts/ir_evaluate.py --qrels qrels.tsv --run run.jsonl [--per-query]

qrels.tsv  "query_id<TAB>doc_id<TAB>relevance" lines (a 4-column TREC qrels line
           "query_id iteration doc_id relevance" is accepted too). relevance is an integer
           grade; > 0 means relevant.
run.jsonl  one JSON object per line: {"query_id": ..., "results": [{"document_id": ...,
           "score": ...}, ...]}, results already ranked best first. The listed order is
           used as is (scores are not re-sorted); a document listed twice counts once, at
           its first position. Several lines for one query are concatenated in file order.

Prints one JSON object:

  ndcg@10     trec_eval ndcg_cut.10: DCG = sum over ranks r <= 10 of grade / log2(r + 1),
              divided by the DCG of the ideal ordering of the query's judged grades
  recall@10   |relevant in top 10| / |relevant|, and the same for recall@100
  mrr@10      1 / rank of the first relevant document within the top 10, else 0
  queries     number of queries averaged over: every query of the qrels with at least one
              relevant document. One missing from the run, or with no results, scores 0.
              Run queries absent from the qrels are skipped (counted in
              "run_queries_not_in_qrels"); qrels queries without any relevant document are
              skipped too, nDCG being undefined for them (counted in
              "qrels_queries_without_relevant"; pytrec_eval and ir_measures would average
              them in as 0).

Plain Python 3 standard library. Exit status 0 on success; 1 with "error: ..." on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

CUTOFF_NDCG = 10
CUTOFF_MRR = 10
RECALL_CUTOFFS = (10, 100)


class EvalError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(1, f"error: {message} (see --help)\n")


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open("r", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cols = line.split()
            if not cols:
                continue
            if len(cols) == 4:
                cols = [cols[0], cols[2], cols[3]]
            if len(cols) != 3:
                raise EvalError(f"{path}:{n}: expected query_id, doc_id, relevance")
            try:
                grade = int(cols[2])
            except ValueError:
                if n == 1:
                    continue  # a header line
                raise EvalError(f"{path}:{n}: relevance {cols[2]!r} is not an integer") from None
            docs = qrels.setdefault(cols[0], {})
            docs[cols[1]] = max(grade, docs.get(cols[1], grade))
    return qrels


def read_run(path: Path) -> dict[str, list[str]]:
    run: dict[str, list[str]] = {}
    with path.open("r", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise EvalError(f"{path}:{n}: not JSON: {e}") from None
            if not isinstance(obj, dict) or "query_id" not in obj:
                raise EvalError(f"{path}:{n}: expected an object with query_id and results")
            results = obj.get("results") or []
            if not isinstance(results, list):
                raise EvalError(f"{path}:{n}: results is not a list")
            ranked = run.setdefault(str(obj["query_id"]), [])
            for r in results:
                if not isinstance(r, dict) or "document_id" not in r:
                    raise EvalError(f"{path}:{n}: a result has no document_id")
                ranked.append(str(r["document_id"]))
    for qid, docs in run.items():  # keep each document's first position only
        seen: set[str] = set()
        run[qid] = [d for d in docs if not (d in seen or seen.add(d))]
    return run


def dcg(gains: list[int]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0)


def score_query(ranked: list[str], judged: dict[str, int]) -> dict[str, float]:
    relevant = {d for d, g in judged.items() if g > 0}
    top = ranked[:CUTOFF_NDCG]
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:CUTOFF_NDCG])
    out = {f"ndcg@{CUTOFF_NDCG}": dcg([judged.get(d, 0) for d in top]) / ideal}
    for k in RECALL_CUTOFFS:
        out[f"recall@{k}"] = len(relevant.intersection(ranked[:k])) / len(relevant)
    rr = 0.0
    for i, d in enumerate(ranked[:CUTOFF_MRR]):
        if d in relevant:
            rr = 1.0 / (i + 1)
            break
    out[f"mrr@{CUTOFF_MRR}"] = rr
    return out


def evaluate(qrels: dict[str, dict[str, int]], run: dict[str, list[str]],
             per_query: bool = False) -> dict:
    evaluated = [q for q in qrels if any(g > 0 for g in qrels[q].values())]
    names = ([f"ndcg@{CUTOFF_NDCG}"] + [f"recall@{k}" for k in RECALL_CUTOFFS]
             + [f"mrr@{CUTOFF_MRR}"])
    totals = dict.fromkeys(names, 0.0)
    per: dict[str, dict[str, float]] = {}
    without_results = 0
    for q in evaluated:
        ranked = run.get(q, [])
        if not ranked:
            without_results += 1
        s = score_query(ranked, qrels[q])
        per[q] = s
        for k in names:
            totals[k] += s[k]
    n = len(evaluated)
    result: dict = {k: (round(totals[k] / n, 6) if n else 0.0) for k in names}
    result.update({
        "queries": n,
        "queries_without_results": without_results,
        "run_queries_not_in_qrels": sum(1 for q in run if q not in qrels),
        "qrels_queries_without_relevant": len(qrels) - n,
    })
    if per_query:
        result["per_query"] = {q: {k: round(v, 6) for k, v in s.items()} for q, s in per.items()}
    return result


def main(argv: list[str]) -> int:
    p = _Parser(description="nDCG@10, recall@10/100 and MRR@10 of a ranked run.")
    p.add_argument("--qrels", required=True, type=Path)
    p.add_argument("--run", required=True, type=Path)
    p.add_argument("--per-query", action="store_true", help="also print each query's scores")
    args = p.parse_args(argv)
    try:
        qrels = read_qrels(args.qrels)
        if not qrels:
            raise EvalError(f"{args.qrels}: no judgments")
        result = evaluate(qrels, read_run(args.run), args.per_query)
    except (EvalError, OSError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
