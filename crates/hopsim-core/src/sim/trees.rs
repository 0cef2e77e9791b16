//! Pyrrha's state over time, as results: snapshots of the congestion trees at the
//! instants `[output.congestion_trees]` asks for, and the log of isolation-queue usage
//! per port (both empty unless Pyrrha runs).

use super::Simulator;
use crate::engine::PolicyTimerKind;
use crate::switch::flow_control::pyrrha::{IqUsageRecord, TreeRecord};

impl Simulator {
    /// Schedule the next congestion-tree snapshot, if one is due.
    pub(super) fn schedule_tree_snapshot(&mut self) {
        let Some(t) = &self.fab.obs.congestion_trees else { return };
        let next = [t.at.last().copied(), t.next_periodic].into_iter().flatten().min();
        if let Some(at) = next {
            self.fab.schedule_policy_timer(PolicyTimerKind::TreeSnapshot, 0, at.max(self.fab.now));
        }
    }

    /// Record the congestion trees now; periodic snapshots go on while flows remain or
    /// packets are in the network.
    #[cold]
    #[inline(never)]
    pub(super) fn on_tree_snapshot(&mut self) {
        let now = self.fab.now;
        let running =
            self.fab.counters.flows_finished < self.hosts.flows.len() as u64 || self.fab.store.live() > 0;
        let records = self.switches.fc.pyrrha().map_or(Vec::new(), |p| p.snapshot(now, &self.fab.ports));
        let Some(t) = &mut self.fab.obs.congestion_trees else { return };
        t.records.extend(records);
        while t.at.last().is_some_and(|a| *a <= now) {
            t.at.pop();
        }
        if let (Some(next), Some(interval)) = (t.next_periodic, t.interval) {
            if next <= now {
                t.next_periodic = running.then_some(next + interval);
            }
        }
        self.schedule_tree_snapshot();
    }

    /// `[output.congestion_trees]` records, in time order (empty unless Pyrrha runs).
    pub fn congestion_trees(&self) -> &[TreeRecord] {
        self.fab.obs.congestion_trees.as_ref().map_or(&[], |t| &t.records)
    }

    /// Every change of a port's number of Pyrrha isolation queues, in time order.
    pub fn iq_usage(&self) -> &[IqUsageRecord] {
        self.switches.fc.pyrrha().map_or(&[], |p| &p.usage)
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
