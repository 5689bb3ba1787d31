#!/usr/bin/python3
"""Reads Chakra execution traces back with the schema's protobuf classes and prints them as JSON.

Usage: chakra_read.py PROTO_OUT_DIR TRACE_DIR RANKS
PROTO_OUT_DIR holds et_def_pb2.py (protoc --python_out of tests/data/chakra/et_def.proto).
Each TRACE_DIR/scaleout.<rank>.et is a GlobalMetadata message then Node messages, each after its
length as a varint. Prints {"ranks": [{"metadata": {...}, "nodes": [...]}, ...]}; exits non-zero
on a file that does not parse or has bytes left over.
"""
import json
import sys


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def messages(data):
    at = 0
    while at < len(data):
        size, at = varint(data, at)
        if at + size > len(data):
            raise ValueError("a message runs past the end of the file")
        yield data[at:at + size]
        at += size


def attributes(attrs):
    out = {}
    for a in attrs:
        kind = a.WhichOneof("value")
        if kind is None:
            raise ValueError("attribute %s has no value" % a.name)
        out[a.name] = getattr(a, kind)
    return out


def read_rank(et_def, path):
    with open(path, "rb") as f:
        stream = list(messages(f.read()))
    metadata = et_def.GlobalMetadata()
    metadata.ParseFromString(stream[0])
    nodes = []
    for raw in stream[1:]:
        node = et_def.Node()
        node.ParseFromString(raw)
        nodes.append({"id": node.id, "name": node.name,
                      "type": et_def.NodeType.Name(node.type),
                      "data_deps": list(node.data_deps),
                      "duration_micros": node.duration_micros,
                      "attr": attributes(node.attr)})
    return {"metadata": attributes(metadata.attr), "nodes": nodes}


def main():
    proto_dir, trace_dir, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, proto_dir)
    import et_def_pb2 as et_def
    out = {"ranks": [read_rank(et_def, "%s/scaleout.%d.et" % (trace_dir, r))
                     for r in range(ranks)]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
