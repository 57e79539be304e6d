#!/usr/bin/env python3
"""Fails when a public or open symbol of the given symbol graphs has no doc comment.

Usage: check_doc_comments.py SYMBOL_GRAPH_DIR [REPOSITORY_ROOT]

Reads every *.symbols.json in SYMBOL_GRAPH_DIR (swiftc's -emit-symbol-graph output) and prints
`file:line symbol (kind)` for each public or open symbol that has a source location and no
docComment, then exits 1; exits 0 when there is none. docc itself has no option to fail on
undocumented symbols, and its coverage report leaves some members out, so the graph is checked
directly.

Symbols without a location are skipped: the compiler made them (an enum's `init(rawValue:)`,
a memberwise initializer), and there is no source line to document.
"""

import json
import os
import sys
from urllib.parse import unquote, urlparse

PUBLIC_ACCESS = {"public", "open"}


def source_path(uri, root):
    """The file a symbol graph's `location.uri` names, relative to root when it lies under it."""
    path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
    relative = os.path.relpath(path, root)
    return path if relative.startswith("..") else relative


def undocumented(graph, root):
    """(file, line, name, kind) for each public symbol of one graph with no doc comment."""
    for symbol in graph.get("symbols", []):
        if symbol.get("accessLevel") not in PUBLIC_ACCESS:
            continue
        location = symbol.get("location")
        if location is None or symbol.get("docComment"):
            continue
        name = ".".join(symbol.get("pathComponents", [])) or symbol.get("names", {}).get("title", "?")
        kind = symbol.get("kind", {}).get("displayName", "symbol")
        # swiftc's positions are zero-based; editors and compilers count lines from one.
        line = location.get("position", {}).get("line", -1) + 1
        yield source_path(location.get("uri", "?"), root), line, name, kind


def main(arguments):
    if len(arguments) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    directory = arguments[1]
    root = os.path.abspath(arguments[2] if len(arguments) == 3 else os.getcwd())
    files = sorted(name for name in os.listdir(directory) if name.endswith(".symbols.json"))
    if not files:
        print(f"check_doc_comments: no *.symbols.json in {directory}", file=sys.stderr)
        return 2

    missing = set()
    for name in files:
        with open(os.path.join(directory, name), encoding="utf-8") as file:
            missing.update(undocumented(json.load(file), root))

    for path, line, symbol, kind in sorted(missing):
        print(f"{path}:{line} {symbol} ({kind})")
    if missing:
        print(f"check_doc_comments: {len(missing)} public symbol(s) without a doc comment", file=sys.stderr)
        return 1
    print(f"check_doc_comments: every public symbol in {len(files)} symbol graph(s) has a doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
