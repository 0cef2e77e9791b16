//! The PFC family: the four PFC variants OFC (Xiao et al.) compares against in its §IV-A —
//! caPFC, P-PFC, GFC and G-PFC — each a flow-control plug-in of its own (`kind = "capfc"`,
//! `"ppfc"`, `"gfc"`, `"gpfc"`).
//!
//! Every member keeps PFC's ingress accounting underneath — the same [`PfcState`] per
//! switch as `kind = "pfc"`, built from `[switch.pfc]` (reserve, shared pool, dynamic or
//! static XOFF / XON threshold, headroom) — and changes only *when the upstream is told to
//! stop*:
//!
//! - caPFC ([`capfc`]): PFC's ingress threshold **and** a fixed egress-queue threshold;
//! - P-PFC ([`ppfc`]): PFC's ingress threshold **and** a dynamic egress threshold, the
//!   average occupancy of the switch's egress ports (the form OFC evaluated);
//! - G-PFC ([`gpfc`]): a lower ingress threshold for the low-priority classes, PFC's for
//!   all;
//! - GFC ([`gfc`]): ingress thresholds below XOFF step the upstream's rate down (rate
//!   frames, the upstream queue's shaper), zero at XOFF.
//!
//! caPFC, P-PFC and G-PFC share [`Family`]: PFC's accounting plus a [`Rule`] saying when
//! an ingress (port, priority) pauses its upstream and when it resumes it. A member that
//! holds a PAUSE back while the ingress is over PFC's threshold lets its packets run into
//! PFC's headroom; so the fabric stays lossless, any member pauses regardless of its rule
//! once the headroom left would no longer absorb a PAUSE's round trip (the port's one-hop
//! BDP, rate × twice its delay, plus three full packets) — an *urgent* pause, counted. (OFC's
//! text says nothing of this; it is hopsim's choice, needed for the "lossless" these
//! variants claim.)

pub mod capfc;
pub mod gfc;
pub mod gpfc;
pub mod ppfc;

use std::marker::PhantomData;

use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use super::pfc::PfcState;
use super::pfc_spec::PfcConfig;
use crate::fabric::frames::Frame;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;

/// Names of a family member's PAUSE / RESUME frames.
pub trait Names: Copy + std::fmt::Debug + PartialEq + Eq + 'static {
    const KINDS: &'static [&'static str];
}

/// A per-class PAUSE (`pause`) or RESUME of a family member: an IEEE 802.1Qbb frame for
/// one priority, counted under the member's own kind names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassFrame<N: Names> {
    pub priority: u8,
    pub pause: bool,
    names: PhantomData<N>,
}

impl<N: Names> ClassFrame<N> {
    pub fn new(priority: u8, pause: bool) -> Self {
        ClassFrame { priority, pause, names: PhantomData }
    }
}

impl<N: Names> Frame for ClassFrame<N> {
    const KINDS: &'static [&'static str] = N::KINDS;
    fn kind(&self) -> usize {
        !self.pause as usize
    }
    fn pauses(&self) -> Option<bool> {
        Some(self.pause)
    }
    fn subject(&self) -> u32 {
        self.priority as u32
    }
}

