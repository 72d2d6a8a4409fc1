"""`theorybench report --sharpness`: bad files exit 2 before any work."""

from __future__ import annotations


def test_cli_report_refuses_a_bad_sharpness_file_before_any_work(cli_exit, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("[]")
    code, out, err = cli_exit("report", "--db", str(tmp_path / "db.sqlite"), "--out",
                               str(tmp_path / "rep"), "--sharpness", str(bad))
    assert code == 2 and "not the output of `theorybench sharpness" in err
    assert not (tmp_path / "rep").exists()
