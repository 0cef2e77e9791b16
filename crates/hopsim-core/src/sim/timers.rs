//! Timers of switch ports and policies, cancelled by generation: scheduling returns
//! nothing to keep; bumping the generation of a (kind, target) makes every timer of it
//! already in the event queue stale, and stale timers are skipped when popped.

use super::Simulator;
use crate::engine::{Event, PolicyTimerKind};
use crate::ids::PortId;
use crate::time::SimTime;

/// Generation per (timer kind, target), and per port the time of the pending shaper wake-up.
#[derive(Clone, Debug)]
pub(crate) struct PolicyTimers {
    generation: [Vec<u32>; PolicyTimerKind::COUNT],
    /// Per port: when its pending shaper timer fires (`NEVER`: none pending).
    shaper_due: Vec<SimTime>,
}

impl PolicyTimers {
    /// Timers for `ports` ports (targets of port timers).
    pub fn new(ports: usize) -> PolicyTimers {
        PolicyTimers { generation: [vec![0; ports], vec![0; 1]], shaper_due: vec![SimTime::NEVER; ports] }
    }

    #[inline]
    pub fn is_current(&self, kind: PolicyTimerKind, target: u32, generation: u32) -> bool {
        self.generation[kind as usize][target as usize] == generation
    }

    /// Make every pending timer of (`kind`, `target`) stale.
    pub fn cancel(&mut self, kind: PolicyTimerKind, target: u32) {
        self.generation[kind as usize][target as usize] += 1;
    }
}

impl Simulator {
    /// Fire a (`kind`, `target`) timer at `at`.
    pub(crate) fn schedule_policy_timer(&mut self, kind: PolicyTimerKind, target: u32, at: SimTime) {
        if kind == PolicyTimerKind::Shaper {
            // One pending wake-up per port, at the earliest time a shaped queue is due.
            let due = &mut self.timers.shaper_due[target as usize];
            if *due <= at {
                return;
            }
            *due = at;
            self.timers.cancel(kind, target);
        }
        let generation = self.timers.generation[kind as usize][target as usize];
        self.events.schedule(at, Event::PolicyTimer { kind, target, generation });
    }

    #[inline(never)]
    pub(super) fn on_policy_timer(&mut self, kind: PolicyTimerKind, target: u32) {
        match kind {
            PolicyTimerKind::Shaper => {
                let port = PortId(target);
                self.timers.shaper_due[port.idx()] = SimTime::NEVER;
                if let Some(next) = self.ports[port.idx()].queues.release_shaped(self.now) {
                    self.schedule_policy_timer(kind, target, next);
                }
                self.try_send(port);
            }
            PolicyTimerKind::TreeSnapshot => self.on_tree_snapshot(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Event, PolicyTimerKind};
    use crate::time::SimTime;
    use crate::{Scenario, Simulator};

    /// A port keeps one shaper wake-up, at the earliest time asked: asking for an earlier
    /// one cancels the pending one (its generation goes stale), a later one is not scheduled.
    #[test]
    fn an_earlier_timer_cancels_the_pending_one_by_generation() {
        let text = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                    [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1000, start = \"1ms\" }]\n";
        let mut sim = Simulator::new(Scenario::from_toml_str(text).unwrap()).unwrap();
        while sim.events.pop().is_some() {}
        let shaper = PolicyTimerKind::Shaper;
        sim.schedule_policy_timer(shaper, 2, SimTime(10));
        sim.schedule_policy_timer(shaper, 2, SimTime(20)); // later: not scheduled
        sim.schedule_policy_timer(shaper, 2, SimTime(5)); // earlier: replaces the first
        sim.schedule_policy_timer(shaper, 3, SimTime(7)); // another port: independent
        let mut fired = Vec::new();
        while let Some((t, ev)) = sim.events.pop() {
            if let Event::PolicyTimer { kind, target, generation } = ev {
                fired.push((t.0, target, sim.timers.is_current(kind, target, generation)));
            }
        }
        assert_eq!(fired, vec![(5, 2, true), (7, 3, true), (10, 2, false)]);
    }
}
