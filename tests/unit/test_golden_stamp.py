"""Golden records and reports take their time stamp from SOURCE_DATE_EPOCH when it is set
(the reproducible-builds convention), so a report can be remade byte for byte; a
malformed value is a GoldenError, as the convention asks."""

from __future__ import annotations

import re

import pytest
from lamina.errors import GoldenError
from lamina.golden.artefacts import stamp


@pytest.mark.parametrize("epoch, expected", [("0", "1970-01-01 00:00:00"), ("1796083200", "2026-12-01 00:00:00"),
                                             (" 86399 ", "1970-01-01 23:59:59"),
                                             ("253402300799", "9999-12-31 23:59:59")])
def test_source_date_epoch_fixes_the_stamp_in_utc(monkeypatch, epoch, expected):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    assert stamp() == expected


@pytest.mark.parametrize("epoch", ["soon", "1.5", "-1", "+5", "1_000", "1e3", "0x10", "\u0661\u0662",
                                   "253402300800", "99999999999999999999"])
def test_a_malformed_source_date_epoch_is_an_error_naming_it(monkeypatch, epoch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    with pytest.raises(GoldenError, match="SOURCE_DATE_EPOCH=.*whole seconds since 1970"):
        stamp()


@pytest.mark.parametrize("epoch", [None, "", "  "])
def test_without_an_epoch_the_stamp_is_the_clock(monkeypatch, epoch):
    if epoch is None:
        monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    else:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    value = stamp()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", value) and not value.startswith("1970")
