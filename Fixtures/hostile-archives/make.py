#!/usr/bin/env python3
"""Derives the hostile archives in this directory from ../archive-v1.lsarchive.

Each <name>.lsarchive differs from a valid archive in one way (see README.md for what and the
error LogStore must give). Deterministic: running it again with the same Python and SQLite gives
the same files. Standard library only.

    python3 Fixtures/hostile-archives/make.py
"""

import binascii
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "archive-v1.lsarchive")
CHUNK_SIZE = 1 << 20
CHUNK_LEVEL = 6
# The smallest body file of the source archive: the one kept in the slim base.
KEPT_BLOB = "89e2a2605d493437ed8b755e340515ef6408e916"
ESCAPING_KEY = "../../../../tmp/logstore-pwned"


def crc32(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def pseudo_random(count, seed):
    """`count` bytes that look random, the same on every run and every Python."""
    out = bytearray()
    counter = 0
    while len(out) < count:
        out += hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
    return bytes(out[:count])


# MARK: The outer document

def connect(path):
    # Autocommit: VACUUM and page-size changes need it; every edit below is one statement or a
    # few whose order does not matter if interrupted (the script starts from a fresh copy anyway).
    return sqlite3.connect(path, isolation_level=None)


def read_info(con):
    return json.loads(con.execute("SELECT json FROM archive_info WHERE id = 1").fetchone()[0])


def write_info(con, info):
    # As StoreJSON.compactEncoder writes it: sorted keys, no spaces, slashes not escaped.
    text = json.dumps(info, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    con.execute("UPDATE archive_info SET json = ? WHERE id = 1", (text,))


def edit_outer(path, edit):
    con = connect(path)
    try:
        edit(con)
    finally:
        con.close()


def edit_info(path, change):
    def edit(con):
        info = read_info(con)
        change(info)
        write_info(con, info)
    edit_outer(path, edit)


def flip_byte(path, offset, mask=0xFF):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ mask]))


# MARK: The inner database

def inner_database(archive):
    """The archive's database, decompressed and joined."""
    con = connect(archive)
    try:
        return b"".join(zlib.decompress(data) for (data,) in
                        con.execute("SELECT data FROM database_chunks ORDER BY id"))
    finally:
        con.close()


def chunked(raw):
    """`raw` cut into CHUNK_SIZE pieces, each compressed on its own: [(zlib data, info entry)]."""
    pieces = []
    for start in range(0, len(raw), CHUNK_SIZE):
        piece = raw[start:start + CHUNK_SIZE]
        packed = zlib.compress(piece, CHUNK_LEVEL)
        pieces.append((packed, {"crc32": crc32(packed), "size": len(piece), "storedSize": len(packed)}))
    return pieces


def schema_version_of(raw):
    """`PRAGMA user_version`: the big-endian integer at offset 60 of a SQLite header."""
    return int.from_bytes(raw[60:64], "big") if len(raw) >= 64 else 0


def set_inner_database(archive, raw, schema_version=None):
    """Replaces the archive's database by `raw`, with the info record's chunks, size and schema
    version made to match (the schema version read from `raw` unless given)."""
    pieces = chunked(raw)

    def edit(con):
        info = read_info(con)
        con.execute("DELETE FROM database_chunks")
        for index, (packed, _) in enumerate(pieces):
            con.execute("INSERT INTO database_chunks (id, data) VALUES (?, ?)", (index, packed))
        info["chunks"] = [entry for _, entry in pieces]
        info["databaseSize"] = len(raw)
        info["schemaVersion"] = schema_version if schema_version is not None else schema_version_of(raw)
        write_info(con, info)
        con.execute("VACUUM")
    edit_outer(archive, edit)


def rewrite_inner_database(archive, edit, schema_version=None):
    """Decompresses the archive's database, lets `edit` change it through a sqlite3 connection,
    and puts it back re-chunked, with the info record's chunks, sizes, CRCs and schema version
    updated: an archive whose only fault is what `edit` did."""
    raw = inner_database(archive)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "inner.sqlite")
        with open(path, "wb") as f:
            f.write(raw)
        con = connect(path)
        try:
            edit(con)
        finally:
            con.close()
        with open(path, "rb") as f:
            raw = f.read()
    set_inner_database(archive, raw, schema_version)


# MARK: The bases

def make_slim_base(path):
    """The source archive with only its smallest body file (the others are dropped from the
    rows and the info record) and 4 KiB pages: a valid archive a quarter the size. Its database
    still names the dropped bodies, which matters only when one is read."""
    shutil.copyfile(SOURCE, path)

    def edit(con):
        info = read_info(con)
        con.execute("DELETE FROM blobs WHERE key != ?", (KEPT_BLOB,))
        info["blobFiles"] = [entry for entry in info["blobFiles"] if entry["key"] == KEPT_BLOB]
        info["blobFileSize"] = sum(entry["size"] for entry in info["blobFiles"])
        write_info(con, info)
        con.execute("PRAGMA page_size = 4096")
        con.execute("VACUUM")
    edit_outer(path, edit)


