#!/usr/bin/env python3
"""Compares StratusKit's public symbols with Apple's CloudKit API list and writes the coverage report.

Usage: scripts/api-coverage/report [--build-dir .build/debug] [--output docs/stratuskit-coverage.md]
Needs StratusKit built first (`swift build --target StratusKit`). Reads the built module's symbol
graph (`swift symbolgraph-extract`) and API dump (`swift-api-digester -dump-sdk`), so the report is
about what the module declares.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_list(path):
    """(symbol, tag) pairs of a data file; `#` lines and blank lines are skipped."""
    entries = []
    with open(path) as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            symbol, _, tag = line.partition("\t")
            entries.append((symbol.strip(), tag.strip()))
    return entries


def read_omissions(path):
    """symbol -> reason."""
    return {symbol: reason for symbol, reason in read_list(path)}


def compiler_arguments(build_dir):
    """Search paths and target for reading the built module."""
    modules = os.path.join(build_dir, "Modules")
    arguments = ["-I", modules if os.path.isdir(modules) else build_dir]
    # C modules the Swift modules import (swift-crypto's BoringSSL shims, SQLite's, ...).
    for modulemap in glob.glob(os.path.join(build_dir, "*.build", "module.modulemap")):
        arguments += ["-Xcc", "-fmodule-map-file=" + modulemap]
    for include in glob.glob(os.path.join(ROOT, ".build", "checkouts", "*", "Sources", "*", "include")):
        arguments += ["-I", include]
    target = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True)
    return arguments + ["-target", json.loads(target.stdout)["target"]["triple"]]


def extract_symbol_graph(build_dir, output_dir):
    command = ["swift", "symbolgraph-extract", "-module-name", "StratusKit", "-output-dir", output_dir,
               "-minimum-access-level", "public"] + compiler_arguments(build_dir)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("swift symbolgraph-extract failed (build StratusKit first):\n" + result.stderr)


def digester_paths(build_dir, output_dir):
    """Public declaration paths from `swift-api-digester -dump-sdk`. The symbol graph leaves out
    types whose names start with an underscore (`__CKRecordID`, public as `CKRecord.ID`); the
    digester lists them, but not members that protocol extensions give a type, which the
    symbol graph has. The report uses both."""
    output = os.path.join(output_dir, "sdk.json")
    command = ["swift-api-digester", "-dump-sdk", "-module", "StratusKit", "-o", output] + compiler_arguments(build_dir)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0 or not os.path.exists(output):
        sys.exit("swift-api-digester failed (build StratusKit first):\n" + result.stderr)
    with open(output) as handle:
        root = json.load(handle)["ABIRoot"]
    paths = []

    def walk(node, path):
        here = path + [node.get("printedName", "")] if node.get("declKind") else path
        if node.get("declKind"):
            paths.append(here)
        for child in node.get("children", []):
            if child.get("declKind"):
                walk(child, here)

    walk(root, [])
    return paths


def stratuskit_paths(output_dir, extra_paths):
    """Every public symbol path of the module, with types declared under a hidden name
    (`__CKRecordID`, reached as `CKRecord.ID` through a typealias) renamed to the public one, and
    every conformance as `Type: Protocol` (the protocol's own name, without its module)."""
    symbols = list(extra_paths)
    aliases = {}
    by_identifier = {}
    conformances = []
    for path in glob.glob(os.path.join(output_dir, "*.symbols.json")):
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            components = symbol.get("pathComponents", [])
            if not components:
                continue
            symbols.append(components)
            by_identifier[symbol.get("identifier", {}).get("precise")] = components
            if symbol.get("kind", {}).get("identifier") == "swift.typealias":
                for fragment in symbol.get("declarationFragments", []):
                    if fragment.get("kind") == "typeIdentifier" and fragment.get("spelling", "").startswith("__"):
                        aliases[fragment["spelling"]] = ".".join(components)
        conformances += [relationship for relationship in graph.get("relationships", [])
                         if relationship.get("kind") == "conformsTo"]

    def public_path(components):
        head = aliases.get(components[0])
        return ".".join(([head] if head else [components[0]]) + components[1:])

    paths = {public_path(components) for components in symbols}
    for relationship in conformances:
        conforming = by_identifier.get(relationship.get("source"))
        protocol = by_identifier.get(relationship.get("target"))
        name = protocol[-1] if protocol else relationship.get("targetFallback", "").rpartition(".")[2]
        if conforming and name:
            paths.add(f"{public_path(conforming)}: {name}")
    return paths


def check_result_blocks(apple, exemptions):
    """Every operation the list gives a completion block must have a result block listed too:
    Apple added one to every operation in iOS 15 but those deprecated earlier (the exemptions).
    A list that misses one reports StratusKit's lack of it as no gap, so the report refuses it."""
    completion = {symbol.split(".")[0] for symbol, _ in apple if symbol.endswith("CompletionBlock")}
    result = {symbol.split(".")[0] for symbol, _ in apple if symbol.endswith("ResultBlock")}
    unlisted = sorted(completion - result - set(exemptions))
    if unlisted:
        sys.exit("scripts/api-coverage/cloudkit-symbols.txt lists a completion block but no result block for: "
                 + ", ".join(unlisted) + ". Add Apple's iOS 15 result block of each (for example "
                 "CKModifyRecordsOperation.modifyRecordsResultBlock), or name the operation in "
                 "completion-only-operations.txt with the reason Apple gave it none.")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--output", default=os.path.join(ROOT, "docs", "stratuskit-coverage.md"))
    arguments = parser.parse_args()

    apple = read_list(os.path.join(HERE, "cloudkit-symbols.txt"))
    omissions = read_omissions(os.path.join(HERE, "omissions.txt"))
    check_result_blocks(apple, read_omissions(os.path.join(HERE, "completion-only-operations.txt")))
    with tempfile.TemporaryDirectory() as output_dir:
        extract_symbol_graph(arguments.build_dir, output_dir)
        have = stratuskit_paths(output_dir, digester_paths(arguments.build_dir, output_dir))

    groups = {"": "current API", "deprecated": "deprecated API", "sharing": "sharing", "ui": "Apple-platform UI"}
    rows = []
    missing = {tag: [] for tag in groups}
    for tag, title in groups.items():
        entries = [symbol for symbol, entry_tag in apple if entry_tag == tag]
        present = [symbol for symbol in entries if symbol in have]
        missing[tag] = [symbol for symbol in entries if symbol not in have]
        rows.append((title, len(present), len(entries)))
    in_scope = [symbol for symbol, tag in apple if tag in ("", "deprecated")]
    in_scope_present = sum(1 for symbol in in_scope if symbol in have)
    current = rows[0]

    lines = [
        "# StratusKit API coverage",
        "",
        "Which of Apple's CloudKit symbols StratusKit declares, generated by `scripts/api-coverage/report`",
        "from the built module's symbol graph and the list of Apple's API in",
        "`scripts/api-coverage/cloudkit-symbols.txt` (names and signatures only). Regenerate it after",
        "changing StratusKit's public API.",
        "",
        f"**Current (non-deprecated) API: {current[1]} of {current[2]} symbols ({100 * current[1] / current[2]:.1f}%).**",
        f"Current and deprecated API together: {in_scope_present} of {len(in_scope)} ({100 * in_scope_present / len(in_scope):.1f}%).",
        "",
        "| part | present | listed | coverage |",
        "|---|---:|---:|---:|",
    ]
    for title, present, total in rows:
        lines.append(f"| {title} | {present} | {total} | {100 * present / total:.1f}% |" if total else f"| {title} | 0 | 0 | - |")
    lines += ["", "## Deliberate omissions", ""]
    for symbol, reason in omissions.items():
        lines.append(f"- `{symbol}`: {reason}")
    for tag, title in groups.items():
        names = [symbol for symbol in missing[tag] if symbol not in omissions]
        if not names:
            continue
        lines += ["", f"## Missing: {title}", ""]
        lines += [f"- `{symbol}`" for symbol in names]
    with open(arguments.output, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(f"current API: {current[1]}/{current[2]} ({100 * current[1] / current[2]:.1f}%); "
          f"with deprecated: {in_scope_present}/{len(in_scope)}; report written to {os.path.relpath(arguments.output, ROOT)}")


if __name__ == "__main__":
    main()
