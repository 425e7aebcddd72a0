#!/usr/bin/env python3
"""Replaces the README's generated method reference with `text-browser --readme-methods`.

Run from the repository root after changing a method: python3 tests/contract/update_readme.py
"""
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
generated = subprocess.run(
    ["cargo", "run", "-q", "--bin", "text-browser", "--", "--readme-methods"],
    cwd=root, check=True, capture_output=True, text=True,
).stdout
begin, end = generated.splitlines()[0], generated.rstrip("\n").splitlines()[-1]
readme = root / "README.md"
text = readme.read_text()
start, stop = text.find(begin), text.find(end)
if start < 0 or stop < 0:
    sys.exit(f"README.md lacks the markers {begin!r} … {end!r}")
readme.write_text(text[:start] + generated + text[stop + len(end) + 1:])
print("README.md method reference updated")
