#!/usr/bin/env python3
"""Compares two bench/run results.jsonl files (A: the build before a change,
B: after), measured in one device call: records are matched by their
parameters (every field that is not a float), and each float field of B is
divided by A's.  Prints, per program and operation, the geometric mean and
the extremes of the ratios, then the largest single changes.

    scripts/bench-ab.py A/results.jsonl B/results.jsonl [--top 15]

A ratio is B/A as measured: above 1 for a time means slower, for a rate
faster; the field name says which (*_us: time; *gbps*, *rate*, *ops*: rate)."""
import argparse
import json
import math
import sys


def load(path):
    recs = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "meta" in r:
                continue
            key = tuple(sorted((k, v) for k, v in r.items() if not isinstance(v, float)))
            recs.setdefault(key, []).append({k: v for k, v in r.items() if isinstance(v, float)})
    return recs


def is_time(field):
    return field.endswith("_us") or field.endswith("_ms") or field in ("us", "ms", "seconds")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    a, b = load(args.a), load(args.b)
    groups, singles = {}, []
    for key, brecs in b.items():
        if key not in a:
            continue
        for ar, br in zip(a[key], brecs):
            for field, bv in br.items():
                av = ar.get(field)
                if av is None or av <= 0 or bv <= 0:
                    continue
                ratio = bv / av
                # "better" > 1 whatever the field: faster, or a higher rate
                better = 1 / ratio if is_time(field) else ratio
                d = dict(key)
                g = (d.get("prog", d.get("op", "?")), str(d.get("op", "")), d.get("sys", ""), field)
                groups.setdefault(g, []).append(better)
                singles.append((better, field, d, av, bv))
    if not groups:
        print("no records in common")
        return 1
    print("%-40s %-8s %-22s %6s %6s %6s %5s" % ("op", "sys", "field", "gmean", "min", "max", "n"))
    for g, v in sorted(groups.items()):
        gm = math.exp(sum(math.log(x) for x in v) / len(v))
        print("%-40s %-8s %-22s %6.3f %6.3f %6.3f %5d" % (g[1] or g[0], g[2], g[3], gm, min(v),
                                                          max(v), len(v)))
    print("\nlargest changes (B better than A > 1):")
    singles.sort(key=lambda s: abs(math.log(s[0])), reverse=True)
    for better, field, d, av, bv in singles[:args.top]:
        params = " ".join("%s=%s" % kv for kv in sorted(d.items()))
        print("  %.3f  %s: %g -> %g  (%s)" % (better, field, av, bv, params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
