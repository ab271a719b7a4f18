"""The command line run in the test's own process (no interpreter started per call): its exit
status, stdout and stderr. argparse's usage errors (SystemExit) give their status too."""

from __future__ import annotations

from metrics.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:   # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
