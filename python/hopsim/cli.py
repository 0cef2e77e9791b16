"""The ``hopsim`` command line.

    hopsim run SCENARIO.toml [-o OUTDIR] [--set KEY=VALUE ...] [--force] [--quiet]
    hopsim validate SCENARIO.toml [--set KEY=VALUE ...]
    hopsim bench NAME [--json] | hopsim bench --list
    hopsim workloads
    hopsim --version

Input errors print one line, ``hopsim: error: <message>``, and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import hopsim
from hopsim import _core, bench
from hopsim.results import check_outdir, format_bytes

EXIT_OK = 0
EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


class _InputError(Exception):
    """A user input problem reported as one line with exit status 2."""


def _error_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror.lower()}"
    return str(exc).strip().replace("\n", " ")


def _check_scenario_file(path: str) -> None:
    p = Path(path)
    if not p.exists():
        raise _InputError(f"{path}: no such file")
    if p.is_dir():
        raise _InputError(f"{path}: is a directory, expected a scenario .toml file")


def _cmd_run(args: argparse.Namespace) -> int:
    _check_scenario_file(args.scenario)
    outdir = Path(args.output) if args.output else Path("runs") / Path(args.scenario).stem
    # Refuse an occupied output directory before spending time on the run.
    check_outdir(outdir, args.force, hint="use --force")
    result = hopsim.run(args.scenario, overrides=args.set, progress=not args.quiet)
    result.write(outdir, force=args.force)
    if not args.quiet:
        print(result.describe())
        print(f"outputs       {outdir}/")
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    _check_scenario_file(args.scenario)
    hopsim.validate(args.scenario, overrides=args.set)
    print(f"{args.scenario}: ok")
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.list:
        for name, description in bench.list_benchmarks():
            print(f"{name:<26} {description}")
        return EXIT_OK
    if not args.name:
        raise _InputError("bench: give a benchmark NAME or --list")
    return bench.main(args.name, as_json=args.json)


def _cmd_workloads(args: argparse.Namespace) -> int:
    print(f"{'name':<18}{'mean':>10}{'p10':>10}{'p50':>10}{'p90':>10}{'p99':>10}  (bytes)")
    for name, mean, quantiles in _core.builtin_workloads():
        q = dict(quantiles)
        cells = [mean] + [q.get(p, float("nan")) for p in (0.1, 0.5, 0.9, 0.99)]
        print(f"{name:<18}" + "".join(f"{format_bytes(v, 3):>10}" for v in cells))
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hopsim",
        description="Fast, deterministic packet-level simulator of datacenter networks.",
    )
    p.add_argument("--version", action="version", version=f"hopsim {hopsim.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    set_help = (
        "override a scenario field, e.g. --set switch.pfc.enabled=false or "
        "--set workload.0.load=0.3 (value read as TOML; repeatable)"
    )

    r = sub.add_parser("run", help="run a scenario and write its results")
    r.add_argument("scenario", metavar="SCENARIO.toml")
    r.add_argument(
        "-o",
        "--output",
        metavar="OUTDIR",
        help="output directory (default: runs/<scenario name>)",
    )
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    r.add_argument("--force", action="store_true", help="overwrite outputs in an existing OUTDIR")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    r.set_defaults(func=_cmd_run)

    v = sub.add_parser("validate", help="check a scenario and its input files without running")
    v.add_argument("scenario", metavar="SCENARIO.toml")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    v.set_defaults(func=_cmd_validate)

    b = sub.add_parser("bench", help="run a reference benchmark and report its speed")
    b.add_argument("name", nargs="?", metavar="NAME")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(func=_cmd_bench)

    w = sub.add_parser("workloads", help="list the built-in flow-size distributions")
    w.set_defaults(func=_cmd_workloads)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hopsim`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except (_InputError, hopsim.ScenarioError, FileExistsError, OSError) as exc:
        print(f"hopsim: error: {_error_message(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("hopsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
