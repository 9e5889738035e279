"""Regenerates the parity fixtures of test/unit/core/base/search from the real libraries (bench/.venv):

  bench/.venv/bin/python bench/search/make-fixtures.py

pystemmer-english.tsv  word<TAB>PyStemmer english stem: every 3rd distinct word of the real
                       HotpotQA paragraphs plus words that exercise each Snowball rule
bm25s-tokens.json      bm25s.tokenize(stopwords="en", stemmer=english) of tricky strings
"""
import glob
import json
import os
import re

import bm25s
import Stemmer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "test", "unit", "core", "search", "fixtures")
HOTPOT = os.path.join(os.path.dirname(ROOT), "shared", "data", "hotpotqa")

stemmer = Stemmer.Stemmer("english")
pattern = re.compile(r"(?u)\b\w\w+\b")

words = set()
for path in sorted(glob.glob(os.path.join(HOTPOT, "hotpotqa_distractor_*_partial.jsonl"))):
    for line in open(path, encoding="utf-8"):
        record = json.loads(line)
        words.update(pattern.findall(record["question"].lower()))
        for title, sentences in record["context"]:
            words.update(pattern.findall((title + " " + "".join(sentences)).lower()))
sample = sorted(words)[::3]
rules = """added adding hoped hopping hopeful dying lying tying vying inning innings outing canning herring earring
proceed proceeded exceed exceeding succeed succeeding agreed feed needed bleed skis skies sky news howe atlas cosmos
bias andes idly gently ugly early only singly generous generate general communication community arsenal universe
university universal later lateral emergency emerge organ organic organization international interval internal
pasted pasting paste past biologist biology anthropologist apology evening evenings crying cries ties tied
sses caresses ponies ties gas gaps kiwis bus abyss happily fluently relational conditional rational valency
hesitancy digitizer conformably radically differently analogously vietnamization predication operator feudalism
decisiveness hopefulness callousness formality sensitivity sensibility triplicate formative formalize electriciti
electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant
replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize
probate rate cease controll roll yes youth yay boyish enjoying sayings ayyy flying denying says played""".split()
pairs = sorted(set(sample) | set(rules))
with open(os.path.join(OUT, "pystemmer-english.tsv"), "w", encoding="utf-8") as f:
    for w, s in zip(pairs, stemmer.stemWords(pairs)):
        f.write(f"{w}\t{s}\n")

texts = [
    "Were Scott Derrickson and Ed Wood of the same nationality?",
    "The Exorcism of Emily Rose (2005) — directed by Scott Derrickson.",
    "Ünïcödé café naïve résumé Ærøskøbing Straße İstanbul ΣΊΣΥΦΟΣ όσος",
    "Hindi हिन्दी and Tamil தமிழ் words split at combining marks",
    "东京 is the capital; 東京都 has 13.96 million people; ½ and ² and ⅷ",
    "snake_case_words, e-mail, don't, O'Neill's, U.S.A., 3rd, 1990s, x2, a1 I a",
    "emoji 😀😀 and 𝒜𝒷𝒸 math letters 𠀀𠀁 rare CJK",
    "it is not the way that these are, to be or not to be",
    "",
]
tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
json.dump([{"text": t, "tokens": k} for t, k in zip(texts, tokens)], open(os.path.join(OUT, "bm25s-tokens.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
print(f"{len(pairs)} stems, {len(texts)} token cases")
