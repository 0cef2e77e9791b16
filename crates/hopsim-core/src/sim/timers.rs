//! Timers of switch ports and policies, cancelled by generation: scheduling returns
//! nothing to keep; bumping the generation of a (kind, target) makes every timer of it
//! already in the event queue stale, and stale timers are skipped when popped.

use super::Simulator;
use crate::engine::PolicyTimerKind;
use crate::ids::PortId;
use crate::time::SimTime;

impl Simulator {
    #[inline(never)]
    pub(super) fn on_policy_timer(&mut self, kind: PolicyTimerKind, target: u32) {
        match kind {
            PolicyTimerKind::Shaper => {
                let port = PortId(target);
                self.fab.timers.shaper_due[port.idx()] = SimTime::NEVER;
                if let Some(next) = self.fab.ports[port.idx()].queues.release_shaped(self.fab.now) {
                    self.fab.schedule_shaper(port, next);
                }
                self.try_send(port);
            }
            PolicyTimerKind::FlowControl => {
                self.switches.fc.on_timer(&mut self.fab, target);
                self.switches.send_pending_frames(&mut self.fab);
            }
            PolicyTimerKind::LoadBalance => self.switches.lb.on_timer(&mut self.fab, target),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Event;
    use crate::ids::PortId;
    use crate::time::SimTime;
    use crate::{Scenario, Simulator};

    /// A port keeps one shaper wake-up, at the earliest time asked: asking for an earlier
    /// one cancels the pending one (its generation goes stale), a later one is not scheduled.
    #[test]
    fn an_earlier_timer_cancels_the_pending_one_by_generation() {
        let text = "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                    [workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = 1000, start = \"1ms\" }]\n";
        let mut sim = Simulator::new(Scenario::from_toml_str(text).unwrap()).unwrap();
        while sim.fab.events.pop().is_some() {}
        sim.fab.schedule_shaper(PortId(2), SimTime(10));
        sim.fab.schedule_shaper(PortId(2), SimTime(20)); // later: not scheduled
        sim.fab.schedule_shaper(PortId(2), SimTime(5)); // earlier: replaces the first
        sim.fab.schedule_shaper(PortId(3), SimTime(7)); // another port: independent
        let mut fired = Vec::new();
        while let Some((t, ev)) = sim.fab.events.pop() {
            if let Event::PolicyTimer { kind, target, generation } = ev {
                fired.push((t.0, target, sim.fab.timers.is_current(kind, target, generation)));
            }
        }
        assert_eq!(fired, vec![(5, 2, true), (7, 3, true), (10, 2, false)]);
    }
}
