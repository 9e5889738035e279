"""The bm25s side of the search benchmark (driven by bench/search/run.ts; needs bench/.venv).

Uses bm25s exactly as the recipe's search.py does: tokenize(stopwords="en", stemmer=english),
BM25() defaults, save with the corpus, load with the corpus, tokenize + retrieve per query.

  build  CORPUS INDEX_DIR OUT.json [N]      build time, peak RSS of this process, size on disk (of the
                                           first N documents with N; each phase's end goes to stderr)
  query  INDEX_DIR QUERIES.json K OUT.json   load time; per backend: per-query seconds and top-K
  stems  WORDS.txt OUT.txt                   PyStemmer english stem of each line
  tokens CORPUS OUT.json                     bm25s tokens of each "{title}. {text}"
"""
import json
import os
import resource
import sys
import time

os.environ.setdefault("DISABLE_TQDM", "1")

import bm25s  # noqa: E402
import Stemmer  # noqa: E402

STEMMER = Stemmer.Stemmer("english")


def read_corpus(path, limit=None):
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if limit is not None and len(docs) >= limit:
                break
            if line.strip():
                docs.append(json.loads(line))
    return docs


def phase(name, docs, start):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"bm25s build: {name}, {docs} documents, {time.perf_counter() - start:.0f} s, peak RSS {peak / 2**30:.2f} GiB",
          file=sys.stderr, flush=True)


def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def build(corpus_path, index_dir, out_path, limit=None):
    start = time.perf_counter()
    corpus = read_corpus(corpus_path, None if limit is None else int(limit))
    phase("corpus read", len(corpus), start)
    texts = [f"{doc['title']}. {doc['text']}" for doc in corpus]
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=STEMMER, show_progress=False)
    phase("tokenized", len(corpus), start)
    index = bm25s.BM25()
    index.index(tokens, show_progress=False)
    phase("indexed", len(corpus), start)
    index.save(index_dir, corpus=corpus)
    phase("saved", len(corpus), start)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    json.dump({"seconds": seconds, "peak_rss": peak, "bytes": dir_size(index_dir), "docs": len(corpus)}, open(out_path, "w"))


def query(index_dir, queries_path, k, out_path, backends):
    queries = json.load(open(queries_path, encoding="utf-8"))
    start = time.perf_counter()
    index = bm25s.BM25.load(index_dir, load_corpus=True, show_progress=False)
    load_seconds = time.perf_counter() - start
    out = {"load_seconds": load_seconds, "backends": {}}
    for backend in backends:
        index.backend = backend

        def search(q):
            tokens = bm25s.tokenize([q], stopwords="en", stemmer=STEMMER, show_progress=False)
            if not tokens.ids[0]:
                return [], []
            docs, scores = index.retrieve(tokens, k=k, show_progress=False)
            return [int(d["id"]) for d in docs[0]], [float(s) for s in scores[0]]

        search(queries[0])  # warm-up (numba compiles on first use)
        times, cpu, ids, scores = [], [], [], []
        for q in queries:
            t = time.perf_counter()
            c = time.process_time()
            i, s = search(q)
            cpu.append(time.process_time() - c)
            times.append(time.perf_counter() - t)
            ids.append(i)
            scores.append(s)
        out["backends"][backend] = {"seconds": times, "cpu_seconds": cpu, "ids": ids, "scores": scores}
    json.dump(out, open(out_path, "w"))


def stems(words_path, out_path):
    words = open(words_path, encoding="utf-8").read().split("\n")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(STEMMER.stemWords(words)))


def tokens(corpus_path, out_path):
    corpus = read_corpus(corpus_path)
    texts = [f"{doc['title']}. {doc['text']}" for doc in corpus]
    toks = bm25s.tokenize(texts, stopwords="en", stemmer=STEMMER, return_ids=False, show_progress=False)
    json.dump(toks, open(out_path, "w", encoding="utf-8"), ensure_ascii=False)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "build":
        build(*args)
    elif cmd == "query":
        query(args[0], args[1], int(args[2]), args[3], args[4].split(",") if len(args) > 4 else ["numpy", "numba"])
    elif cmd == "stems":
        stems(*args)
    elif cmd == "tokens":
        tokens(*args)
    else:
        sys.exit(f"unknown command {cmd}")
