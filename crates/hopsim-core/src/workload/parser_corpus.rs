//! A corpus-style fuzz test of every input reader (`cargo fuzz` style, without its
//! toolchain): valid seed inputs are mutated thousands of times by a seeded generator —
//! bytes flipped, tokens near integer and float limits inserted, ranges deleted, lines
//! repeated, a byte-order mark added — and each reader must return either a value or one
//! error line naming the file and line (or, for scenarios, the field). A panic fails.

use std::panic::{catch_unwind, AssertUnwindSafe};

use rand::Rng;

use crate::engine::{rng_stream, RngStream};
use crate::scenario::{Scenario, ScenarioError, ValidScenario};
use crate::topology::{parse_hpcc_topology, Topology};

use super::{parse_csv_flows, parse_hpcc_flows, EmpiricalCdf};

/// Tokens that probe the edges of the readers' number handling.
const TOKENS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775808",
    "4294967296",
    "4294967295",
    "1000000000000",
    "-1",
    "0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "1e-320",
    "0.0000000000001",
    "99999999999999999999999999",
    "100Gbps",
    "0bps",
    "1000s",
    "1ps",
    ",",
    "\"",
    "#",
    " ",
    "\n",
    "\t",
    "\u{feff}",
    "é",
    "[",
    "]",
    "=",
    "{",
];

fn mutate(seed: &str, rng: &mut RngStream) -> String {
    let mut text: Vec<char> = seed.chars().collect();
    for _ in 0..rng.gen_range(1..=4) {
        let at = rng.gen_range(0..=text.len());
        match rng.gen_range(0..6) {
            0 if !text.is_empty() => {
                let pool = b"0123456789-.e \n,\"#xn";
                let i = rng.gen_range(0..text.len());
                text[i] = pool[rng.gen_range(0..pool.len())] as char;
            }
            1 | 2 => {
                let token = TOKENS[rng.gen_range(0..TOKENS.len())];
                text.splice(at..at, token.chars());
            }
            3 if !text.is_empty() => {
                let end = (at + rng.gen_range(1..12)).min(text.len());
                text.drain(at.min(end)..end);
            }
            4 => {
                let s: String = text.iter().collect();
                let lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let line = lines[rng.gen_range(0..lines.len())].to_string() + "\n";
                    text.splice(at..at, line.chars());
                }
            }
            _ => text.truncate(at),
        }
    }
    text.into_iter().collect()
}

/// Replace the value of one `key = value` line of a TOML text by an edge token, bare or
/// quoted with a unit: mostly still TOML, so validation (not just parsing) is exercised.
fn mutate_value(seed: &str, rng: &mut RngStream) -> String {
    let lines: Vec<&str> = seed.lines().collect();
    let keyed: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
    let i = keyed[rng.gen_range(0..keyed.len())];
    let key = lines[i].split(" = ").next().unwrap_or("");
    let token = TOKENS[rng.gen_range(0..12)];
    let unit = ["", "us", "ms", "s", "Gbps", "KB", "B"][rng.gen_range(0..7)];
    let value = match rng.gen_range(0..3) {
        0 => token.to_string(),
        1 => format!("\"{token}{unit}\""),
        _ => format!("\"{}\"", ["dcqcn", "static", "none", "bdp", "irn", "x"][rng.gen_range(0..6)]),
    };
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out[i] = format!("{key} = {value}");
    out.join("\n") + "\n"
}

/// Run `read` on `runs` mutations of each seed; every error must start with `prefix`
/// (`file:`) and be one line. Returns (accepted, rejected) counts.
fn fuzz(
    name: &str,
    seeds: &[&str],
    runs: usize,
    located: impl Fn(&ScenarioError) -> bool,
    read: impl Fn(&str) -> Result<(), ScenarioError>,
) -> (usize, usize) {
    fuzz_with(name, seeds, runs, mutate, located, read)
}

fn fuzz_with(
    name: &str,
    seeds: &[&str],
    runs: usize,
    mutation: impl Fn(&str, &mut RngStream) -> String,
    located: impl Fn(&ScenarioError) -> bool,
    read: impl Fn(&str) -> Result<(), ScenarioError>,
) -> (usize, usize) {
    let mut rng = rng_stream(13, name);
    let (mut ok, mut err) = (0, 0);
    for i in 0..runs {
        let input = mutation(seeds[i % seeds.len()], &mut rng);
        match catch_unwind(AssertUnwindSafe(|| read(&input))) {
            Ok(Ok(())) => ok += 1,
            Ok(Err(e)) => {
                let message = e.to_string();
                assert!(located(&e), "{name}: error not located: {message}\ninput: {input:?}");
                assert!(!message.contains('\n'), "{name}: multi-line error: {message:?}");
                err += 1;
            }
            Err(_) => panic!("{name}: the reader panicked on {input:?}"),
        }
    }
    (ok, err)
}

