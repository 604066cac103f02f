#!/usr/bin/python3
"""Hash of an HDF5 file's content: every group, dataset (name, dtype, shape,
bytes) and attribute, walked in name order; 16 hex digits on stdout.

Used by scripts/output-hashes.sh to show that a change leaves checkpoints
and trajectories as they were. File bytes would not do: HDF5 leaves free
space and object addresses that depend on the order things were written.
Attributes that say when, where and by what build a file was made are left
out (PROVENANCE below): they differ between any two runs.
    h5_content_hash.py FILE [--list]   (--list: one line per object)
"""
import hashlib
import sys

import h5py
import numpy as np

# Names of attributes whose values record the making of a file, not its
# results (lower case; matched against the attribute's own name).
PROVENANCE = {"creator", "creation_time", "created", "time_written", "wall_time", "host",
              "hostname", "version", "build", "commit", "git_commit", "compiler",
              "written_at", "program_version", "date", "seconds", "elapsed",
              "write_seconds", "uuid", "run_id", "pid", "user", "command_line",
              "cmdline", "working_directory", "build_info", "program"}


def value_bytes(value):
    array = np.asarray(value)
    if array.dtype.kind == "O":
        return repr(array.tolist()).encode()
    return array.dtype.str.encode() + repr(array.shape).encode() + array.tobytes()


def walk(node, path, out):
    for key in sorted(node.attrs.keys()):
        if key.lower() in PROVENANCE:
            continue
        out.append((path + "@" + key, value_bytes(node.attrs[key])))
    if isinstance(node, h5py.Dataset):
        out.append((path, value_bytes(node[()])))
        return
    for key in sorted(node.keys()):
        link = node.get(key, getlink=True)
        if isinstance(link, h5py.SoftLink):
            out.append((path + "/" + key + "->", link.path.encode()))
            continue
        walk(node[key], path + "/" + key, out)


def main():
    items = []
    with h5py.File(sys.argv[1], "r") as f:
        walk(f, "", items)
    digest = hashlib.sha256()
    for name, data in items:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        if "--list" in sys.argv:
            print(name, hashlib.sha256(data).hexdigest()[:16])
    print(digest.hexdigest()[:16])


if __name__ == "__main__":
    main()