def make_bare_base(path):
    """The slim base without its body file: for variants that never reach a body."""
    shutil.copyfile(SLIM, path)

    def edit(con):
        info = read_info(con)
        con.execute("DELETE FROM blobs")
        info["blobFiles"] = []
        info["blobFileSize"] = 0
        write_info(con, info)
        con.execute("VACUUM")
    edit_outer(path, edit)


# MARK: The variants: name -> (base, how)

def truncated(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2 + 1234)  # in the middle, and not on a page boundary


def truncated_first_page(path):
    with open(path, "r+b") as f:
        f.truncate(2000)  # the header and part of the schema page


def bit_flipped(path):
    # One byte of the chunk's zlib data changed; its CRC in the info record left as it was.
    def edit(con):
        data = bytearray(con.execute("SELECT data FROM database_chunks WHERE id = 0").fetchone()[0])
        data[len(data) // 2] ^= 0x01
        con.execute("UPDATE database_chunks SET data = ? WHERE id = 0", (bytes(data),))
    edit_outer(path, edit)


def bit_flipped_page(path):
    # Page 1's b-tree header starts at 100: byte 100 is its page type (0x0D, a table leaf).
    flip_byte(path, 100, 0x07)


def bit_flipped_btree(path):
    # The b-tree header of blobs' root page: its cell count (bytes 3-4) made huge, so SQLite
    # finds the page corrupt once it reads the table (the schema still reads).
    def root():
        con = connect(path)
        try:
            page_size = con.execute("PRAGMA page_size").fetchone()[0]
            page = con.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'blobs'").fetchone()[0]
            return (page - 1) * page_size
        finally:
            con.close()
    flip_byte(path, root() + 3, 0x7F)


def bad_blob_checksum(path):
    def edit(con):
        data = bytearray(con.execute("SELECT data FROM blobs WHERE key = ?", (KEPT_BLOB,)).fetchone()[0])
        data[1000] ^= 0x20
        con.execute("UPDATE blobs SET data = ? WHERE key = ?", (bytes(data), KEPT_BLOB))
    edit_outer(path, edit)


def replace_chunk(path, packed, size=None):
    """Chunk 0 replaced by `packed`, with its CRC and stored size updated (its size too, if given),
    so that only what `packed` inflates to is wrong."""
    def edit(con):
        info = read_info(con)
        con.execute("UPDATE database_chunks SET data = ? WHERE id = 0", (packed,))
        info["chunks"][0]["crc32"] = crc32(packed)
        info["chunks"][0]["storedSize"] = len(packed)
        if size is not None:
            info["chunks"][0]["size"] = size
            info["databaseSize"] = size
        write_info(con, info)
        con.execute("VACUUM")
    edit_outer(path, edit)


def decompression_bomb(path):
    # 64 MiB of zeros in ~65 KB; the record still says the chunk inflates to its 564 KiB.
    compressor = zlib.compressobj(9)
    zeros = bytes(1 << 20)
    packed = b"".join(compressor.compress(zeros) for _ in range(64)) + compressor.flush()
    replace_chunk(path, packed)


def short_chunk(path):
    # Inflates to half the bytes its record says.
    raw = inner_database(path)
    replace_chunk(path, zlib.compress(raw[:len(raw) // 2], CHUNK_LEVEL))


def chunk_not_zlib(path):
    # Bytes that are not zlib data at all, with a CRC that matches them.
    replace_chunk(path, pseudo_random(4096, "chunk-not-zlib"))


def chunk_size_mismatch(path):
    # The record says the stored chunk is 100 bytes shorter than the row holds.
    edit_info(path, lambda info: info["chunks"][0].update(storedSize=info["chunks"][0]["storedSize"] - 100))


def absurd_sizes(path):
    edit_info(path, lambda info: info.update(databaseSize=10 ** 15))


def absurd_counts(path):
    edit_info(path, lambda info: info.update(messageCount=10 ** 12))


def absurd_chunk_size(path):
    edit_info(path, lambda info: info["chunks"][0].update(storedSize=1 << 40))


def negative_size(path):
    def change(info):
        info["blobFiles"][0]["size"] = -1
        info["blobFileSize"] = -1
    edit_info(path, change)


def overflowing_sizes(path):
    # databaseSize + blobFileSize past Int64.max.
    edit_info(path, lambda info: info.update(databaseSize=(1 << 63) - 1))


def duplicate_blob_entry(path):
    def change(info):
        info["blobFiles"].append(dict(info["blobFiles"][0]))
        info["blobFileSize"] *= 2
    edit_info(path, change)


def newer_format(path):
    edit_outer(path, lambda con: con.execute("PRAGMA user_version = 2"))


def no_format_version(path):
    edit_outer(path, lambda con: con.execute("PRAGMA user_version = 0"))


def newer_schema(path):
    rewrite_inner_database(path, lambda con: con.execute("PRAGMA user_version = 99"))


def newer_schema_inner(path):
    # The database says 99, the record still says 6.
    rewrite_inner_database(path, lambda con: con.execute("PRAGMA user_version = 99"), schema_version=6)


def older_schema(path):
    rewrite_inner_database(path, lambda con: con.execute("PRAGMA user_version = 5"))


def schema_mismatch(path):
    rewrite_inner_database(path, lambda con: con.execute("PRAGMA user_version = 5"), schema_version=6)


def planted_trigger(path):
    rewrite_inner_database(path, lambda con: con.execute(
        "CREATE TRIGGER evil AFTER INSERT ON messages BEGIN SELECT 1; END"))


def planted_view(path):
    rewrite_inner_database(path, lambda con: con.execute(
        "CREATE VIEW evil AS SELECT load_extension('/tmp/logstore-pwned.so') AS x"))


def altered_index(path):
    def edit(con):
        con.execute("DROP INDEX messages_by_level")
        con.execute("CREATE INDEX messages_by_level ON messages (id)")
    rewrite_inner_database(path, edit)


def planted_partition(path):
    """A table named as a partition of the full-text index, of another shape (a trigram index)."""
    rewrite_inner_database(path, lambda con: con.execute(
        "CREATE VIRTUAL TABLE message_search_7 USING fts5(text, metadata, content = 'messages', "
        "content_rowid = 'id', columnsize = 0, tokenize = 'trigram')"))


def orphan_partition_table(path):
    """A plain table named as a partition's shadow table, with no partition it belongs to."""
    rewrite_inner_database(path, lambda con: con.execute(
        "CREATE TABLE message_search_7_data (id INTEGER PRIMARY KEY, block BLOB)"))


def inner_bit_flipped_page(path):
    raw = bytearray(inner_database(path))
    raw[100] ^= 0x07  # page 1's page type
    set_inner_database(path, bytes(raw))


def inner_not_sqlite(path):
    set_inner_database(path, pseudo_random(8192, "inner-not-sqlite"), schema_version=6)


def inner_wal(path):
    # The header's read and write versions say WAL (2), with no -wal or -shm beside it.
    raw = bytearray(inner_database(path))
    raw[18] = 2
    raw[19] = 2
    set_inner_database(path, bytes(raw))


def planted_outer_view(path):
    edit_outer(path, lambda con: con.execute("CREATE VIEW evil AS SELECT key FROM blobs"))


def planted_outer_trigger(path):
    edit_outer(path, lambda con: con.execute(
        "CREATE TRIGGER evil AFTER INSERT ON blobs BEGIN DELETE FROM database_chunks; END"))


def planted_outer_index(path):
    edit_outer(path, lambda con: con.execute("CREATE INDEX evil ON database_chunks (length(data))"))


def altered_outer_table(path):
    # archive_info rebuilt without its CHECK (id = 1).
    def edit(con):
        con.execute("CREATE TABLE info2 (id INTEGER PRIMARY KEY, json TEXT NOT NULL)")
        con.execute("INSERT INTO info2 SELECT id, json FROM archive_info")
        con.execute("DROP TABLE archive_info")
        con.execute("ALTER TABLE info2 RENAME TO archive_info")
        con.execute("VACUUM")
    edit_outer(path, edit)


def missing_table(path):
    edit_outer(path, lambda con: con.execute("DROP TABLE blobs"))


def escaping_key(path):
    body = b"pwned\n"

    def edit(con):
        info = read_info(con)
        con.execute("INSERT INTO blobs (key, data) VALUES (?, ?)", (ESCAPING_KEY, body))
        info["blobFiles"].append({"crc32": crc32(body), "key": ESCAPING_KEY, "size": len(body)})
        info["blobFileSize"] += len(body)
        write_info(con, info)
    edit_outer(path, edit)


def extra_blob(path):
    body = b"not listed\n"
    edit_outer(path, lambda con: con.execute("INSERT INTO blobs (key, data) VALUES (?, ?)", ("f" * 40, body)))


def missing_blob(path):
    edit_outer(path, lambda con: con.execute("DELETE FROM blobs WHERE key = ?", (KEPT_BLOB,)))


def missing_chunk(path):
    edit_outer(path, lambda con: con.execute("DELETE FROM database_chunks WHERE id = 0"))


def info_not_json(path):
    edit_outer(path, lambda con: con.execute(
        "UPDATE archive_info SET json = ? WHERE id = 1", ('{"formatVersion": 1, "chunks": [',)))


def info_wrong_type(path):
    edit_info(path, lambda info: info.update(messageCount="many"))


def info_missing(path):
    edit_outer(path, lambda con: con.execute("DELETE FROM archive_info"))


def not_sqlite(path):
    with open(path, "wb") as f:
        f.write(pseudo_random(4096, "not-sqlite"))


def empty(path):
    open(path, "wb").close()


def other_sqlite(path):
    with open(path, "wb"):
        pass
    os.remove(path)
    con = connect(path)
    try:
        con.execute("PRAGMA page_size = 4096")
        con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        con.execute("INSERT INTO notes (text) VALUES ('a plain SQLite file')")
    finally:
        con.close()


# The two bases are committed too: each must open, so a variant's one change is its only fault.
SLIM = os.path.join(HERE, "valid-slim.lsarchive")
BARE = os.path.join(HERE, "valid-bare.lsarchive")

# Which base each starts from: SLIM keeps one body file (needed where a body is the point),
# BARE has none (smaller), None writes its file from nothing.
VARIANTS = [
    ("truncated", BARE, truncated),
    ("truncated-first-page", BARE, truncated_first_page),
    ("bit-flipped", BARE, bit_flipped),
    ("bit-flipped-page", BARE, bit_flipped_page),
    ("bit-flipped-btree", SLIM, bit_flipped_btree),
    ("bad-blob-checksum", SLIM, bad_blob_checksum),
    ("decompression-bomb", BARE, decompression_bomb),
    ("short-chunk", BARE, short_chunk),
    ("chunk-not-zlib", BARE, chunk_not_zlib),
    ("chunk-size-mismatch", BARE, chunk_size_mismatch),
    ("absurd-sizes", BARE, absurd_sizes),
    ("absurd-counts", BARE, absurd_counts),
    ("absurd-chunk-size", BARE, absurd_chunk_size),
    ("negative-size", SLIM, negative_size),
    ("overflowing-sizes", SLIM, overflowing_sizes),
    ("duplicate-blob-entry", SLIM, duplicate_blob_entry),
    ("newer-format", BARE, newer_format),
    ("no-format-version", BARE, no_format_version),
    ("newer-schema", BARE, newer_schema),
    ("newer-schema-inner", BARE, newer_schema_inner),
    ("older-schema", BARE, older_schema),
    ("schema-mismatch", BARE, schema_mismatch),
    ("planted-trigger", BARE, planted_trigger),
    ("planted-view", BARE, planted_view),
    ("altered-index", BARE, altered_index),
    ("planted-partition", BARE, planted_partition),
    ("orphan-partition-table", BARE, orphan_partition_table),
    ("inner-bit-flipped-page", BARE, inner_bit_flipped_page),
    ("inner-not-sqlite", BARE, inner_not_sqlite),
    ("inner-wal", BARE, inner_wal),
    ("planted-outer-view", BARE, planted_outer_view),
    ("planted-outer-trigger", BARE, planted_outer_trigger),
    ("planted-outer-index", BARE, planted_outer_index),
    ("altered-outer-table", BARE, altered_outer_table),
    ("missing-table", BARE, missing_table),
    ("escaping-key", BARE, escaping_key),
    ("extra-blob", BARE, extra_blob),
    ("missing-blob", SLIM, missing_blob),
    ("missing-chunk", BARE, missing_chunk),
    ("info-not-json", BARE, info_not_json),
    ("info-wrong-type", BARE, info_wrong_type),
    ("info-missing", BARE, info_missing),
    ("not-sqlite", None, not_sqlite),
    ("empty", None, empty),
    ("other-sqlite", None, other_sqlite),
]


def main():
    for name in os.listdir(HERE):
        if name.endswith(".lsarchive"):
            os.remove(os.path.join(HERE, name))
    make_slim_base(SLIM)
    make_bare_base(BARE)
    for name, base, make in [("valid-slim", None, None), ("valid-bare", None, None)] + VARIANTS:
        path = os.path.join(HERE, f"{name}.lsarchive")
        if base is not None:
            shutil.copyfile(base, path)
        if make is not None:
            make(path)
        for leftover in (path + "-journal", path + "-wal", path + "-shm"):
            assert not os.path.exists(leftover), leftover
        print(f"{os.path.getsize(path):>9}  {name}.lsarchive")


if __name__ == "__main__":
    main()
