"""A reproducible batch of N filings: the 29 real filings of the data root and seeded mutations of them.

    python benchmarks/make_mutation_batch.py OUT_DIR [--count 1000] [--seed 43] [--data-root DIR]

Each mutated filing is a folder ``OUT_DIR/NNNN-<filing>`` holding the real filing's files, with its
instance document changed by one mutation that the project's own mutation module chooses
(:mod:`auditflow.mutations`): a seeded DQC 0015 sign flip (``sign_flip_targets``), and where a filing
has run out of those, a seeded perturbation of a numeric fact (``perturb``). The mutation is written
into the XML at the fact's own element, for the fact and its exact duplicates, as ``apply_mutation``
changes them in memory. The unchanged files are hard links to one copy per filing (``OUT_DIR/.bases``),
so 1,000 filings take the room of 29. Filings whose only document is inline XBRL (the ibm 10-K) are
kept as they are and not mutated. ``OUT_DIR/manifest.tsv`` lists each folder, its source filing and
its mutation. The same seed gives the same folders, byte for byte.

Used by benchmarks/bench_batch.py (docs/benchmarks.md, "Batch checks").
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
from pathlib import Path

from _common import filing_dirs  # also puts the repository root on sys.path

from auditflow.dataroot import resolve_data_root  # noqa: E402
from auditflow.graphs.environment import build_environment  # noqa: E402
from auditflow.mutations import Mutation, exact_duplicates, perturb, sign_flip_targets  # noqa: E402
from auditflow.xbrl.loader import plain_decimal  # noqa: E402
from auditflow.xbrl.model import Fact  # noqa: E402

def mutations_for(folder: Path, data_root: Path, rng: random.Random, want: int) -> list[tuple[Mutation, list[Fact]]]:
    """Up to ``want`` mutations of the filing in ``folder`` (each with the facts it changes), seeded."""
    env = build_environment(folder, filing_cache=False)
    facts = {f.key: f for f in env.filing.facts}
    out: list[tuple[Mutation, list[Fact]]] = []
    for target in sign_flip_targets(env, data_root, rng=rng, limit=want):
        out.append((target.mutation, exact_duplicates(env.filing, facts[target.mutation.fact])))
    numeric = [f for f in env.filing.facts if f.number is not None and f.line and f.document.endswith(".xml")]
    rng.shuffle(numeric)
    for fact in numeric[: max(0, want - len(out))]:
        out.append((perturb(fact), exact_duplicates(env.filing, fact)))
    return [(m, group) for m, group in out if all(f.document.endswith(".xml") and f.line for f in group)]


def new_text(mutation: Mutation, fact: Fact) -> str:
    if mutation.kind == "flip_sign":
        return plain_decimal(-fact.number)
    return plain_decimal(mutation.value)


def write_mutated(text: str, mutation: Mutation, group: list[Fact]) -> str:
    """``text`` (the instance) with each fact of ``group`` given the mutated value, found by its id, else
    by concept and context near its line."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for fact in sorted(group, key=lambda f: -(f.line or 0)):
        local = re.escape(fact.concept.local)
        tag = re.compile(r"<([\w.-]+:)?" + local + r"\b([^>]*)>([^<]*)<")
        pos = 0 if fact.id else starts[max(0, fact.line - 60)]  # the line of a long start tag is where it ends
        for m in tag.finditer(text, pos):
            attrs = m.group(2)
            if f'contextRef="{fact.context_id}"' not in attrs or (fact.id and f'id="{fact.id}"' not in attrs):
                continue
            a, b = m.span(3)
            text = text[:a] + new_text(mutation, fact) + text[b:]
            break
        else:
            raise LookupError(f"fact {fact.key} ({fact.concept}) not found from line {fact.line} of {fact.document}")
    return text


def make(out: Path, count: int, seed: int, data_root: Path) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    bases = out / ".bases"
    originals = filing_dirs(data_root, None)
    rows = []
    for i, src in enumerate(originals):  # the real filings themselves, unmutated
        base = bases / src.name
        if not base.exists():
            shutil.copytree(src, base)
        dest = out / f"{i:04d}-{src.name}"
        _link_tree(base, dest)
        rows.append(f"{dest.name}\t{src.parent.name}/{src.name}\t-")
    mutable = [src for src in originals if any(p.suffix == ".xml" and "_htm" in p.name or "instance" in p.name
                                               for p in src.iterdir())]
    per = -(-(count - len(originals)) // len(mutable))
    plans = {src: mutations_for(src, data_root, random.Random(f"{seed}:{src.name}"), 3 * per) for src in mutable}
    i = len(originals)
    round_ = 0
    while i < count:
        progressed = False
        for src in mutable:
            if i >= count:
                break
            if round_ >= len(plans[src]):
                continue
            mutation, group = plans[src][round_]
            dest = out / f"{i:04d}-{src.name}"
            _link_tree(bases / src.name, dest)
            doc = dest / Path(group[0].document).name
            text = doc.read_text(encoding="utf-8")
            doc.unlink()  # a hard link to the base: replaced by a file of its own
            doc.write_text(write_mutated(text, mutation, group), encoding="utf-8")
            value = f" {mutation.value}" if mutation.value is not None else ""
            rows.append(f"{dest.name}\t{src.parent.name}/{src.name}\t{mutation.kind} {mutation.fact}{value}")
            i += 1
            progressed = True
        round_ += 1
        if not progressed:
            raise SystemExit(f"only {i} filings: the filings have too few mutation targets for {count}")
    (out / "manifest.tsv").write_text("folder\tsource\tmutation\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return rows


def _link_tree(base: Path, dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    for f in base.iterdir():
        os.link(f, dest / f.name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--data-root")
    args = ap.parse_args(argv)
    rows = make(args.out, args.count, args.seed, resolve_data_root(args.data_root))
    print(f"{len(rows)} filings in {args.out} (manifest.tsv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
