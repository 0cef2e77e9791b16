//! Pyrrha's state over time, as results: snapshots of the congestion trees at the
//! instants `[output.congestion_trees]` asks for (Pyrrha takes them on its own timer), and
//! the log of isolation-queue usage per port (both empty unless Pyrrha runs).

use super::Simulator;
use crate::switch::flow_control::pyrrha::{IqUsageRecord, Pyrrha, TreeRecord};

impl Simulator {
    /// `[output.congestion_trees]` records, in time order (empty unless Pyrrha runs).
    pub fn congestion_trees(&self) -> &[TreeRecord] {
        self.switches.fc.get::<Pyrrha>().map_or(&[], |p| p.tree_records())
    }

    /// Every change of a port's number of Pyrrha isolation queues, in time order.
    pub fn iq_usage(&self) -> &[IqUsageRecord] {
        self.switches.fc.get::<Pyrrha>().map_or(&[], |p| &p.usage)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Scenario, Simulator};

    /// Snapshots are taken only at the instants asked and every interval while the run
    /// goes on, and an incast under Pyrrha shows up in them.
    #[test]
    fn snapshots_fire_at_the_instants_asked() {
        let text = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 4\nright_hosts = 1\n\
                    [switch.flow_control]\nkind = \"pyrrha\"\n\
                    [output.congestion_trees]\nat = [\"7us\", \"5us\"]\ninterval = \"4us\"\n\
                    [workload]\nkind = \"incast\"\nreceiver = 4\nfan_in = 4\nsize_min = \"60KB\"\n\
                    size_max = \"60KB\"\nperiod = \"1ms\"\nstop = \"1us\"\n";
        let mut sim = Simulator::new(Scenario::from_toml_str(text).unwrap()).unwrap();
        sim.run();
        let us = |t: u64| t / 1_000_000;
        let times: std::collections::BTreeSet<u64> =
            sim.congestion_trees().iter().map(|r| r.time.0).collect();
        assert!(!times.is_empty(), "the incast built a tree");
        for t in &times {
            assert!(t % 1_000_000 == 0 && (us(*t) % 4 == 0 || [5, 7].contains(&us(*t))), "{times:?}");
        }
        assert_eq!(sim.summary().flows_finished, 4);
    }
}
