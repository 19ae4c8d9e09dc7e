"""The upload rules every tab of ``augkit serve`` shares (moved here from the FAQ page):
sizes in human units, the upload limit, the download's name and messages without server
paths. No gradio needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from augkit.errors import AugkitError
from augkit.web.uploads import (
    check_upload_size,
    download_path,
    format_size,
    parse_size,
    without_server_path,
)


@pytest.mark.parametrize(("text", "size"), [("20MB", 20_000_000), ("500 kb", 500_000), ("1MiB", 1_048_576), (2048, 2048), ("1.5GB", 1_500_000_000)])
def test_sizes_are_read_in_human_units(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["20 parsecs", "", "-5MB", "0"])
def test_unreadable_sizes_are_refused(text):
    with pytest.raises(AugkitError):
        parse_size(text)


def test_an_upload_over_the_limit_is_refused_with_both_sizes(tmp_path):
    path = tmp_path / "faq.csv"
    path.write_text("q,a\n" + "x,y\n" * 2000)
    check_upload_size(path, 20_000_000)
    with pytest.raises(AugkitError, match=r"the file is 8 KB; the limit is 1 KB \(augkit serve --max-file-size\)"):
        check_upload_size(path, 1000)
    assert format_size(25_300_000) == "25.3 MB"


@pytest.mark.parametrize(("upload", "name"), [("faq.xlsx", "faq-augmented.xlsx"), ("my.faq.csv", "my.faq-augmented.csv"),
                                              ("faq.txt", "faq-augmented.csv"), ("data.csv.gz", "data.csv-augmented.csv")])
def test_the_download_keeps_the_upload_format_inside_the_folder(tmp_path, upload, name):
    path = download_path(f"/somewhere/else/{upload}", tmp_path)
    assert path == tmp_path / name and Path(path).parent == tmp_path
    assert download_path(upload, tmp_path, "trace").name == name.replace("-augmented", "-trace")


def test_messages_name_the_upload_not_its_server_folder(tmp_path):
    path = tmp_path / "gradio" / "abc123" / "train.csv"
    message = without_server_path(f"cannot read '{path}': bad quoting near {path.parent}/other.csv", path)
    assert str(tmp_path) not in message
    assert message == "cannot read 'train.csv': bad quoting near other.csv"
