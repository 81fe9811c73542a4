#!/usr/bin/env python3
"""Copy a kubernetes-validate schema folder (e.g. v1.33.0-local-strict) into a kubeconform layout
(<root>/v1.33.0-standalone-strict), so kubeconform resolves every $ref from local files, never the web:
drop every "$id" (they point at https://kubernetes.io) and rewrite "/api/_definitions.json#..." refs
to the sibling file "_definitions.json#...".

usage: localize_schemas.py SRC_DIR DEST_DIR
"""
import json
import os
import sys

PREFIX = "/api/_definitions.json#"


def localize(node):
    if isinstance(node, dict):
        node.pop("$id", None)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(PREFIX):
            node["$ref"] = "_definitions.json#" + ref[len(PREFIX):]
        for value in node.values():
            localize(value)
    elif isinstance(node, list):
        for value in node:
            localize(value)
    return node


def main(src, dest):
    os.makedirs(dest, exist_ok=True)
    count = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            doc = json.load(f)
        with open(os.path.join(dest, name), "w", encoding="utf-8") as f:
            json.dump(localize(doc), f)
        count += 1
    if count == 0 or not os.path.exists(os.path.join(dest, "_definitions.json")):
        sys.exit(f"localize_schemas: no schemas (or no _definitions.json) in {src}")
    print(f"localize_schemas: {count} files -> {dest}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
