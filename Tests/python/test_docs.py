"""The repository stands alone: every file its code and docs name exists in it, and nothing points outside."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEXT = (".swift", ".py", ".md", ".js", ".html", ".css", ".sh", ".toml", ".txt", "")
# Paths under the repository's own folders, and Markdown files named bare (README.md, STUDIO-PROTOCOL.md).
PATH = re.compile(r"(?<![\w./-])((?:Sources|Tests|docs|scripts|Benchmarks|Fuzz|\.ci)/[\w./+-]*[\w+-])")
OUTSIDE = re.compile(r"\.\./" + "shared|/work/" + "shared")   # spelled in pieces so this file does not match itself
MARKDOWN = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9_-]*\.md)\b")


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / p for p in out if pathlib.Path(p).suffix in TEXT and (ROOT / p).is_file()]


def test_every_named_file_exists_and_nothing_points_outside():
    files = tracked()
    names = {p.name for p in files}
    missing, outside = [], []
    for path in files:
        if "Fixtures" in path.parts or path.suffix == "" and path.stat().st_size > 200_000:
            continue
        text = path.read_text(errors="ignore")
        where = path.relative_to(ROOT)
        if OUTSIDE.search(text):
            outside.append(str(where))
        for m in PATH.finditer(text):
            ref = m.group(1).rstrip(".")
            # Patterns, not paths: wildcards, interpolation, and placeholders (Fuzz/Corpus/TARGET).
            if any(c in ref for c in "*{}$<>\\(") or ref.endswith(("/", "-")) or any(part.isupper() for part in ref.split("/")):
                continue
            target = ROOT / ref
            # Generated or made at run time (build output, the figures the tests record).
            if ref.startswith((".build", "Fuzz/.build")) or ref.endswith(("latency.json", "camera.json", "load.json", "engines.json")):
                continue
            if not target.exists() and not any(ROOT.glob(ref + "*")):
                missing.append(f"{where}: {ref}")
        for m in MARKDOWN.finditer(text):
            if m.group(1) not in names:
                missing.append(f"{where}: {m.group(1)}")
    assert not outside, f"files pointing outside the repository: {outside}"
    assert not missing, "references to files the repository does not have:\n" + "\n".join(sorted(set(missing)))
