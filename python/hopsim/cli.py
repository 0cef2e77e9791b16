"""The ``hopsim`` command line.

    hopsim run SCENARIO.toml [-o OUTDIR] [--set KEY=VALUE ...] [--unset KEY ...] [--threads N]
               [--partitions P] [--force] [--quiet]
    hopsim validate SCENARIO.toml|SWEEP.toml [--set KEY=VALUE ...] [--unset KEY ...]
    hopsim bench NAME... [--json] [--threads N] [--partitions P] | hopsim bench --all [--json]
        | hopsim bench --list
    hopsim sweep SWEEP.toml [-o OUTDIR] [-j N] [--ray ADDRESS] [--dry-run] [--quiet]
    hopsim workloads
    hopsim scenarios [list] | hopsim scenarios copy [NAME ...] [-o DIR] [--force]
    hopsim schema [-o FILE] [--force]
    hopsim plot RUN_DIR... [-o OUTDIR] [--kind KIND ...] [--metric fct|slowdown]
                [--label NAME ...] [--force]
    hopsim view RUN_DIR... [-o view.html] [--label NAME ...] [--frames N] [--force]
    hopsim report RUN_DIR...|SWEEP_DIR [-o OUTDIR] [--format html|md] [--label NAME ...]
                  [--force]
    hopsim export RUN_DIR --format hpcc-fct -o FILE [--force]
    hopsim compare-ns3 RUN_DIR|SCENARIO.toml [--reference FILE] [--name NS3_RUN]
                       [--set KEY=VALUE ...] [--tolerance 0.1]
    hopsim reproduce PAPER [--quick | --full] [-j N] [--ray ADDRESS] [-o OUTDIR]
                     [--only EXPERIMENT ...]
    hopsim reproduce --list
    hopsim validate-against-ns3 (--config NS3_CONFIG | --topology FILE --flows FILE --cc CC)
                                (--ns3 SIMULATION_DIR | --binary THIRD | --ns3-fct FCT)
                                [--ns3-pfc PFC] [-o OUTDIR] [--force] [--set KEY=VALUE ...]
                                [--tolerance 0.05] [--min-correlation 0.9] [--worst 10]
                                [--no-floor] [--ns3-floor] [--ns3-stall 600]
    hopsim validate-against-ns3 --scenario SCENARIO.toml --ns3 PYRRHA_NS3_DIR
                                [--config AUTHORS_INI] [--set KEY=VALUE ...] [-o OUTDIR]
    hopsim htsim-pair --htsim HTSIM_ROCE [--k 8] [--size 2MB] [--mtu 1000] [--seed 1]
                      [--tm FILE] [-o OUTDIR] [--force] [--json]
    hopsim --version

Input errors print one line, ``hopsim: error: <message>``, and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hopsim
from hopsim import _core, bench, htsim
from hopsim.results import check_outdir, check_writable, format_bytes
from hopsim.scenario import UNSET, apply_overrides, load_scenario, load_toml

EXIT_OK = 0
EXIT_FAILED = 1
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


def _warn(message: str) -> None:
    print(f"hopsim: warning: {message}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """Warnings from the library (a `hopsim.ScenarioWarning`, say) as one line each."""
    if issubclass(category, hopsim.ScenarioWarning):
        _warn(str(message))
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _threads(text: str) -> int:
    """``--threads N``: a whole number of at least 1."""
    return _at_least_one(text, "thread")


def _partitions(text: str) -> int:
    """``--partitions P``: a whole number of at least 1."""
    return _at_least_one(text, "partition")


def _at_least_one(text: str, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of {what}s, got {text!r}"
        ) from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 {what}, got {n}")
    return n


def _cmd_run(args: argparse.Namespace) -> int:
    _check_scenario_file(args.scenario)
    outdir = Path(args.output) if args.output else Path("runs") / Path(args.scenario).stem
    # The scenario's errors first (an occupied output directory would hide them), then
    # an occupied or unwritable output directory, before spending time on the run.
    doc, base = load_scenario(args.scenario, args.set, option="--set")
    doc.setdefault("name", Path(args.scenario).stem)
    doc = bench.with_threads(doc, args.threads, args.partitions)
    hopsim.validate(doc, base_dir=base)
    check_outdir(outdir, args.force, hint="use --force")
    check_writable(outdir)
    result = hopsim.run(doc, base_dir=base, progress=not args.quiet)
    result.write(outdir, force=args.force)
    if not args.quiet:
        print(result.describe())
        print(f"outputs       {outdir}/")
    elif result.status != "complete":
        s = result.summary
        _warn(
            f"{s['flows_total'] - s['flows_finished']:,} of {s['flows_total']:,} flows did "
            "not finish: the run is incomplete"
        )
    return EXIT_OK


def _is_sweep_file(path: str) -> bool:
    """A sweep file has a top-level ``grid``, ``point``, ``seeds`` or ``set``, or names
    its base scenario by file (a scenario's topology is a table)."""
    try:
        doc = load_toml(path)
    except Exception:
        return False
    return any(k in doc for k in ("grid", "point", "seeds", "set")) or isinstance(
        doc.get("scenario"), str
    )


def _cmd_validate(args: argparse.Namespace) -> int:
    _check_scenario_file(args.scenario)
    if _is_sweep_file(args.scenario):
        from hopsim import sweep

        if args.set:
            raise _InputError("validate: --set applies to scenarios, not to a sweep file")
        points = sweep.points(sweep.load_sweep(args.scenario))
        print(f"{args.scenario}: ok (a sweep file: {len(points)} points, each valid)")
        return EXIT_OK
    doc, base = load_scenario(args.scenario, args.set, option="--set")
    hopsim.validate(doc, base_dir=base)
    print(f"{args.scenario}: ok")
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.list:
        for name, description in bench.list_benchmarks():
            print(f"{name:<26} {description}")
        return EXIT_OK
    if args.all:
        if args.name:
            raise _InputError("bench: give benchmark NAMEs or --all, not both")
        return bench.main_many(
            [name for name, _ in bench.list_benchmarks()],
            as_json=args.json,
            threads=args.threads,
            partitions=args.partitions,
        )
    if not args.name:
        raise _InputError("bench: give a benchmark NAME, --all or --list")
    if len(args.name) > 1:
        return bench.main_many(
            args.name, as_json=args.json, threads=args.threads, partitions=args.partitions
        )
    return bench.main(
        args.name[0], as_json=args.json, threads=args.threads, partitions=args.partitions
    )


def _cmd_htsim_pair(args: argparse.Namespace) -> int:
    return htsim.run_from_args(args)


def _cmd_sweep(args: argparse.Namespace) -> int:
    from hopsim import sweep

    path = Path(args.sweep)
    if not path.is_file():
        raise _InputError(f"{path}: {'is a directory' if path.is_dir() else 'no such file'}")
    spec = sweep.load_sweep(path)
    outdir = Path(args.output) if args.output else sweep.default_outdir(spec)
    if args.dry_run:
        points = sweep.points(spec)
        done = 0
        for p in points:
            finished = sweep.is_done(p, outdir)
            done += finished
            print(f"{p.index:>4}  {'done' if finished else 'to run':<6}  {p.name}  {p.label()}")
        print(f"{len(points)} points, {done} done, {len(points) - done} to run -> {outdir}/")
        return EXIT_OK
    try:
        table = sweep.run_sweep(
            spec, outdir=outdir, jobs=args.jobs, ray_address=args.ray, progress=not args.quiet
        )
    except ImportError as exc:
        raise _InputError(str(exc)) from None
    except KeyboardInterrupt:
        print(f"hopsim: interrupted; finished points are kept in {outdir}/", file=sys.stderr)
        return EXIT_INTERRUPTED
    failed = table[table["status"] == "failed"]
    incomplete = table[table["status"] == "incomplete"]
    if not args.quiet:
        print(sweep.describe(table))
        print(f"results       {outdir}/results.csv")
    if len(incomplete):
        points = ", ".join(str(p) for p in incomplete["point"].head(10))
        _warn(
            f"{len(incomplete)} of {len(table)} points ended with unfinished flows "
            f"(status incomplete: point {points}); their statistics cover finished flows only"
        )
    for _, row in failed.head(5).iterrows():
        print(f"hopsim: point {row['point']} failed: {row['error']}", file=sys.stderr)
    if len(failed) > 5:
        print(f"hopsim: {len(failed) - 5} more points failed (see results.csv)", file=sys.stderr)
    return EXIT_FAILED if len(failed) else EXIT_OK


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _cmd_workloads(args: argparse.Namespace) -> int:
    print(f"{'name':<18}{'mean':>10}{'p10':>10}{'p50':>10}{'p90':>10}{'p99':>10}  (bytes)")
    for name, mean, quantiles in _core.builtin_workloads():
        q = dict(quantiles)
        cells = [mean] + [q.get(p, float("nan")) for p in (0.1, 0.5, 0.9, 0.99)]
        print(f"{name:<18}" + "".join(f"{format_bytes(v, 3):>10}" for v in cells))
    return EXIT_OK


def _cmd_scenarios(args: argparse.Namespace) -> int:
    from hopsim import bundled

    if args.action == "list":
        if args.names:
            raise _InputError("scenarios list takes no names (did you mean `scenarios copy`?)")
        files = bundled.listing()
        width = max(len(str(f.path)) for f in files)
        print(f"shipped with hopsim ({bundled.root()}):")
        for f in files:
            print(f"  {str(f.path):<{width}}  {f.about}")
        print("copy them out for editing: hopsim scenarios copy [NAME ...] -o DIR")
        return EXIT_OK
    dest = Path(args.output)
    written = bundled.copy(args.names, dest, force=args.force)
    print(f"copied {len(written)} file{'s' if len(written) != 1 else ''} under {dest}")
    papers = sorted(
        {p.relative_to(dest).parts[0] for p in written if len(p.relative_to(dest).parts) > 1}
    )
    papers = [p for p in papers if p not in ("sweeps",)]
    if papers:
        print(
            f"hopsim reproduce runs the edited copies with HOPSIM_SCENARIOS={dest} "
            f"(e.g. HOPSIM_SCENARIOS={dest} hopsim reproduce {papers[0]})"
        )
    return EXIT_OK


def _cmd_schema(args: argparse.Namespace) -> int:
    text = _core.scenario_schema() + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    out = Path(args.output)
    if out.exists() and not args.force:
        raise _InputError(f"{out} exists; pass --force to replace it")
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return EXIT_OK


def _split_labels(args: argparse.Namespace) -> None:
    """``--label A B RUN1 RUN2`` lets ``--label`` swallow the run directories too: while
    there are more labels than runs, trailing labels that are directories go back to
    the runs."""
    labels, runs = args.label, list(args.runs or [])
    if labels is None:
        return
    labels = list(labels)
    moved: list[str] = []
    while len(labels) > len(runs) + len(moved) and Path(labels[-1]).is_dir():
        moved.insert(0, labels.pop())
    args.runs, args.label = runs + moved, labels


def _check_runs(args: argparse.Namespace) -> None:
    """Check the RUN_DIRs and labels of ``plot`` / ``report`` and that matplotlib loads."""
    _split_labels(args)
    if not args.runs:
        raise _InputError("give at least one RUN_DIR")
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise _InputError(f"plots need matplotlib ({exc}); pip install matplotlib") from None
    for run in args.runs:
        if not Path(run).exists():
            raise _InputError(f"{run}: no such directory")
        if not Path(run).is_dir():
            raise _InputError(f"{run}: not a directory, expected a hopsim output directory")
    if args.label is not None:
        if len(args.label) != len(args.runs):
            raise _InputError(
                f"--label: got {len(args.label)} names for {len(args.runs)} RUN_DIR(s)"
            )
        if len(set(args.label)) < len(args.label):
            raise _InputError(f"--label: names must be distinct, got {' '.join(args.label)}")


def _cmd_plot(args: argparse.Namespace) -> int:
    _check_runs(args)
    from hopsim import plots, report

    runs = report.load_runs(args.runs, args.label)
    plots.check_plot_dir(args.output, args.force, hint="use --force")
    kinds = list(plots.KINDS) if not args.kind or "all" in args.kind else args.kind
    options = {"cdf": {"metric": "slowdown" if args.metric == "slowdown" else "fct_ns"}}
    for p in plots.write_plots(runs, args.output, dict.fromkeys(kinds), force=True, **options):
        print(f"{p.kind:<11} {p.path}" if p.path else f"{p.kind:<11} not drawn: {p.note}")
    return EXIT_OK


def _cmd_view(args: argparse.Namespace) -> int:
    _check_runs(args)
    from hopsim import view

    out = view.write(args.runs, args.output, args.label, args.frames, force=args.force)
    kb = out.stat().st_size / 1e3
    print(f"view          {out} ({kb:,.0f} KB; open it in a browser)")
    return EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    _check_runs(args)
    from hopsim import report, sweep_report

    if len(args.runs) == 1 and sweep_report.is_sweep_dir(args.runs[0]):
        if args.label is not None:
            raise _InputError("--label: a sweep report labels its lines by parameter values")
        check_outdir(args.output, args.force, hint="use --force")
        path = sweep_report.write_sweep_report(
            args.runs[0], args.output, args.format, force=args.force
        )
        print(f"report        {path}")
        return EXIT_OK
    check_outdir(args.output, args.force, hint="use --force")
    path = report.write_report(
        args.runs, args.output, args.format, labels=args.label, force=args.force
    )
    print(f"report        {path}")
    return EXIT_OK


def _cmd_export(args: argparse.Namespace) -> int:
    from hopsim import export

    run = Path(args.run)
    if not run.is_dir():
        raise _InputError(
            f"{run}: {'no such directory' if not run.exists() else 'not a directory'}"
        )
    out = Path(args.output)
    result = hopsim.Result.read(run)
    targets = [out]
    if result.summary.get("pfc_pause_frames", 0) or not result.pfc_events.empty:
        targets.append(out.with_name("pfc.txt" if out.name != "pfc.txt" else "pfc_log.txt"))
    for t in targets:
        if t.exists() and not args.force:
            raise _InputError(f"{t} already exists (use --force to overwrite)")
    check_writable(out.parent)
    for path, lines in export.export(result, args.format, out):
        print(f"{path}  {lines:,} lines")
    if result.status != "complete":
        s = result.summary
        _warn(
            f"{s['flows_total'] - s['flows_finished']:,} of {s['flows_total']:,} flows did "
            "not finish and are not in the file (ns-3 writes finished flows only)"
        )
    return EXIT_OK


def _cmd_compare_ns3(args: argparse.Namespace) -> int:
    from hopsim import ns3

    reference = Path(args.reference) if args.reference else None
    if reference is None:
        anchor = bench.find_anchor("ns3-fattree320")
        if anchor is None:
            raise _InputError(
                "compare-ns3: give --reference (the ns-3 per-bucket table); "
                "shared/anchors/ns3-fattree320 was not found"
            )
        reference = anchor / "reference_buckets_ws30.txt"
    tables = ns3.read_reference(reference)
    source = Path(args.run)
    result = None
    if source.is_dir():
        if args.set:
            raise _InputError("compare-ns3: --set applies to a scenario file, not a run directory")
        result = hopsim.Result.read(source)
        doc, base = result.scenario, None
    else:
        _check_scenario_file(args.run)
        doc, base = load_scenario(args.run, args.set, option="--set")
    name = args.name or ns3.reference_name(doc)
    if name not in tables:
        raise _InputError(
            f"--name: no ns-3 run {name!r} in {reference}; expected one of {', '.join(tables)}"
        )
    if result is None:
        result = hopsim.run(doc, base_dir=base)
    print(ns3.format_comparison(ns3.compare(result, tables[name]), name, args.tolerance))
    if result.status != "complete":
        _warn("the hopsim run is incomplete: its buckets hold finished flows only")
    return EXIT_OK


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from hopsim import reproduce

    if args.list:
        for paper in reproduce.papers():
            print(f"{paper.name}: {paper.title}")
            for e in paper.experiments:
                print(f"  {e.name:<20} {e.figure:<10} {e.section:<11} {e.title}")
        return EXIT_OK
    if not args.paper:
        raise _InputError("reproduce: give a PAPER or --list")
    mode = "full" if args.full else "quick"
    outdir = Path(args.output) if args.output else Path("runs") / f"reproduce-{args.paper}-{mode}"
    check_writable(outdir)
    try:
        claims = reproduce.run(
            args.paper,
            outdir,
            mode=mode,
            jobs=args.jobs,
            ray_address=args.ray,
            only=args.only,
            progress=not args.quiet,
            log=(lambda m: None)
            if args.quiet
            else (lambda m: print(f"hopsim: {m}", file=sys.stderr)),
        )
    except ImportError as exc:
        raise _InputError(str(exc)) from None
    except KeyboardInterrupt:
        print(f"hopsim: interrupted; finished runs are kept in {outdir}/", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(reproduce.count_line(claims))
    print(f"claims        {outdir}/claims.md")
    print(f"report        {outdir}/report.md")
    return EXIT_OK


def _cmd_validate_against_ns3(args: argparse.Namespace) -> int:
    from hopsim import ns3_config, ns3_validate

    build = None
    if args.ns3_fct is None:
        try:
            build = ns3_validate.find_build(args.ns3, args.binary)
        except ValueError as exc:
            raise _InputError(str(exc)) from None
    elif args.ns3 or args.binary:
        raise _InputError(
            "--ns3-fct reads a finished ns-3 run: drop --ns3 / --binary, or drop --ns3-fct"
        )
    if build is not None and build.flavour == "pyrrha":
        return _validate_against_pyrrha(args, build)
    if args.scenario:
        raise _InputError(
            "--scenario runs a hopsim scenario's flows in Pyrrha-NS3: it needs a build of "
            "Pyrrha-NS3 (--ns3 / --binary)"
        )
    if args.ns3_floor and args.ns3_fct is not None:
        raise _InputError("--ns3-floor runs ns-3 again: it needs --ns3 or --binary, not --ns3-fct")
    if args.ns3_pfc and args.ns3_fct is None:
        raise _InputError(
            "--ns3-pfc goes with --ns3-fct (a run made here logs its own PAUSE frames)"
        )
    # ns-3 opens relative input paths from where it runs: its simulation/ folder.
    ns3_cwd = build.workdir if build else Path(args.config).parent if args.config else Path(".")
    if args.config:
        if args.topology or args.flows:
            raise _InputError(
                "--config names the topology and flow files: drop --topology / --flows"
            )
        config_text = Path(args.config).read_text(encoding="utf-8")
        cfg = ns3_config.read_config(args.config)
        doc, mapping = ns3_config.scenario_from_config(cfg, cc=args.cc)
        for part in ("topology", "workload"):
            file = Path(doc[part]["file"])
            doc[part]["file"] = str(file if file.is_absolute() else (ns3_cwd / file).resolve())
        topology, flows, cc = (
            doc["topology"]["file"],
            doc["workload"]["file"],
            doc["transport"]["cc"],
        )
    else:
        conweave = build is not None and build.flavour == "conweave"
        needed = [("--topology", args.topology), ("--flows", args.flows)]
        if not conweave:
            needed.append(("--cc", args.cc))
        missing = [o for o, v in needed if not v]
        if missing:
            raise _InputError(f"give --config NS3_CONFIG, or {', '.join(missing)}")
        if conweave and args.cc not in (None, "dcqcn"):
            raise _InputError(
                f"--cc: ConWeave's ns-3 is configured for DCQCN only (its run.py), got {args.cc}"
            )
        topology, flows, cc = (
            str(Path(args.topology).resolve()),
            str(Path(args.flows).resolve()),
            args.cc or "dcqcn",
        )
        doc = {
            "compat": "ns3",
            "topology": {"kind": "file", "format": "hpcc", "file": topology},
            "workload": {"kind": "flows", "format": "hpcc", "file": flows},
            "transport": {"cc": cc},
        }
        mapping = []
        config_text = None
    if args.lb is not None and (build is None or build.flavour != "conweave" or args.config):
        raise _InputError(
            "--lb chooses ConWeave's balancer for a generated configuration: it needs a build "
            "of ConWeave's ns-3 (--ns3 / --binary) and no --config"
        )
    for option, path in (("--topology", topology), ("--flows", flows), ("--ns3-fct", args.ns3_fct)):
        if path is not None and not Path(path).is_file():
            raise _InputError(f"{option}: {path}: no such file")
    doc = apply_overrides(doc, args.set, option="--set")
    hopsim.validate(doc)
    generate_conweave = build is not None and build.flavour == "conweave" and config_text is None
    name = f"{Path(flows).stem}_{args.lb or 'ecmp' if generate_conweave else cc}"
    outdir = Path(args.output) if args.output else Path("ns3-validation") / name
    check_outdir(outdir, args.force, hint="use --force")
    check_writable(outdir)
    # ns-3 runs from its simulation/ folder: everything it is told is an absolute path.
    outdir = outdir.resolve()
    if generate_conweave:
        # ConWeave's flow files carry no port; its configuration is read back like a user's,
        # so the scenario hopsim runs is exactly what the mapping says.
        outdir.mkdir(parents=True, exist_ok=True)
        cw_flows = ns3_config.write_conweave_flows(flows, outdir / "flows_conweave.txt")
        generated = ns3_config.write_conweave_config(
            outdir / "ns3_generated_config.txt",
            topology=topology,
            flows=cw_flows,
            lb=args.lb or "ecmp",
            out_prefix=outdir / "ns3",
        )
        config_text = generated.read_text(encoding="utf-8")
        doc, mapping = ns3_config.scenario_from_config(ns3_config.read_config(generated))
        doc = apply_overrides(doc, args.set, option="--set")
        hopsim.validate(doc)
    elif build is not None and config_text is None:
        outdir.mkdir(parents=True, exist_ok=True)
        ns3_config.write_config(
            outdir / "ns3_generated_config.txt",
            topology=topology,
            flows=flows,
            cc=cc,
            out_prefix=outdir / "ns3",
        )
        config_text = (outdir / "ns3_generated_config.txt").read_text(encoding="utf-8")
    if build is not None:
        print(
            f"running ns-3 ({build.binary}) and hopsim on {Path(flows).name}, {cc} ...", flush=True
        )
    try:
        v = ns3_validate.validate(
            doc,
            outdir,
            name=name,
            ns3_fct=Path(args.ns3_fct) if args.ns3_fct else None,
            ns3_pfc=Path(args.ns3_pfc) if args.ns3_pfc else None,
            build=build,
            ns3_config_text=config_text,
            floor=not args.no_floor,
            ns3_floor=args.ns3_floor,
            worst=args.worst,
            mapping=mapping,
            stall_s=args.ns3_stall or None,
            report=lambda m: print(f"hopsim: {m}", file=sys.stderr, flush=True),
        )
    except RuntimeError as exc:
        hint = (
            " (--ns3-stall SECONDS waits longer; 0 never stops it)"
            if isinstance(exc, ns3_validate.Stalled)
            else ""
        )
        print(f"hopsim: error: {exc}{hint}", file=sys.stderr)
        return EXIT_FAILED
    text = v.format(args.tolerance, args.min_correlation)
    (outdir / "report.txt").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"outputs       {outdir}/ (report.txt, agreement.json, flows.csv, scenario.toml)")
    return EXIT_OK if not v.failures(args.tolerance, args.min_correlation) else EXIT_FAILED


def _validate_against_pyrrha(args: argparse.Namespace, build: Any) -> int:
    """`validate-against-ns3` with Pyrrha-NS3: hopsim's scenario and its flows in both."""
    from hopsim import ns3_pyrrha

    if not args.scenario:
        raise _InputError(
            "--scenario: Pyrrha-NS3 runs the flows of a hopsim scenario (e.g. "
            "scenarios/pyrrha/incast_mix.toml); give one"
        )
    refused = [
        o
        for o, v in (
            ("--topology", args.topology),
            ("--flows", args.flows),
            ("--cc", args.cc),
            ("--lb", args.lb),
            ("--ns3-floor", args.ns3_floor),
        )
        if v
    ]
    if refused:
        raise _InputError(
            f"{', '.join(refused)}: not used with Pyrrha-NS3 (its flows come from --scenario, "
            "its settings from --config and the scenario)"
        )
    shipped = Path(args.config) if args.config else build.workdir / ns3_pyrrha.SHIPPED_CONFIG
    if not shipped.is_file():
        raise _InputError(f"--config: {shipped}: no such file (the authors' incast-mix config)")
    doc, base = load_scenario(args.scenario, args.set, option="--set")
    hopsim.validate(doc, base_dir=base)
    try:
        ns3_pyrrha.fc_mode(doc, ns3_pyrrha.queue_num(build.workdir))
    except ValueError as exc:
        raise _InputError(str(exc)) from None
    kind = (doc.get("switch", {}).get("flow_control") or {}).get("kind", "pfc")
    name = f"{Path(args.scenario).stem}_{kind}"
    outdir = Path(args.output) if args.output else Path("ns3-validation") / name
    check_outdir(outdir, args.force, hint="use --force")
    check_writable(outdir)
    print(f"running hopsim, then Pyrrha-NS3 ({build.binary}) on {name} ...", flush=True)
    try:
        v = ns3_pyrrha.validate_pyrrha(
            doc,
            base,
            build,
            outdir.resolve(),
            shipped_config=shipped,
            name=name,
            stall_s=args.ns3_stall or None,
            report=lambda m: print(f"hopsim: {m}", file=sys.stderr, flush=True),
        )
    except RuntimeError as exc:
        print(f"hopsim: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:
        raise _InputError(str(exc)) from None
    text = v.format(args.tolerance)
    (outdir / "report.txt").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"outputs       {outdir}/ (report.txt, agreement.json, flows.csv, scenario.toml)")
    return EXIT_OK if not v.failures(args.tolerance) else EXIT_FAILED


def _add_outdir(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "-o",
        "--output",
        default=default,
        metavar="OUTDIR",
        help=f"output directory (default: {default})",
    )


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

    unset_help = (
        "remove a scenario field or table so its default applies, e.g. --unset routing.drill "
        "before --set routing.load_balancer=ecmp (repeatable; applied in order with --set)"
    )

    threads_help = (
        "threads of the parallel engine (engine.threads): the network cut by pod, rack or "
        "min-cut, the results identical to one thread's"
    )
    partitions_help = (
        "partitions of the parallel engine (engine.partitions, at least --threads): each thread "
        "simulates several; on one thread a large network runs faster in cache-sized pieces"
    )

    def unset(key: str) -> tuple[str, Any]:
        return (key, UNSET)

    r = sub.add_parser("run", help="run a scenario and write its results")
    r.add_argument("scenario", metavar="SCENARIO.toml")
    r.add_argument(
        "-o",
        "--output",
        metavar="OUTDIR",
        help="output directory (default: runs/<scenario name>)",
    )
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    r.add_argument(
        "--unset", action="append", dest="set", type=unset, metavar="KEY", help=unset_help
    )
    r.add_argument("--threads", type=_threads, metavar="N", help=threads_help)
    r.add_argument("--partitions", type=_partitions, metavar="P", help=partitions_help)
    r.add_argument("--force", action="store_true", help="overwrite outputs in an existing OUTDIR")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    r.set_defaults(func=_cmd_run)

    v = sub.add_parser("validate", help="check a scenario and its input files without running")
    v.add_argument("scenario", metavar="SCENARIO.toml")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    v.add_argument(
        "--unset", action="append", dest="set", type=unset, metavar="KEY", help=unset_help
    )
    v.set_defaults(func=_cmd_validate)

    b = sub.add_parser("bench", help="run a reference benchmark and report its speed")
    b.add_argument("name", nargs="*", metavar="NAME")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.add_argument("--all", action="store_true", help="run every benchmark, one process each")
    b.add_argument("--json", action="store_true", help="print one JSON object (per benchmark)")
    b.add_argument("--threads", type=_threads, metavar="N", help=threads_help)
    b.add_argument("--partitions", type=_partitions, metavar="P", help=partitions_help)
    b.set_defaults(func=_cmd_bench)

    s = sub.add_parser(
        "sweep", help="run a grid of scenario variants in parallel (resumable), one results table"
    )
    s.add_argument("sweep", metavar="SWEEP.toml")
    s.add_argument(
        "-o", "--output", metavar="OUTDIR", help="output directory (default: runs/<sweep name>)"
    )
    s.add_argument(
        "-j", "--jobs", type=_positive_int, metavar="N", help="parallel runs (default: CPU count)"
    )
    s.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run on Ray: auto, ray://HOST:PORT, or local (needs hopsim[ray])",
    )
    s.add_argument("--dry-run", action="store_true", help="list the points and exit")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no table")
    s.set_defaults(func=_cmd_sweep)

    w = sub.add_parser("workloads", help="list the built-in flow-size distributions")
    w.set_defaults(func=_cmd_workloads)

    sn = sub.add_parser(
        "scenarios",
        help="list the scenarios shipped with hopsim (the quick start and the papers' "
        "experiments) or copy them out for editing",
    )
    sn.add_argument("action", nargs="?", choices=["list", "copy"], default="list")
    sn.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="with copy: a paper's folder (pyrrha), a file (pyrrha/moe.toml, quickstart.toml); "
        "none copies all",
    )
    sn.add_argument("-o", "--output", default=".", metavar="DIR", help="copy under DIR (default .)")
    sn.add_argument("--force", action="store_true", help="replace files that exist")
    sn.set_defaults(func=_cmd_scenarios)

    sc = sub.add_parser(
        "schema",
        help="print the JSON Schema of a scenario (every table, kind and field with its "
        "type, default and meaning)",
    )
    sc.add_argument("-o", "--output", metavar="FILE", help="write it to FILE instead")
    sc.add_argument("--force", action="store_true", help="replace FILE if it exists")
    sc.set_defaults(func=_cmd_schema)

    label_help = "name the runs in legends and tables, one per RUN_DIR (default: folder names)"
    pl = sub.add_parser("plot", help="draw figures (PNG) of one or several runs")
    pl.add_argument("runs", nargs="*", metavar="RUN_DIR")
    _add_outdir(pl, "runs/plots")
    pl.add_argument(
        "--kind",
        action="append",
        choices=["slowdown", "cdf", "throughput", "queues", "buffers", "pauses", "all"],
        help="figure to draw (repeatable; default: all)",
    )
    pl.add_argument(
        "--metric",
        choices=["fct", "slowdown"],
        default="fct",
        help="what the cdf figure shows (default: fct)",
    )
    pl.add_argument("--label", action="extend", nargs="+", metavar="NAME", help=label_help)
    pl.add_argument(
        "--force",
        action="store_true",
        help="write into an OUTDIR holding other files (one holding only figures is reused)",
    )
    pl.set_defaults(func=_cmd_plot)

    vw = sub.add_parser(
        "view",
        help="replay runs on their topology in one self-contained HTML page (queues, pauses, "
        "congestion trees, deflections, drops; time slider; runs side by side)",
    )
    vw.add_argument("runs", nargs="*", metavar="RUN_DIR")
    vw.add_argument(
        "-o", "--output", default="view.html", metavar="FILE", help="(default view.html)"
    )
    vw.add_argument("--label", action="extend", nargs="+", metavar="NAME", help=label_help)
    vw.add_argument(
        "--frames",
        type=_positive_int,
        default=200,
        metavar="N",
        help="time steps of the replay (default 200, at most 400)",
    )
    vw.add_argument("--force", action="store_true", help="replace FILE if it exists")
    vw.set_defaults(func=_cmd_view)

    rp = sub.add_parser(
        "report",
        help="write an HTML or Markdown report comparing runs, or of a sweep's output directory",
    )
    rp.add_argument("runs", nargs="*", metavar="RUN_DIR")
    _add_outdir(rp, "runs/report")
    rp.add_argument(
        "--format",
        choices=["html", "md"],
        default="html",
        help="report.html with embedded figures (default) or report.md + PNGs",
    )
    rp.add_argument("--label", action="extend", nargs="+", metavar="NAME", help=label_help)
    rp.add_argument("--force", action="store_true", help="overwrite files in an existing OUTDIR")
    rp.set_defaults(func=_cmd_report)

    ex = sub.add_parser("export", help="write a run in another simulator's format")
    ex.add_argument("run", metavar="RUN_DIR")
    ex.add_argument(
        "--format",
        choices=["hpcc-fct"],
        required=True,
        help="hpcc-fct: the HPCC ns-3 simulator's fct.txt, and pfc.txt beside it",
    )
    ex.add_argument("-o", "--output", required=True, metavar="FILE", help="the fct.txt to write")
    ex.add_argument("--force", action="store_true", help="overwrite existing files")
    ex.set_defaults(func=_cmd_export)

    cn = sub.add_parser(
        "compare-ns3",
        help="print a run's FCT slowdown per size bucket beside the ns-3 RDMA simulator's",
    )
    cn.add_argument("run", metavar="RUN_DIR|SCENARIO", help="a run directory, or a scenario to run")
    cn.add_argument(
        "--reference",
        metavar="FILE",
        help="ns-3's per-bucket table (default: reference_buckets_ws30.txt of "
        "shared/anchors/ns3-fattree320)",
    )
    cn.add_argument(
        "--name",
        metavar="NS3_RUN",
        help="the ns-3 run to compare with (default: the flow file and CC, e.g. ws30_10ms_dcqcn)",
    )
    cn.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    cn.add_argument(
        "--tolerance", type=float, default=0.10, help="ratios within 1 ± this count as agreeing"
    )
    cn.set_defaults(func=_cmd_compare_ns3)

    rr = sub.add_parser(
        "reproduce",
        help="run a paper's experiments (resumable), draw its figures and compare its claims",
    )
    rr.add_argument("paper", nargs="?", metavar="PAPER", help="e.g. pyrrha (see --list)")
    rr.add_argument("--list", action="store_true", help="list the papers and their experiments")
    size = rr.add_mutually_exclusive_group()
    size.add_argument(
        "--quick", action="store_true", help="shortened runs, minutes on 2 cores (default)"
    )
    size.add_argument("--full", action="store_true", help="the paper's sizes")
    rr.add_argument(
        "-o",
        "--output",
        metavar="OUTDIR",
        help="output directory (default: runs/reproduce-PAPER-MODE)",
    )
    rr.add_argument(
        "-j", "--jobs", type=_positive_int, metavar="N", help="parallel runs (default: CPU count)"
    )
    rr.add_argument("--ray", metavar="ADDRESS", help="run on Ray: auto, ray://HOST:PORT or local")
    rr.add_argument(
        "--only", nargs="+", metavar="EXPERIMENT", help="run only these experiments (see --list)"
    )
    rr.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    rr.set_defaults(func=_cmd_reproduce)
    va = sub.add_parser(
        "validate-against-ns3",
        help="run hopsim and your ns-3 RDMA simulator build on the same inputs; compare "
        "flow by flow",
        description='Run hopsim (compat = "ns3") and the ns-3 RDMA (HPCC) simulator on the '
        "same topology and flows, join flows one to one and print per-bucket slowdowns, "
        "per-flow correlation, the worst-agreeing flows, PAUSE frames and drops, speed and "
        "memory. Exit status 0 when they agree (every bucket's mean, p50, p95 within "
        "--tolerance and correlation >= --min-correlation), 1 when they differ.",
    )
    va.add_argument(
        "--config",
        metavar="NS3_CONFIG",
        help="an ns-3 config.txt (its topology, flows, CC and parameters); with Pyrrha-NS3, "
        "the authors' config to start from (default mix_withcc/config-CI-NEAREST_MATCH-1-"
        "FLOW_CDF-13-dcqcn.ini under --ns3)",
    )
    va.add_argument(
        "--scenario",
        metavar="SCENARIO",
        help="with a build of Pyrrha-NS3: the hopsim scenario whose topology and flows both "
        "run (e.g. scenarios/pyrrha/incast_mix.toml; --set changes it)",
    )
    va.add_argument(
        "--topology", metavar="FILE", help="an HPCC topology file (with --flows and --cc)"
    )
    va.add_argument("--flows", metavar="FILE", help="an HPCC flow file")
    va.add_argument(
        "--cc",
        choices=["dcqcn", "hpcc", "timely", "dctcp"],
        help="congestion control (with --config: overrides its CC_MODE)",
    )
    va.add_argument(
        "--lb",
        choices=["ecmp", "drill", "conga", "letflow"],
        help="with a build of ConWeave's ns-3: the load balancer both run (default ecmp)",
    )
    va.add_argument(
        "--ns3",
        metavar="SIMULATION_DIR",
        help="ns-3's simulation/ folder, built (build/scratch/third), ConWeave's checkout "
        "(build/scratch/network-load-balance) or Pyrrha-NS3's (build/scratch/third)",
    )
    va.add_argument(
        "--binary", metavar="THIRD", help="the ns-3 `third` program, if not under --ns3"
    )
    va.add_argument(
        "--ns3-fct", metavar="FCT", help="a finished ns-3 run's fct.txt instead of running ns-3"
    )
    va.add_argument(
        "--ns3-pfc", metavar="PFC", help="that run's pfc.txt, to count its PAUSE frames"
    )
    _add_outdir(va, "ns3-validation/<flows>_<cc>")
    va.add_argument("--force", action="store_true", help="overwrite an existing output directory")
    va.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=set_help)
    va.add_argument(
        "--tolerance", type=float, default=0.05, help="bucket ratios within 1 ± this agree (0.05)"
    )
    va.add_argument(
        "--min-correlation",
        type=float,
        default=0.9,
        help="least per-flow slowdown correlation (0.9)",
    )
    va.add_argument("--worst", type=int, default=10, help="worst-agreeing flows to list (10)")
    va.add_argument(
        "--no-floor", action="store_true", help="skip the second hopsim run (another seed)"
    )
    va.add_argument(
        "--ns3-floor",
        action="store_true",
        help="run ns-3 a second time with RngRun=2: how far ns-3 agrees with itself",
    )
    va.add_argument(
        "--ns3-stall",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="stop ns-3 when its log and outputs have not grown for this long (600; 0: never)",
    )
    va.set_defaults(func=_cmd_validate_against_ns3)

    hp = sub.add_parser(
        "htsim-pair",
        help="run htsim's RoCE fat-tree and hopsim on one permutation; speed side by side",
    )
    htsim.add_arguments(hp)
    hp.set_defaults(func=_cmd_htsim_pair)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hopsim`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", hopsim.ScenarioWarning)
            warnings.showwarning = _show_warning
            return args.func(args)
    except (_InputError, hopsim.ScenarioError, FileExistsError, OSError) as exc:
        print(f"hopsim: error: {_error_message(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except ValueError as exc:  # a run directory that fails its manifest, a bad export
        print(f"hopsim: error: {_error_message(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except hopsim.InternalError as exc:
        print(f"hopsim: internal error: {_error_message(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("hopsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
