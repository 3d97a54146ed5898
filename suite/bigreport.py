#!/usr/bin/env python3
"""Makes a large synthetic report from a real one, to measure the readers of reports
(qconform report, diff, merge, certify, run --baseline) at scale.

usage: suite/bigreport.py REPORT.json N OUT.json [--shards K] [--reindent]

The cases of REPORT.json are repeated, in order, until there are N; each copy gets a new
name (the original's with "~COPY" appended) and the next ordinal. The op roll-up's case and
verdict counts and the summary's are counted again; everything else is REPORT's. The output
has the writer's layout (one case a line); --reindent writes it indented by Python's json
instead. With --shards K, writes OUT.json's cases in K shard reports OUT.json.1 .. OUT.json.K
as `qconform run --shard k/K` would (cases dealt round robin by ordinal), for
`qconform merge`.
"""
import json
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    shards = 0
    if "--shards" in argv:
        shards = int(argv[argv.index("--shards") + 1])
        args.remove(str(shards))
    reindent = "--reindent" in argv
    if len(args) != 3:
        sys.exit(__doc__)
    src, n, out = args[0], int(args[1]), args[2]
    with open(src) as f:
        rep = json.load(f)
    cases = rep["cases"]
    if not cases:
        sys.exit("%s has no cases" % src)

    def gen():
        for i in range(n):
            c = dict(cases[i % len(cases)])
            copy = i // len(cases)
            if copy:
                c["name"] = "%s~%d" % (c["name"], copy)
            c["ordinal"] = i
            yield c

    ops = {}
    verdicts = {}
    for c in gen():
        key = (c.get("semantics"), c.get("op"))
        o = ops.setdefault(key, {"cases": 0, "verdicts": {}})
        o["cases"] += 1
        v = c.get("verdict")
        o["verdicts"][v] = o["verdicts"].get(v, 0) + 1
        verdicts[v] = verdicts.get(v, 0) + 1
    for o in rep["ops"]:
        r = ops.get((o.get("semantics"), o.get("op")))
        if r:
            o["cases"] = r["cases"]
            o["verdicts"] = {k: r["verdicts"].get(k, 0) for k in o["verdicts"]}
    rep["summary"]["cases"] = n
    rep["summary"]["verdicts"] = {k: verdicts.get(k, 0) for k in rep["summary"]["verdicts"]}

    def write(path, which):
        with open(path, "w") as f:
            first = True
            f.write("{")
            for k, v in rep.items():
                f.write(("\n" if first else ",\n") + json.dumps(k) + ": ")
                first = False
                if k == "cases":
                    f.write("[")
                    sep = "\n "
                    for c in gen():
                        if which(c["ordinal"]):
                            f.write(sep + (json.dumps(c, indent=2) if reindent else
                                           json.dumps(c, separators=(",", ":"))))
                            sep = ",\n "
                    f.write("\n]")
                else:
                    f.write(json.dumps(v, indent=2 if reindent else None))
            f.write("\n}\n")

    if not shards:
        write(out, lambda i: True)
        return
    for k in range(1, shards + 1):
        rep["run"]["shard"] = {"index": k, "count": shards}
        write("%s.%d" % (out, k), lambda i, k=k: i % shards == k - 1)


main(sys.argv)
