#!/usr/bin/env python3
"""Replaces the README's generated blocks with what the binary prints: the agent
instructions block (`text-browser --agent-instructions`) and the method reference
(`text-browser --readme-methods`).

Run from anywhere after changing a method: python3 tests/contract/update_readme.py
"""
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[2]
readme = root / "README.md"
text = readme.read_text()
for flag in ("--agent-instructions", "--readme-methods"):
    generated = subprocess.run(
        ["cargo", "run", "-q", "--bin", "text-browser", "--", flag],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout
    lines = generated.rstrip("\n").splitlines()
    begin, end = lines[0], lines[-1]
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < 0:
        sys.exit(f"README.md lacks the markers {begin!r} … {end!r}")
    text = text[:start] + generated + text[stop + len(end) + 1:]
readme.write_text(text)
print("README.md: instructions block and method reference updated")
