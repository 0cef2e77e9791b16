//! Print, every simulated millisecond, the wall time, events and packet-hops of that
//! millisecond and the packets in the network, to see where a long run spends its time:
//! `cargo run --release --example progress -- SCENARIO.toml`

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: progress SCENARIO.toml");
    let scenario = hopsim_core::Scenario::from_toml_file(path.as_ref()).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let mut sim = hopsim_core::Simulator::new(scenario).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    println!("ms  wall_s  M_events  M_hops  M_hops/s  packets_in_network");
    let (mut t, mut ms) = (0u64, 0);
    let (mut events, mut hops) = (0u64, 0u64);
    while !sim.is_done() {
        t += 1_000_000_000; // 1 ms in ps
        ms += 1;
        let t0 = Instant::now();
        sim.run_until(hopsim_core::time::SimTime(t));
        let wall = t0.elapsed().as_secs_f64();
        let s = sim.summary();
        println!(
            "{ms:>3} {wall:>6.2} {:>8.2} {:>7.2} {:>8.2} {:>10}",
            (s.events - events) as f64 / 1e6,
            (s.packet_hops - hops) as f64 / 1e6,
            (s.packet_hops - hops) as f64 / wall / 1e6,
            s.packets_in_flight
        );
        (events, hops) = (s.events, s.packet_hops);
    }
}
