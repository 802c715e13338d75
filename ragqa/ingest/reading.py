"""Bytes on disk -> text: UTF-8 or UTF-16 (with or without a BOM), universal newlines, binary files refused, and
a file read whole or line by line as it is read. What the text holds (listing, JSON, BibTeX...) is corpus.py's and
formats.py's business."""
from __future__ import annotations

import codecs
from pathlib import Path

from ragqa.errors import ListingError
from ragqa.ingest.formats import SUPPORTED

_HEAD = 1 << 16  # bytes read to tell JSON lines from other formats


def read_text_file(path: Path) -> str:
    """Decoded UTF-8 or UTF-16 text; missing, empty, binary or other-encoding files raise ListingError."""
    if not path.exists():
        raise ListingError(f"{path}: no such file or folder. Check the path.")
    if not path.is_file():
        raise ListingError(f"{path}: not a file. Give a file, or a folder of {SUPPORTED} files.")
    data = path.read_bytes()
    encoding = encoding_of(path, data[:8192])
    try:
        text = data.decode(encoding or "utf-8-sig")
    except UnicodeDecodeError as exc:
        if encoding:
            raise _binary(path) from None
        raise ListingError(
            f"{path}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}). Re-save it as UTF-8."
        ) from None
    if "\x00" in text:
        raise _binary(path)
    if not text.strip():
        raise ListingError(f"{path}: the file is empty. Nothing to ingest.")
    return text


def _binary(path: Path) -> ListingError:
    return ListingError(f"{path}: binary file, not a listing. Give {SUPPORTED} files.")


def encoding_of(path: Path, sample: bytes) -> str | None:
    """"utf-16..." from a file's first bytes, None for UTF-8; a binary file raises ListingError."""
    encoding = "utf-16" if sample[:2] in (b"\xff\xfe", b"\xfe\xff") else _utf16_without_bom(sample)
    if encoding is None and b"\x00" in sample:
        raise _binary(path)
    return encoding


def text_lines(path: Path, encoding: str | None, on_read=None):
    """A text file's lines as it is read, split as read_text_file's text is (universal newlines), with its
    checks: a NUL or (in UTF-8) an undecodable byte raises ListingError, naming the byte's offset."""
    if encoding:  # UTF-16: the text layer decodes it
        with path.open(encoding=encoding, newline=None) as f:
            try:
                for line in f:
                    if "\x00" in line:
                        raise _binary(path)
                    if on_read:
                        on_read(len(line.encode(encoding, "replace")))
                    yield line[:-1] if line.endswith("\n") else line
            except UnicodeDecodeError:
                raise _binary(path) from None
        return
    offset = 0
    with path.open("rb") as f:
        for raw in f:
            try:
                text = raw.decode("utf-8-sig" if offset == 0 else "utf-8")
            except UnicodeDecodeError as exc:
                raise ListingError(f"{path}: not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {offset + exc.start}). "
                                   "Re-save it as UTF-8.") from None
            if "\x00" in text:
                raise _binary(path)
            offset += len(raw)
            if on_read:
                on_read(len(raw))
            pieces = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            yield from pieces[:-1] if len(pieces) > 1 and pieces[-1] == "" else pieces


def _utf16_without_bom(sample: bytes) -> str | None:
    """UTF-16 saved without a BOM: mostly-ASCII text has a NUL in every other byte."""
    even, odd = sample[0::2], sample[1::2]
    if len(sample) < 4:
        return None
    if odd.count(0) > 0.3 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.3 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def head_text(path: Path) -> tuple[str | None, str]:
    """(encoding, the decoded opening of the file with universal newlines): enough to tell its format."""
    with path.open("rb") as f:
        head = f.read(_HEAD)
    encoding = encoding_of(path, head[:8192])
    text = codecs.getincrementaldecoder(encoding or "utf-8-sig")(errors="replace").decode(head)
    return encoding, text.replace("\r\n", "\n").replace("\r", "\n")
