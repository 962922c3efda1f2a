"""Downloads a spreadsheet opens: CSV whose cells are never run as formulas, and that Excel reads as UTF-8."""

from __future__ import annotations

__all__ = ("CSV_MEDIA_TYPE", "for_spreadsheets", "neutralise_cell")

CSV_MEDIA_TYPE = "text/csv"
"""Litestar adds `; charset=utf-8` to a text type itself: naming the charset here too sent it twice."""
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: str) -> str:
    """A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return
    first) gets a leading apostrophe, so it is shown as text and never run."""
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def for_spreadsheets(csv_text: str) -> str:
    """A CSV download starts with the UTF-8 byte-order mark: without it Excel reads the file in the
    machine's legacy code page, and Hebrew, Arabic or umlauts come out garbled."""
    return "\ufeff" + csv_text
