#!/usr/bin/env python3
"""Turns every ```swift block of the README and the DocC articles into a Swift file of the
SnippetTests target, so `swift build --build-tests` (and so `swift test`) compiles them.

    python3 Scripts/snippets.py            # rewrites Tests/SnippetTests/Generated/
    python3 Scripts/snippets.py --check    # changes nothing; exit 1, naming each block whose
                                           # file is missing or out of date (DocSnippetsTests)

Each block becomes one file (imports are per file, so a block that forgets `import Foundation`
fails as it would for a reader), its code the body of an `async throws` function that is
compiled, never run. `#sourceLocation` points the compiler's errors at the Markdown file and
line. The target is compiled with -warnings-as-errors: a snippet that warns fails too.

A block with no `import` line continues the document's earlier code: it gets `import
Foundation`, `FoundationNetworking` (where it exists) and `import LogStore`. A block that uses a
value defined outside it says so in an HTML comment on the line before its fence, which GitHub
and DocC do not show; its text becomes the function's parameters:

    <!-- snippet: given store: LogStore, url: URL -->

A block that cannot compile here says why, and is listed in Generated/Skipped.swift:

    <!-- snippet: skip, a Package.swift manifest -->

Keep skips rare: a Package.swift manifest, or code that needs a package trait (SwiftLog,
ServiceLifecycle, Hummingbird) that CI builds without.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "Tests" / "SnippetTests" / "Generated"
FENCE_OPEN = re.compile(r"^(\s*)```swift\s*$")
FENCE_CLOSE = re.compile(r"^\s*```\s*$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
ANY_MARKER = re.compile(r"<!--\s*snippet\b")
HEADER_LINE = re.compile(r"^\s*((import\s+\w+|#if\s+canImport\(\w+\)|#endif)\s*(//.*)?|//.*)?$")
DECLARATION = re.compile(r"^(?:let|var)\s+(?:(\w+)|\(([^)]*)\))")
DEFAULT_IMPORTS = [
    "import Foundation",
    "#if canImport(FoundationNetworking)",
    "import FoundationNetworking",
    "#endif",
    "import LogStore",
]


class SnippetError(Exception):
    pass


def documents():
    """The Markdown files whose Swift blocks must compile, in a stable order."""
    found = [ROOT / "README.md"]
    found += sorted(ROOT.glob("Sources/*/*.docc/*.md"))
    return found


def blocks(path):
    """Yields (number, fence line, marker, lines) for each ```swift block of a file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    relative = path.relative_to(ROOT).as_posix()
    number = 0
    index = 0
    while index < len(lines):
        if not FENCE_OPEN.match(lines[index]):
            if ANY_MARKER.search(lines[index]) and not MARKER.match(lines[index]):
                raise SnippetError(f"{relative}:{index + 1}: a snippet marker must be a line of its own: "
                                   "<!-- snippet: given … --> or <!-- snippet: skip, reason -->")
            index += 1
            continue
        number += 1
        fence = index
        previous = fence - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        match = MARKER.match(lines[previous]) if previous >= 0 else None
        marker = match.group(1) if match else None
        body = []
        index += 1
        while index < len(lines) and not FENCE_CLOSE.match(lines[index]):
            body.append(lines[index])
            index += 1
        if index == len(lines):
            raise SnippetError(f"{relative}:{fence + 1}: block {number} has no closing fence")
        yield number, fence + 1, marker, body
        index += 1


def parse_marker(marker, where):
    """Returns ("skip", reason), ("given", parameters) or ("plain", "")."""
    if marker is None:
        return "plain", ""
    if marker.startswith("skip"):
        reason = marker[len("skip"):].lstrip(" ,:—-").strip()
        if not reason:
            raise SnippetError(f"{where}: a skipped block must say why: <!-- snippet: skip, reason -->")
        return "skip", reason
    if marker.startswith("given "):
        return "given", marker[len("given "):].strip()
    raise SnippetError(f"{where}: unknown snippet marker {marker!r} "
                       "(expected 'given <parameters>' or 'skip, <reason>')")


def declared_names(body):
    """Names a block declares at its outermost level, read once after it so that a value the
    reader would go on to use does not warn as unused inside the wrapping function."""
    texts = [line for line in body if line.strip()]
    if not texts:
        return []
    base = min(len(line) - len(line.lstrip(" ")) for line in texts)
    names = []
    for line in texts:
        if len(line) - len(line.lstrip(" ")) != base:
            continue
        match = DECLARATION.match(line[base:])
        if not match:
            continue
        candidates = [match.group(1)] if match.group(1) else match.group(2).split(",")
        for candidate in candidates:
            candidate = candidate.strip().split(":")[0].strip()
            if re.fullmatch(r"[A-Za-z]\w*", candidate) and candidate not in names:
                names.append(candidate)
    return names


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(relative, number, fence_line, parameters, body):
    """The Swift file for one block."""
    header_end = 0
    for offset, line in enumerate(body):
        if not HEADER_LINE.match(line):
            break
        header_end = offset + 1
    header = body[:header_end]
    has_imports = any(re.match(r"^\s*import\s", line) for line in header)
    if not has_imports:
        header_end = 0
        header = []
    code = body[header_end:]
    first_line = fence_line + 1
    name = f"snippet_{identifier(relative)}_{number}"
    location = swift_string(relative)

    out = [
        f"// Generated by Scripts/snippets.py from {relative}, block {number} (line {fence_line}).",
        "// Do not edit: change the block, then run `python3 Scripts/snippets.py`.",
        "",
    ]
    if has_imports:
        out.append(f"#sourceLocation(file: {location}, line: {first_line})")
        out += header
        out.append("#sourceLocation()")
    else:
        out.append("// The block has no imports: it continues a file that has these.")
        out += DEFAULT_IMPORTS
    out.append("")
    out.append(f"func {name}({parameters}) async throws {{")
    out.append(f"#sourceLocation(file: {location}, line: {first_line + header_end})")
    out += code
    out.append("#sourceLocation()")
    for declared in declared_names(code):
        out.append(f"    _ = {declared}")
    out.append("}")
    return "\n".join(out) + "\n"


def identifier(relative):
    stem = pathlib.PurePosixPath(relative).stem
    return re.sub(r"\W", "_", stem)


def generate():
    """Returns {file name: contents} for the Generated directory."""
    files = {}
    skipped = []
    for path in documents():
        relative = path.relative_to(ROOT).as_posix()
        for number, fence_line, marker, body in blocks(path):
            where = f"{relative}:{fence_line} (block {number})"
            kind, value = parse_marker(marker, where)
            if kind == "skip":
                # No line number: moving a skipped block does not make this file out of date.
                skipped.append(f"// {relative}, block {number}: {value}")
                continue
            file_name = f"{identifier(relative)}_{number}.swift"
            files[file_name] = render(relative, number, fence_line, value, body)
    files["Skipped.swift"] = "\n".join([
        "// Generated by Scripts/snippets.py: the Swift blocks of the docs that are not compiled,",
        "// each with the reason its marker gives (<!-- snippet: skip, reason -->).",
        "",
        *skipped,
    ]) + "\n"
    return files


def main(arguments):
    check = "--check" in arguments
    try:
        files = generate()
    except SnippetError as error:
        print(f"snippets.py: {error}", file=sys.stderr)
        return 1
    existing = {path.name for path in OUTPUT.glob("*.swift")} if OUTPUT.is_dir() else set()
    stale = sorted(name for name, text in files.items()
                   if name not in existing or (OUTPUT / name).read_text(encoding="utf-8") != text)
    extra = sorted(existing - set(files))
    if check:
        for name in stale:
            first = files[name].split("\n")[0]
            source = first.removeprefix("// Generated by Scripts/snippets.py from ").rstrip(".")
            what = "the list of skipped blocks" if name == "Skipped.swift" else f"from {source}"
            print(f"out of date: Tests/SnippetTests/Generated/{name} ({what})")
        for name in extra:
            print(f"no longer generated: Tests/SnippetTests/Generated/{name}")
        if stale or extra:
            print("run `python3 Scripts/snippets.py` and commit Tests/SnippetTests/Generated/")
            return 1
        compiled = len(files) - 1
        print(f"snippets.py: {compiled} blocks up to date")
        return 0
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (OUTPUT / name).write_text(files[name], encoding="utf-8")
    for name in extra:
        (OUTPUT / name).unlink()
    print(f"snippets.py: {len(files) - 1} blocks; {len(stale)} files written, {len(extra)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
