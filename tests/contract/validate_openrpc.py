#!/usr/bin/env python3
"""Validates openrpc.json against the OpenRPC meta-schema (npm @open-rpc/meta-schema, with the
JSON-schema meta-schema it refers to, @json-schema-tools/meta-schema), fully offline.

    python3 tests/contract/validate_openrpc.py [openrpc.json] [node_modules]

Also checks that every `$ref` in the document names something the document has (the meta-schema
cannot see a reference to a schema or content descriptor that is missing).

Prints each violation with its path and exits 1 when there are any; the contract test runs it.
"""
import json
import sys
from pathlib import Path

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


def npm_export(path, name):
    """The exported object of a CommonJS module that assigns one JSON literal."""
    source = Path(path).read_text()
    start = source.rindex(f"exports.{name} = ") + len(f"exports.{name} = ")
    return json.JSONDecoder().raw_decode(source[start:])[0]


def dangling_refs(document, value, path):
    """(path, ref) for each local `$ref` under `value` that does not resolve in `document`."""
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str):
            target = document
            for key in ref.removeprefix("#/").split("/"):
                target = target.get(key) if isinstance(target, dict) else None
            if not ref.startswith("#/") or target is None:
                yield path, ref
        for key, item in value.items():
            yield from dangling_refs(document, item, path + [key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from dangling_refs(document, item, path + [index])


def main():
    document = json.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "openrpc.json").read_text())
    modules = Path(sys.argv[2] if len(sys.argv) > 2 else "node_modules")
    openrpc = npm_export(modules / "@open-rpc/meta-schema/index.js", "openrpcDocument")
    json_schema = json.loads((modules / "@json-schema-tools/meta-schema/schema.json").read_text())
    resource = Resource.from_contents(json_schema, default_specification=DRAFT7)
    registry = Registry().with_resources(
        [("https://meta.json-schema.tools", resource), ("https://meta.json-schema.tools/", resource)]
    )
    validator = jsonschema.Draft7Validator(openrpc, registry=registry)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    for error in errors:
        print(f"{'/'.join(map(str, error.path)) or '(root)'}: {error.message[:300]}")
    dangling = list(dangling_refs(document, document, []))
    for path, ref in dangling:
        print(f"{'/'.join(map(str, path))}: $ref {ref} names nothing in the document")
    if errors or dangling:
        sys.exit(1)
    print(f"openrpc.json is a valid OpenRPC {document.get('openrpc')} document ({len(document['methods'])} methods)")


if __name__ == "__main__":
    main()
