//! Micro-benchmarks of the hot paths (criterion): the event queue at realistic sizes,
//! forwarding packets through switches, and a NIC scheduling many flows.
//!
//! `cargo bench -p hopsim-core --bench core` (add `-- --quick` for a fast pass).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};

use hopsim_core::engine::{Event, EventQueue};
use hopsim_core::ids::NodeId;
use hopsim_core::time::{Delta, SimTime};
use hopsim_core::{Scenario, Simulator};

/// The hold model: with `pending` events queued, pop the earliest and schedule one
/// 0-2 µs later (link delays plus serialization), as the simulator does.
fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue_hold");
    for pending in [1_000usize, 4_000, 16_000] {
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(pending), &pending, |b, &pending| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let mut q = EventQueue::with_horizon(Delta::from_us(2));
            for i in 0..pending {
                q.schedule(SimTime(rng.gen_range(0..2_000_000)), Event::NicWake { node: NodeId(i as u32) });
            }
            b.iter(|| {
                let (t, ev) = q.pop_until(SimTime::NEVER).expect("never empty");
                q.schedule(t + Delta(rng.gen_range(0..2_000_000)), black_box(ev));
            });
        });
    }
    g.finish();
}

fn scenario(text: &str) -> Simulator {
    Simulator::new(Scenario::from_toml_str(text).expect("valid")).expect("builds")
}

/// Per-packet forwarding: one 4 MB flow across a dumbbell (NIC, two switches), so
/// almost all work is the switch receive / enqueue / dequeue / transmit path.
fn forwarding(c: &mut Criterion) {
    let text = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                [transport]\ncc = \"none\"\n\
                [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"4MB\" }]\n";
    let hops = {
        let mut s = scenario(text);
        s.run();
        s.summary().packet_hops
    };
    let mut g = c.benchmark_group("forwarding");
    g.throughput(Throughput::Elements(hops));
    g.bench_function("dumbbell_4MB_per_packet_hop", |b| {
        b.iter(|| {
            let mut s = scenario(text);
            s.run();
            black_box(s.summary().packet_hops)
        })
    });
    g.finish();
}

/// NIC scheduling: one host sends 64 flows at once (DCQCN rate limiters, round robin),
/// each to a different receiver of a leaf-spine.
fn host_scheduling(c: &mut Criterion) {
    let flows: String = (1..=64).map(|d| format!("{{ src = 0, dst = {d}, size = \"64KB\" }}, ")).collect();
    let text = format!(
        "[topology]\nkind = \"leaf_spine\"\nspines = 2\nleaves = 5\nhosts_per_leaf = 16\n\
         [workload]\nkind = \"flows\"\nflows = [{flows}]\n"
    );
    let hops = {
        let mut s = scenario(&text);
        s.run();
        s.summary().packet_hops
    };
    let mut g = c.benchmark_group("host_scheduling");
    g.throughput(Throughput::Elements(hops));
    g.bench_function("one_nic_64_flows_per_packet_hop", |b| {
        b.iter(|| {
            let mut s = scenario(&text);
            s.run();
            black_box(s.summary().packet_hops)
        })
    });
    g.finish();
}

criterion_group!(benches, event_queue, forwarding, host_scheduling);
criterion_main!(benches);
