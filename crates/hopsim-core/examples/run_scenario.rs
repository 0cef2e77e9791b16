//! Run a scenario file from Rust alone (for profiling without Python):
//! `cargo run --release --example run_scenario -- SCENARIO.toml`

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_scenario SCENARIO.toml");
    let scenario = hopsim_core::Scenario::from_toml_file(path.as_ref()).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let mut sim = hopsim_core::Simulator::new(scenario).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let setup = t0.elapsed().as_secs_f64();
    let mut t = 0u64;
    let mut max_pending = 0;
    while !sim.is_done() {
        t += 100_000_000; // 100 us
        sim.run_until(hopsim_core::time::SimTime(t));
        max_pending = max_pending.max(sim.pending_events());
    }
    eprintln!("max pending events (sampled every 100 us): {max_pending}");
    let wall = t0.elapsed().as_secs_f64();
    let s = sim.summary();
    println!("{s:#?}");
    println!(
        "setup {setup:.3}s, wall {wall:.3}s, {:.2} M events/s, {:.2} M packet-hops/s",
        s.events as f64 / wall / 1e6,
        s.packet_hops as f64 / wall / 1e6
    );
}
