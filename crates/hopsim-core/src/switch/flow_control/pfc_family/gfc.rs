//! GFC, gentle flow control (Qian, Cheng, Zhang and Ren, SIGCOMM 2019), as OFC §IV-A
//! evaluates it: "gradually decreases transmission rates to zero by incorporating multiple
//! lower ingress thresholds based on standard PFC" (`kind = "gfc"`).
//!
//! PFC's ingress accounting and XOFF threshold stay (the same [`PfcState`] as PFC). Below
//! XOFF, `steps` ingress thresholds, evenly spaced from `start_fraction` × XOFF up to
//! XOFF, each step the upstream's sending rate of the class down: after crossing `j` of
//! them the upstream sends at `(1 − j / (steps + 1))` of its line rate, and at XOFF at
//! zero (a PAUSE). Each change sends a rate frame (`gfc_rate`: the class and its step; a
//! step to zero counts as a PAUSE, back to full rate as a RESUME). The upstream switch
//! port applies it with its queue's rate shaper (`fabric/queues.rs`): a rate limit, not an
//! on/off pause. Going down the steps (rate up) needs the usage below the step's threshold
//! by PFC's resume margin (hysteresis); leaving zero needs PFC's XON.
//!
//! **Choices** (OFC gives none; GFC's paper maps queue length to rate continuously — this
//! is OFC's stepped description): 3 steps from ½ XOFF (thresholds ½, ⅔, ⅚ of XOFF, rates
//! 75 %, 50 %, 25 %), parameters `steps` and `start_fraction`; the thresholds follow PFC's
//! (dynamic or static) XOFF as it moves. A host NIC upstream applies the steps too, as a
//! per-class rate limit on its port (the NIC asks the class shaper before each data
//! packet); `gfc_rate_at_host` counts the intermediate-step frames host NICs applied.

use serde::{Deserialize, Serialize};

use crate::fabric::frames::Frame;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::{check, ScenarioError};
use crate::switch::flow_control::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use crate::switch::flow_control::pfc::PfcState;
use crate::switch::flow_control::pfc_spec::PfcConfig;
use crate::time::Rate;

/// GFC (`kind = "gfc"`); PFC's own thresholds (XOFF, XON, headroom) are `[switch.pfc]`'s.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GfcSpec {
    /// Rate steps below XOFF (thresholds evenly spaced from `start_fraction` × XOFF); step
    /// `j` of them sends at `1 − j / (steps + 1)` of line rate. Default 3 (75 / 50 / 25 %):
    /// hopsim's choice, OFC says only "multiple lower ingress thresholds".
    #[serde(default = "default_steps")]
    pub steps: u8,
    /// The first step's threshold as a fraction of PFC's XOFF threshold. Default 0.5:
    /// hopsim's choice.
    #[serde(default = "default_start")]
    pub start_fraction: f64,
}

fn default_steps() -> u8 {
    3
}
fn default_start() -> f64 {
    0.5
}

impl Default for GfcSpec {
    fn default() -> Self {
        GfcSpec { steps: default_steps(), start_fraction: default_start() }
    }
}

/// A GFC rate frame: send class `priority` at step `step` of `steps` (0: line rate;
/// `steps + 1`: stopped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GfcFrame {
    pub priority: u8,
    pub step: u8,
    pub steps: u8,
}

impl GfcFrame {
    /// The rate the frame asks for, as a fraction of line rate.
    pub fn fraction(&self) -> f64 {
        1.0 - self.step as f64 / (self.steps as f64 + 1.0)
    }
}

impl Frame for GfcFrame {
    const KINDS: &'static [&'static str] = &["gfc_rate"];
    fn kind(&self) -> usize {
        0
    }
    fn pauses(&self) -> Option<bool> {
        if self.step > self.steps {
            Some(true)
        } else if self.step == 0 {
            Some(false)
        } else {
            None
        }
    }
    fn subject(&self) -> u32 {
        self.priority as u32
    }
}

/// GFC at every switch.
#[derive(Clone, Debug)]
pub struct Gfc {
    /// Per switch: PFC's ingress accounting.
    pub states: Vec<PfcState>,
    /// Per switch: the step each (local port × classes + priority) last told its upstream.
    step: Vec<Vec<u8>>,
    /// Per global port: its switch and local number (`None`: a host's port).
    local: Vec<Option<(usize, u32)>>,
    classes: usize,
    steps: u8,
    start: f64,
    outbox: Outbox<GfcFrame>,
    /// Rate frames sent, by step (index: step; `steps + 1`: stop), and intermediate-step
    /// frames host NICs applied.
    pub frames_by_step: Vec<u64>,
    pub rate_at_host: u64,
}

