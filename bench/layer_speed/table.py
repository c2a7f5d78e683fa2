"""The Markdown table of bench/layer_speed from the driver's records.

ratio = (the faster peer's median ms) / (Kiln's median ms): above 1.0 Kiln is
faster. A class's ratio is the lower of its forward and forward+backward
ratios; the median and the lists below 1.0x and 0.8x are over classes with
a ratio (Kiln and at least one peer measured)."""
import statistics

import cases

PEERS = ("keras", "torch")
MODES = (("fwd", "forward"), ("fwdbwd", "forward+backward"))


def ms(rec, impl, mode):
    r = rec.get(impl, {})
    return r.get(mode + "_ms") if "error" not in r else None


def ratio(rec, mode):
    kiln = ms(rec, "kiln", mode)
    peers = [ms(rec, p, mode) for p in PEERS if ms(rec, p, mode) is not None]
    if kiln is None or not peers or kiln <= 0:
        return None
    return min(peers) / kiln


def class_ratio(rec):
    rs = [ratio(rec, m) for m, _ in MODES if ratio(rec, m) is not None]
    return min(rs) if rs else None


def fmt_ms(v):
    if v is None:
        return "–"
    return "%.3g" % v if v < 100 else "%.0f" % v


def cell(rec, impl, mode, notes):
    v = ms(rec, impl, mode)
    r = rec.get(impl, {})
    if v is not None:
        eager = ("eager" if mode == "fwd" else "eager bwd") in r.get("notes", [])
        return fmt_ms(v) + ("*" if impl == "keras" and eager else "")
    why = r.get("error") or r.get(mode + "_error") or "not measured"
    notes.setdefault(why, len(notes) + 1)
    return "n/a[%d]" % notes[why]


def fmt_ratio(r):
    if r is None:
        return "–"
    mark = " **<0.8**" if r < 0.8 else (" *<1*" if r < 1.0 else "")
    return "%.2fx%s" % (r, mark)


def render(records, registered, meta):
    notes = {}
    lines = ["| class | case | Kiln fwd ms | Keras fwd | torch fwd | ratio fwd | Kiln f+b ms | Keras f+b | torch f+b "
             "| ratio f+b |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rec in records:
        torch_kind = rec.get("torch", {}).get("kind")
        case = rec["case"].replace("|", "\\|") + (" (torch: ops)" if torch_kind == "ops" else "")
        cells = [rec["name"], case]
        for mode, _ in MODES:
            cells += [cell(rec, i, mode, notes) for i in ("kiln",) + PEERS] + [fmt_ratio(ratio(rec, mode))]
        lines.append("| " + " | ".join(cells) + " |")
    out = [header(meta), ""] + lines + [""]
    out += summary(records) + [""] + coverage(records, registered) + [""]
    out += ["Notes (n/a):", ""] + ["%d. %s" % (i, why) for why, i in sorted(notes.items(), key=lambda kv: kv[1])]
    out += ["", "`*` after a Keras figure: the layer could not be traced by jax.jit and ran eagerly."]
    return "\n".join(out) + "\n"


def header(meta):
    peers = ", ".join("%s: %s" % kv for kv in sorted(meta["versions"].items()))
    text = ["Command: `%s` (%s). %d threads each; %s. Per case: 2 untimed calls, then timed calls for %.2g s "
            "(%d to %d calls), median." % (meta["command"], meta["date"], meta["threads"], peers, meta["budget_s"],
                                           meta["reps"][0], meta["reps"][1])]
    text.append("Load average (1, 5, 15 min) at the start %s, at the end %s." % tuple(
        "%.1f/%.1f/%.1f" % tuple(l) for l in meta["load"]))
    if meta.get("torch_missing"):
        text.append("PyTorch was not run: %s." % meta["torch_missing"])
    return " ".join(text)


def summary(records):
    out = []
    per_mode = {m: [ratio(r, m) for r in records if ratio(r, m) is not None] for m, _ in MODES}
    by_class = [(r["name"], class_ratio(r)) for r in records if class_ratio(r) is not None]
    for m, label in MODES:
        if per_mode[m]:
            out.append("- Median ratio, %s: %.2fx over %d classes." % (label, statistics.median(per_mode[m]),
                                                                     len(per_mode[m])))
    if by_class:
        out.append("- Median class ratio (the lower of the two per class): %.2fx over %d classes (target >= 1.2x)."
                   % (statistics.median([r for _, r in by_class]), len(by_class)))
    for limit in (1.0, 0.8):
        below = sorted([(r, n) for n, r in by_class if r < limit])
        out.append("- Classes below %.1fx (%d): %s" % (limit, len(below), ", ".join(
            "%s %.2fx" % (n, r) for r, n in below) or "none"))
    no_ratio = [r["name"] for r in records if class_ratio(r) is None]
    out.append("- Classes with no ratio (Kiln or both peers not measured): %s" % (", ".join(no_ratio) or "none"))
    return out


def coverage(records, registered):
    """Every class Kiln registers: timed by a row, by its Keras class's row (an alias), or not covered and why."""
    rows = {r["name"] for r in records}
    known = {r["name"] for r in cases.rows()}
    out = ["Catalogue: %d classes registered in Kiln." % len(registered)]
    aliases = sorted("%s (as %s)" % (a, c) for a, c in cases.ALIASES.items() if a in registered)
    out.append("- Timed through their Keras class's row: " + (", ".join(aliases) or "none"))
    skipped = sorted(n for n in registered if n in cases.NOT_COVERED)
    out.append("- Not covered: " + ("; ".join("%s (%s)" % (n, cases.NOT_COVERED[n]) for n in skipped) or "none"))
    missing = sorted(n for n in registered if n not in known and n not in cases.ALIASES and n not in cases.NOT_COVERED)
    out.append("- **No speed case**: " + (", ".join(missing) or "none"))
    not_run = sorted(known - rows)
    if not_run:
        out.append("- Rows not run this time (--only): %d" % len(not_run))
    return out


def progress_line(rec):
    parts = []
    for impl in ("kiln",) + PEERS:
        r = rec.get(impl, {})
        if "error" in r:
            parts.append("%s err" % impl)
        else:
            parts.append("%s %s/%s" % (impl, fmt_ms(r.get("fwd_ms")), fmt_ms(r.get("fwdbwd_ms"))))
    rf, rb = ratio(rec, "fwd"), ratio(rec, "fwdbwd")
    return "%-28s %s  ratio %s / %s" % (rec["name"], "  ".join(parts), fmt_ratio(rf), fmt_ratio(rb))
