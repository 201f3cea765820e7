"""The site's one stylesheet, inlined in every page (the site loads nothing from anywhere).

Outcome colours are from the Okabe-Ito palette, which readers with the common
colour-vision deficiencies tell apart, and every cell also says its outcome in
words, so no meaning rests on colour alone.
"""

from __future__ import annotations

__all__ = ["CSS", "OUTCOME_LABELS"]

OUTCOME_LABELS = {
    "pass": "\u2713 pass",
    "fail": "\u2717 FAIL",
    "errored": "! error",
    "xfail": "xfail",
    "partial": "partial",
    "skipped": "skipped",
    "untested": "untested",
    "untestable": "untestable",
}

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;
padding:1rem 1.25rem 3rem;color:#1f2328;line-height:1.45;overflow-wrap:break-word}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid
#d0d7de;padding-bottom:.2rem}h3{font-size:1rem}
nav{font-size:.9rem;margin-bottom:1rem}nav a{margin-right:1rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}
.scroll{overflow-x:auto;max-width:100%;border:1px solid #d0d7de;border-radius:6px}
.scroll table{margin:0}
.matrix th.clause{position:sticky;left:0;background:#fff;white-space:nowrap;z-index:1}
.matrix td{white-space:nowrap;text-align:center;font-size:.85rem}
.matrix td a{color:inherit;text-decoration:none;display:block}
.o-pass{background:#d6eaf8;color:#003a63}.o-fail{background:#f7c59f;color:#5a2300;font-weight:700}
.o-errored{background:#f3e6a0;color:#4d3d00;font-weight:700}.o-xfail{background:#e4dcef;color:#3d2a5c}
.o-skipped{background:#eeeeee;color:#444}.o-partial{background:#fde9c9;color:#5a3a00}.o-untested,.o-untestable{background:#fff;color:#6e7781}
.status{padding:.5rem 1rem;border-radius:6px}
.status.bad{background:#f7c59f;color:#5a2300}.status.ok{background:#d6eaf8;color:#003a63}
.level{font-size:.75rem;border:1px solid #8c959f;border-radius:4px;padding:0 .25rem;
margin-left:.3rem}
.regression{background:#f7c59f;color:#5a2300;font-weight:700;border-radius:4px;padding:0 .3rem}
.fixed{background:#d6eaf8;color:#003a63;border-radius:4px;padding:0 .3rem}
.superseded{color:#6e7781;text-decoration:line-through}
.note{color:#57606a;font-size:.9rem}
.broken{background:#f7c59f;color:#5a2300;border:2px solid #5a2300;border-radius:6px;
padding:.6rem .8rem;margin-bottom:1rem}
.ci{position:relative;height:.9rem;background:#f6f8fa;border:1px solid #d0d7de;border-radius:3px;
margin:.2rem 0;min-width:8rem}
.ci-bar{position:absolute;top:0;bottom:0;background:#56b4e9;opacity:.6}
.ci-point{position:absolute;top:-2px;bottom:-2px;width:3px;margin-left:-1px;background:#0b3c5d}
.profile td{min-width:12rem}
"""