fn in_file(file: &'static str) -> impl Fn(&ScenarioError) -> bool {
    // Whole-file problems (a host without a link) name the file as the field.
    move |e| match e {
        ScenarioError::FileLine { file: f, .. } | ScenarioError::File { file: f, .. } => f == file,
        ScenarioError::Field { path, .. } => path == file,
        ScenarioError::Syntax(_) => false,
    }
}

fn dumbbell() -> Topology {
    parse_hpcc_topology("6 2 5\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n3 5 100Gbps 1us 0\n4 5 400Gbps 1us 0\n", "t")
        .expect("valid")
}

#[test]
fn topology_reader_never_panics() {
    let seeds = [
        "6 2 5\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n3 5 100Gbps 1us 0\n4 5 400Gbps 1us 0\n",
        "5 1 4\n4\n0 4 100Gbps 1000ns 0.000000\n1 4 100Gbps 1000ns 0\n2 4 25Gbps 2us 0\n3 4 100Gbps 1000ns 0\n",
    ];
    let (ok, err) =
        fuzz("topology", &seeds, 4000, in_file("t.txt"), |text| parse_hpcc_topology(text, "t.txt").map(drop));
    assert!(ok > 50 && err > 1000, "ok {ok}, err {err}");
}

#[test]
fn flow_file_readers_never_panic() {
    let topo = dumbbell();
    let hpcc = ["3\n0 2 3 100 20000 2.000001\n1 3 3 100 5000 2.0\n2 0 0 100 1 0.5\n"];
    let (ok, err) = fuzz("hpcc flows", &hpcc, 4000, in_file("f.txt"), |text| {
        parse_hpcc_flows(text, "f.txt", &topo, "x").map(drop)
    });
    assert!(ok > 50 && err > 1000, "hpcc flows: ok {ok}, err {err}");
    let csv = [
        "flow_id,src,dst,size_bytes,start_ns,tag,class\n0,0,2,1000,1500.25,\"a,b\",congested\n1,1,3,5.0,2e3,,\n",
        "src,dst,size_bytes,start_ns,priority,dport\n0,3,100,0,3,100\n",
    ];
    let (ok, err) = fuzz("csv flows", &csv, 4000, in_file("c.csv"), |text| {
        parse_csv_flows(text, "c.csv", &topo, "x").map(drop)
    });
    assert!(ok > 50 && err > 1000, "csv flows: ok {ok}, err {err}");
}

#[test]
fn cdf_reader_never_panics() {
    let seeds = ["# interpolation: step\n1000 0.1\n20000 0.5\n1000000 1\n", "0 0\n100 0.5\n30000000 1.0\n"];
    let (ok, err) = fuzz("cdf", &seeds, 4000, in_file("x.cdf"), |text| {
        let cdf = EmpiricalCdf::parse(text, "x.cdf")?;
        let mut rng = rng_stream(1, "sample");
        let largest = cdf.largest().max(1);
        assert!((0..20).all(|_| cdf.sample(&mut rng) <= largest), "sample beyond {largest}");
        assert!(cdf.mean().is_finite() && cdf.mean() >= 0.0, "mean of {text:?}");
        Ok(())
    });
    assert!(ok > 50 && err > 500, "ok {ok}, err {err}");
}

#[test]
fn scenario_reader_and_validation_never_panic() {
    let seeds = [
        "seed = 3\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 2\nright_hosts = 2\nhost_rate = \"100Gbps\"\n\
         [switch]\nbuffer_bytes = \"2MB\"\n[switch.pfc]\nalpha = 0.125\n[transport]\nmtu = 1000\nwindow = \"bdp\"\n\
         [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 3, size = \"10KB\", start = \"1us\" }]\n",
        "duration = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 2\nhosts_per_leaf = 2\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 0\nfan_in = 3\nsize_min = 1000\nsize_max = 2000\n\
         period = \"100us\"\nstop = \"300us\"\n[[workload]]\nkind = \"poisson\"\nsize_dist = \"websearch\"\n\
         load = 0.3\nstop = \"200us\"\n",
    ];
    let located = |e: &ScenarioError| match e {
        ScenarioError::Field { path, .. } => !path.is_empty() && path != ".",
        ScenarioError::Syntax(m) => !m.is_empty(),
        _ => true,
    };
    let read = |text: &str| {
        let scenario = Scenario::from_toml_str(text)?;
        ValidScenario::new(scenario).map(drop)
    };
    let (ok, err) = fuzz("scenario", &seeds, 1000, located, read);
    assert!(err > 500, "ok {ok}, err {err}");
    let (ok, err) = fuzz_with("scenario values", &seeds, 2000, mutate_value, located, read);
    assert!(ok > 30 && err > 1000, "ok {ok}, err {err}");
}
