#!/usr/bin/env python3
"""How the folders of Sources/LogStore depend on each other.

For every folder, the type names declared in it (top level and nested: `struct`, `class`,
`enum`, `actor`, `protocol`, `typealias`), then every use of such a name in the other folders'
code, comments and string literals left out. Prints the uses per pair of folders, the pairs that
point both ways (cycles), and the uses that point up from a folder the layering puts lower.

    python3 Scripts/layers.py            # the table
    python3 Scripts/layers.py --uses A B # where folder A uses folder B's names
    python3 Scripts/layers.py --check    # exit 1 on a cycle or a use pointing up (the tests run it)

The layering (lowest first) is LAYERS below; DEVELOPERS.md explains it.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "LogStore")
# Lowest first: a folder may use the ones before it.
LAYERS = ["Model", "System", "Database", "History", "Blobs", "Ingest", "Network", "Query",
          "Sweep", "Export", "Archive", "Store", "Shipping", "Integrations"]
DECLARATION = re.compile(r"\b(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)")
IDENTIFIER = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")
# Uses pointing up that are known and scheduled to go: none since `LogStoreError` became a
# struct (issue 29); a pair listed here would be let through by --check.
ALLOWED_UPWARD = set()
# Names every folder uses as a namespace or from the standard library / Foundation.
IGNORED = {"LogStore", "Self", "Type", "Error", "Sendable", "Equatable", "Hashable", "Codable",
           "Encodable", "Decodable", "Comparable", "Identifiable", "CaseIterable", "Element",
           "Index", "Iterator", "Value", "Key", "Kind", "State", "Result", "Options", "Entry",
           "Part", "Row", "Rows", "Page", "Cursor", "Phase", "Outcome", "Mode", "Direction"}


def code_of(text):
    """The text without comments and string literals (simple, good enough for Swift here)."""
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'#"(?:[^"\\]|\\.)*"#', '""', text)
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    return "\n".join(line.split("//", 1)[0] for line in text.split("\n"))


def folders():
    result = {}
    for name in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, name)
        if not os.path.isdir(path) or name.endswith(".docc"):
            continue
        files = []
        for directory, _, names in os.walk(path):
            files += [os.path.join(directory, n) for n in names if n.endswith(".swift")]
        result[name] = {f: code_of(open(f, encoding="utf-8").read()) for f in files}
    return result


def main():
    tree = folders()
    owners = defaultdict(set)
    for folder, files in tree.items():
        for code in files.values():
            for name in DECLARATION.findall(code):
                if name not in IGNORED:
                    owners[name].add(folder)
    # A name declared in several folders (nested `Session`, `CodingKeys`) tells nothing.
    declared = {name: next(iter(found)) for name, found in owners.items() if len(found) == 1}
    uses = defaultdict(lambda: defaultdict(list))
    for folder, files in tree.items():
        for path, code in files.items():
            for number, line in enumerate(code.split("\n"), 1):
                for name in IDENTIFIER.findall(line):
                    owner = declared.get(name)
                    if owner and owner != folder:
                        uses[folder][owner].append((os.path.relpath(path, ROOT), number, name))

    if len(sys.argv) == 4 and sys.argv[1] == "--uses":
        for path, number, name in uses[sys.argv[2]][sys.argv[3]]:
            print(f"{path}:{number}: {name}")
        return

    rank = {name: index for index, name in enumerate(LAYERS)}
    if len(sys.argv) == 2 and sys.argv[1] == "--check":
        wrong = [(user, owner, found) for user in uses for owner, found in uses[user].items()
                 if rank.get(owner, 99) > rank.get(user, 99) and (user, owner) not in ALLOWED_UPWARD]
        for user, owner, found in wrong:
            for path, number, name in found:
                print(f"{path}:{number}: {user}/ uses {name} of {owner}/, a layer above it")
        unknown = sorted(set(tree) - set(LAYERS))
        for folder in unknown:
            print(f"{folder}/ is not in Scripts/layers.py's LAYERS: say where it belongs")
        sys.exit(1 if wrong or unknown else 0)
    print("uses of another folder's type names (user -> owner: count)")
    for user in sorted(uses):
        row = ", ".join(f"{owner} {len(found)}" for owner, found in sorted(uses[user].items(), key=lambda i: -len(i[1])))
        print(f"  {user:13s} -> {row}")
    cycles = sorted({tuple(sorted((a, b))) for a in uses for b in uses[a] if a in uses.get(b, {})})
    print(f"cycles (folders that use each other): {len(cycles)}")
    for a, b in cycles:
        print(f"  {a} <-> {b}: {len(uses[a][b])} / {len(uses[b][a])}")
    upward = [(user, owner, len(found)) for user in uses for owner, found in uses[user].items()
              if rank.get(owner, 99) > rank.get(user, 99)]
    print(f"uses pointing up the layering: {sum(count for _, _, count in upward)}")
    for user, owner, count in sorted(upward, key=lambda i: -i[2]):
        print(f"  {user} -> {owner}: {count}")


if __name__ == "__main__":
    main()