/// What a pausing member adds to PFC: when an ingress (port, priority) pauses its
/// upstream, and when it resumes it.
pub trait Rule: Clone + std::fmt::Debug + Sized {
    const NAME: &'static str;
    /// Its table (the fields of `[switch.flow_control]` beside `kind`).
    type Spec: schemars::JsonSchema;
    type Names: Names;
    /// Counter names: PAUSEs sent, urgent PAUSEs (see the module doc), arrivals over
    /// PFC's threshold whose PAUSE the rule held back.
    const COUNTERS: [&'static str; 3];
    /// The summary line's label.
    const LABEL: &'static str;

    fn validate(_spec: &Self::Spec) -> Result<(), ScenarioError> {
        Ok(())
    }
    fn new(spec: &Self::Spec, b: &FcBuild) -> Self;
    fn describe(spec: &Self::Spec, pfc: Option<&PfcConfig>) -> String;

    /// The packet of `hop` was admitted and accounted at its ingress, not paused yet;
    /// `over`: the ingress is at or over PFC's XOFF threshold (and not yet back at XON).
    /// `queue_bytes`: its egress queue before it. Pause the upstream now?
    fn pause_now(&mut self, cx: &FcCx, hop: &Hop, st: &PfcState, over: bool, queue_bytes: u64) -> bool;

    /// A packet of the paused ingress (`port`, `priority`) of switch `sw` left; PFC's XON
    /// rule says `pfc_resumed`. Resume the upstream now?
    fn resume_now(&mut self, _at: Ingress, _st: &PfcState, _buffer: u64, pfc_resumed: bool) -> bool {
        pfc_resumed
    }

    /// Every arrival and departure at an ingress, after PFC's accounting (for rules that
    /// follow the usage over time).
    fn observe(&mut self, _at: Ingress, _st: &PfcState) {}

    /// The rule's own counters, beyond the family's three.
    fn extra_counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// An ingress (port, priority) of a switch, at a time.
#[derive(Clone, Copy, Debug)]
pub struct Ingress {
    pub now: crate::time::SimTime,
    pub sw: usize,
    pub port: u32,
    pub priority: u8,
}

/// PFC's accounting at every switch plus a member's [`Rule`].
#[derive(Clone, Debug)]
pub struct Family<R: Rule> {
    /// Per switch (by switch index): PFC's ingress accounting.
    pub states: Vec<PfcState>,
    /// Per switch: PAUSE sent and not yet resumed, per (local port × classes + priority).
    sent: Vec<Vec<bool>>,
    /// Per switch, per local port: headroom a PAUSE's round trip needs (urgent pause).
    margin: Vec<Vec<u64>>,
    /// Per global port: its switch and local number (`None`: a host's port).
    local: Vec<Option<(usize, u32)>>,
    classes: usize,
    pub rule: R,
    outbox: Outbox<ClassFrame<R::Names>>,
    /// PAUSEs sent, urgent ones among them, arrivals over PFC's threshold held back.
    pub pauses: u64,
    pub urgent: u64,
    pub held_back: u64,
}

/// Per global port: its switch and its number there (`None` for a host's port).
pub(crate) fn local_ports(b: &FcBuild) -> Vec<Option<(usize, u32)>> {
    let mut local = vec![None; b.topo.ports.len()];
    for (sw, &node) in b.switches.iter().enumerate() {
        let first = b.topo.ports_of(node).start;
        for p in b.topo.ports_of(node) {
            local[p as usize] = Some((sw, p - first));
        }
    }
    local
}

/// Per switch, per local port: bytes a PAUSE's round trip lets in (one-hop BDP + 3 MTU: the
/// packet already on the wire when the pause is decided, the one the PAUSE waits behind at
/// this egress, and the one the upstream is sending when it arrives; with 2, caPFC and P-PFC
/// dropped at the headroom on OFC's 20 ns fat-tree).
pub(crate) fn round_trip_margins(b: &FcBuild) -> Vec<Vec<u64>> {
    b.switches
        .iter()
        .map(|&node| b.topo.ports_of(node).map(|p| b.hop_bdp(p as usize) + 3 * b.mtu_bytes as u64).collect())
        .collect()
}

impl<R: Rule> Family<R> {
    /// Whether ingress (`port`, `priority`) of switch `sw` has paused its upstream.
    pub fn is_paused(&self, sw: usize, port: u32, priority: u8) -> bool {
        self.sent[sw][port as usize * self.classes + priority as usize]
    }
}

impl<R: Rule> FlowControlPolicy for Family<R> {
    const NAME: &'static str = R::NAME;
    type Spec = R::Spec;
    type Frame = ClassFrame<R::Names>;
    const USES_PFC: bool = true;
    /// PFC's ingress accounting and each rule's state are per switch, its frames name a
    /// class (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &R::Spec) -> Result<(), ScenarioError> {
        R::validate(spec)
    }

    fn build(spec: &R::Spec, b: &mut FcBuild) -> Self {
        let states = PfcState::per_switch(b);
        let sent = b.switches.iter().map(|&n| vec![false; b.topo.ports_of(n).len() * b.classes]).collect();
        Family {
            states,
            sent,
            margin: round_trip_margins(b),
            local: local_ports(b),
            classes: b.classes,
            rule: R::new(spec, b),
            outbox: Outbox::new(),
            pauses: 0,
            urgent: 0,
            held_back: 0,
        }
    }

    fn describe(spec: &R::Spec, pfc: Option<&PfcConfig>) -> String {
        R::describe(spec, pfc)
    }

    fn outbox(&mut self) -> &mut Outbox<Self::Frame> {
        &mut self.outbox
    }

    fn on_arrival(&mut self, cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> Arrival {
        let (pkt, size) = (hop.pkt, hop.pkt.wire_bytes as u64);
        let st = &mut self.states[hop.sw];
        if st.on_arrival(hop.local_in, pkt.priority, size, hop.buffer).is_none() {
            return Arrival::Refuse(DropCause::HeadroomOverflow);
        }
        let i = hop.local_in as usize * self.classes + pkt.priority as usize;
        let at = Ingress { now: cx.now, sw: hop.sw, port: hop.local_in, priority: pkt.priority };
        self.rule.observe(at, &self.states[hop.sw]);
        if self.sent[hop.sw][i] {
            return Arrival::Admit;
        }
        let st = &self.states[hop.sw];
        let over = st.is_paused(hop.local_in, pkt.priority);
        let (hdrm, headroom) = st.headroom_of(hop.local_in, pkt.priority);
        let urgent = over && hdrm + self.margin[hop.sw][hop.local_in as usize] >= headroom;
        let pause = self.rule.pause_now(cx, hop, st, over, queue_bytes);
        if !pause && !urgent {
            self.held_back += over as u64;
            return Arrival::Admit;
        }
        self.urgent += (!pause) as u64;
        self.pauses += 1;
        self.sent[hop.sw][i] = true;
        self.outbox.push_back((hop.in_port, ClassFrame::new(pkt.priority, true)));
        Arrival::AdmitAndSignal
    }

    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        let st = &mut self.states[hop.sw];
        let priority = hop.pkt.priority;
        st.release(hop.local_in, priority, hop.pkt.wire_bytes as u64, hop.buffer);
        let at = Ingress { now: cx.now, sw: hop.sw, port: hop.local_in, priority };
        self.rule.observe(at, st);
        let i = hop.local_in as usize * self.classes + priority as usize;
        if !self.sent[hop.sw][i] {
            return false;
        }
        let pfc_resumed = !st.is_paused(hop.local_in, priority);
        if !self.rule.resume_now(at, st, hop.buffer, pfc_resumed) {
            return false;
        }
        self.sent[hop.sw][i] = false;
        self.outbox.push_back((hop.in_port, ClassFrame::new(priority, false)));
        true
    }

    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, _is_host: bool, frame: Self::Frame) -> bool {
        let p = &mut cx.ports[port.idx()];
        p.queues.set_paused(frame.priority as usize, frame.pause, cx.now) && !frame.pause
    }