impl Gfc {
    /// The step ingress (`port`, `priority`) of switch `sw` last told its upstream.
    pub fn step_of(&self, sw: usize, port: u32, priority: u8) -> u8 {
        self.step[sw][port as usize * self.classes + priority as usize]
    }

    /// Threshold of step `j` (1 ..= steps) given XOFF `xoff`.
    fn step_threshold(&self, j: u8, xoff: u64) -> u64 {
        let f = self.start + (1.0 - self.start) * (j - 1) as f64 / self.steps as f64;
        (xoff as f64 * f).round() as u64
    }

    /// Steps crossed by `usage` under XOFF `xoff` (0 ..= steps).
    fn crossed(&self, usage: u64, xoff: u64) -> u8 {
        (1..=self.steps).take_while(|&j| usage >= self.step_threshold(j, xoff)).last().unwrap_or(0)
    }

    fn send(&mut self, sw: usize, i: usize, to: PortId, priority: u8, step: u8) {
        self.step[sw][i] = step;
        self.frames_by_step[step as usize] += 1;
        self.outbox.push_back((to, GfcFrame { priority, step, steps: self.steps }));
    }
}

impl FlowControlPolicy for Gfc {
    const NAME: &'static str = "gfc";
    type Spec = GfcSpec;
    type Frame = GfcFrame;
    const USES_PFC: bool = true;
    /// PFC's ingress accounting and the step each ingress is at are per switch, the rate a
    /// frame asks for is applied by the NIC or port that receives it (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &GfcSpec) -> Result<(), ScenarioError> {
        check(
            (1..=16).contains(&spec.steps),
            "switch.flow_control.steps",
            format!("expected 1 to 16 rate steps, got {}", spec.steps),
        )?;
        check(
            spec.start_fraction > 0.0 && spec.start_fraction < 1.0,
            "switch.flow_control.start_fraction",
            format!("expected a fraction in (0, 1), got {}", spec.start_fraction),
        )
    }

    fn build(spec: &GfcSpec, b: &mut FcBuild) -> Self {
        Gfc {
            states: PfcState::per_switch(b),
            step: b.switches.iter().map(|&n| vec![0; b.topo.ports_of(n).len() * b.classes]).collect(),
            local: super::local_ports(b),
            classes: b.classes,
            steps: spec.steps,
            start: spec.start_fraction,
            outbox: Outbox::new(),
            frames_by_step: vec![0; spec.steps as usize + 2],
            rate_at_host: 0,
        }
    }

    fn describe(spec: &GfcSpec, pfc: Option<&PfcConfig>) -> String {
        super::with_pfc_mode(&format!("gfc-{} from {} × XOFF", spec.steps, spec.start_fraction), pfc)
    }

    fn outbox(&mut self) -> &mut Outbox<GfcFrame> {
        &mut self.outbox
    }

    fn on_arrival(&mut self, _cx: &mut FcCx, hop: &Hop, _queue_bytes: u64) -> Arrival {
        let (pkt, size) = (hop.pkt, hop.pkt.wire_bytes as u64);
        let st = &mut self.states[hop.sw];
        if st.on_arrival(hop.local_in, pkt.priority, size, hop.buffer).is_none() {
            return Arrival::Refuse(DropCause::HeadroomOverflow);
        }
        let i = hop.local_in as usize * self.classes + pkt.priority as usize;
        let now = self.step[hop.sw][i];
        let stop = self.steps + 1;
        if now == stop {
            return Arrival::Admit;
        }
        let st = &self.states[hop.sw];
        let want = if st.is_paused(hop.local_in, pkt.priority) {
            stop
        } else {
            self.crossed(st.usage_of(hop.local_in, pkt.priority), st.threshold_of(hop.local_in, hop.buffer))
        };
        if want <= now {
            return Arrival::Admit;
        }
        self.send(hop.sw, i, hop.in_port, pkt.priority, want);
        Arrival::AdmitAndSignal
    }

    fn on_dequeue(&mut self, _cx: &mut FcCx, hop: &Hop) -> bool {
        let priority = hop.pkt.priority;
        let st = &mut self.states[hop.sw];
        st.release(hop.local_in, priority, hop.pkt.wire_bytes as u64, hop.buffer);
        let i = hop.local_in as usize * self.classes + priority as usize;
        let now = self.step[hop.sw][i];
        if now == 0 {
            return false;
        }
        let st = &self.states[hop.sw];
        if st.is_paused(hop.local_in, priority) {
            return false;
        }
        // Rate back up: the steps the usage is below by the resume margin.
        let usage = st.usage_of(hop.local_in, priority);
        let xoff = st.threshold_of(hop.local_in, hop.buffer);
        let want = if usage == 0 { 0 } else { self.crossed(usage + st.resume_margin(), xoff).min(now) };
        let want = want.min(self.steps);
        if want >= now {
            return false;
        }
        self.send(hop.sw, i, hop.in_port, priority, want);
        true
    }

    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, f: GfcFrame) -> bool {
        let q = f.priority as usize;
        let p = &mut cx.ports[port.idx()];
        let stop = f.step > f.steps;
        // A host NIC applies the step as a switch port does: its class shaper
        // (`EgressQueues::shaper_due`, which the NIC asks before each data packet).
        self.rate_at_host += (is_host && !stop && f.step > 0) as u64;
        let rate = (f.step > 0 && !stop).then(|| Rate((p.rate.0 as f64 * f.fraction()) as u64));
        if !stop {
            p.queues.set_shaper(q, rate);
        }
        p.queues.set_paused(q, stop, cx.now);
        !stop
    }

    /// The link of `port` failed: its queues (a switch's or a host NIC's) lose their
    /// shapers (their downstream is gone, and will not send the step back to line rate),
    /// and the steps a switch's ingress told the upstream are void.
    fn on_link_down(
        &mut self,
        cx: &mut FcCx,
        port: PortId,
        _is_host: bool,
        _host_flows: &[crate::ids::FlowId],
    ) {
        let queues = &mut cx.ports[port.idx()].queues;
        for q in 0..self.classes {
            queues.set_shaper(q, None);
        }
        let Some((sw, local)) = self.local[port.idx()] else { return };
        let at = local as usize * self.classes;
        self.step[sw][at..at + self.classes].fill(0);
    }

    /// Ingress bytes accounted and steps not yet back to line rate (0 once drained).
    fn held(&self) -> Option<usize> {
        let bytes: u64 = self.states.iter().map(|s| s.total_ingress_bytes()).sum();
        let stepped = self.step.iter().flatten().filter(|s| **s > 0).count();
        Some(bytes as usize + stepped)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let down: u64 = self.frames_by_step[1..=self.steps as usize].iter().sum();
        vec![
            ("gfc_rate_frames", self.frames_by_step.iter().sum()),
            ("gfc_step_frames", down),
            ("gfc_stop_frames", self.frames_by_step[self.steps as usize + 1]),
            ("gfc_rate_at_host", self.rate_at_host),
        ]
    }

    fn summary_line(&self, _sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count;
        let total: u64 = self.frames_by_step.iter().sum();
        (total > 0).then(|| {
            let by: Vec<String> = self.frames_by_step.iter().map(|n| count(*n)).collect();
            ("GFC rate frames", format!("{} (by step 0..stop: {})", count(total), by.join(" / ")))
        })
    }

    fn join_partition(&mut self, other: &Self) {
        for (n, o) in self.frames_by_step.iter_mut().zip(&other.frames_by_step) {
            *n += o;
        }
        self.rate_at_host += other.rate_at_host;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gfc(steps: u8, start: f64) -> Gfc {
        Gfc {
            states: Vec::new(),
            step: Vec::new(),
            local: Vec::new(),
            classes: 8,
            steps,
            start,
            outbox: Outbox::new(),
            frames_by_step: vec![0; steps as usize + 2],
            rate_at_host: 0,
        }
    }

    /// Three steps from ½ XOFF: thresholds at ½, ⅔ and ⅚ of XOFF; rates 75, 50, 25 %.
    #[test]
    fn steps_are_evenly_spaced_below_xoff() {
        let g = gfc(3, 0.5);
        let xoff = 60_000;
        assert_eq!([1, 2, 3].map(|j| g.step_threshold(j, xoff)), [30_000, 40_000, 50_000]);
        let usage = [0, 29_999, 30_000, 39_999, 40_000, 50_000, 59_999];
        assert_eq!(usage.map(|u| g.crossed(u, xoff)), [0, 0, 1, 1, 2, 3, 3]);
        let f = |step| GfcFrame { priority: 3, step, steps: 3 };
        assert_eq!([0, 1, 2, 3, 4].map(|s| f(s).fraction()), [1.0, 0.75, 0.5, 0.25, 0.0]);
        assert_eq!([0, 1, 3, 4].map(|s| f(s).pauses()), [Some(false), None, None, Some(true)]);
    }
}
