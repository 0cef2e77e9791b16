//! Print the sending rate of every flow over time: `trace_rates SCENARIO.toml STEP_US END_US`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("scenario");
    let step: u64 = args[2].parse().expect("step in us");
    let end: u64 = args[3].parse().expect("end in us");
    let mut sim = hopsim_core::Simulator::new(hopsim_core::Scenario::from_toml_str(&text).expect("valid"))
        .expect("builds");
    let flows = sim.flow_records().len();
    let mut t = 0;
    while t < end {
        t += step;
        sim.run_until(hopsim_core::time::SimTime(t * 1_000_000));
        let rates: Vec<String> = (0..flows)
            .map(|f| format!("{:6.2}", sim.flow_progress(hopsim_core::ids::FlowId(f as u32)).1 as f64 / 1e9))
            .collect();
        println!("{t:>6} us  {}", rates.join(" "));
    }
}