    /// The link of `port` failed: the pauses its ingress held are void (the fault lifted
    /// them at the upstream, and the ingress's packets were dropped or left).
    fn on_link_down(
        &mut self,
        _cx: &mut FcCx,
        port: PortId,
        _is_host: bool,
        _host_flows: &[crate::ids::FlowId],
    ) {
        if let Some((sw, local)) = self.local[port.idx()] {
            let at = local as usize * self.classes;
            self.sent[sw][at..at + self.classes].fill(false);
        }
    }

    /// Ingress bytes accounted and PAUSEs not yet resumed (0 once drained).
    fn held(&self) -> Option<usize> {
        let bytes: u64 = self.states.iter().map(|s| s.total_ingress_bytes()).sum();
        let paused = self.sent.iter().flatten().filter(|s| **s).count();
        Some(bytes as usize + paused)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let [a, b, c] = R::COUNTERS;
        let mut all = vec![(a, self.pauses), (b, self.urgent), (c, self.held_back)];
        all.extend(self.rule.extra_counters());
        all
    }

    fn summary_line(&self, _sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count;
        (self.pauses + self.held_back > 0).then(|| {
            (
                R::LABEL,
                format!(
                    "{} PAUSEs ({} urgent), {} arrivals over PFC's threshold not paused",
                    count(self.pauses),
                    count(self.urgent),
                    count(self.held_back)
                ),
            )
        })
    }

    fn join_partition(&mut self, other: &Self) {
        self.pauses += other.pauses;
        self.urgent += other.urgent;
        self.held_back += other.held_back;
    }
}

/// `"<name> (<pfc mode>)"`: the member and the PFC threshold underneath.
pub(crate) fn with_pfc_mode(name: &str, pfc: Option<&PfcConfig>) -> String {
    match pfc.map(|p| &p.mode) {
        Some(super::pfc_spec::PfcMode::Static { .. }) => format!("{name} (static)"),
        _ => format!("{name} (dynamic)"),
    }
}
