//! Flow control: the seam where per-hop flow-control mechanisms plug into the switch
//! pipeline (and into the host NIC, the last upstream).
//!
//! A flow-control policy ([`FlowControlPolicy`], in `hooks`)
//! - **classifies** each admitted data packet to an egress queue of its port (PFC: the
//!   queue of its priority class; per-flow: the flow's own queue);
//! - decides, on **arrival**, whether the packet is lossless (and may send a frame to the
//!   upstream it came from — PFC's XOFF) or leaves it to the admission policy (lossy);
//! - reacts to **dequeue** (per-flow RESUME, PFC's XON);
//! - reacts to a **control frame** of its own kind received from downstream by pausing or
//!   resuming queues of the port it arrived on (the queues' eligibility is the scheduler's
//!   input), or flows of a host NIC ([`NicGate`]).
//!
//! Each mechanism is one file (or folder) here and one line in the registration list
//! below, which generates the [`FlowControl`] enum (static dispatch, a one-byte tag), the
//! [`ControlPayload`] enum of every mechanism's frames, the kind-tagged
//! [`FlowControlSpec`] of `[switch.flow_control]`, and the dispatch of every hook. Each
//! hook gets a context ([`FcCx`]) built in its own dispatch arm, so a mechanism that
//! ignores it (PFC) pays nothing for it.

mod hooks;
mod keymap;

pub mod aquarius;
pub mod bfc;
pub mod none;
pub mod ofc;
pub mod per_flow;
pub mod pfc;
pub mod pfc_family;
pub mod pfc_spec;
pub mod pyrrha;

pub use hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};

use crate::engine::PolicyTimerKind;
use crate::fabric::frames::Frame;
use crate::fabric::headers::Headers;
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::fabric::timers::Timers;
use crate::fabric::Fabric;
use crate::host::{FlowKey, NicGate};
use crate::ids::{FlowId, NodeId, PortId};
use crate::scenario::error::ScenarioError;
use crate::scenario::tagged;
use crate::time::SimTime;
use crate::topology::routing::Routing;
use crate::topology::Topology;
use pfc_spec::PfcConfig;

/// The context of a flow-control hook, borrowed from the fabric's fields one by one.
macro_rules! fc_cx {
    ($fab:expr) => {
        FcCx {
            now: $fab.now,
            ports: &mut $fab.ports,
            store: &mut $fab.store,
            headers: &mut $fab.headers,
            routing: &$fab.routing,
            topo: &$fab.topo,
            timers: Timers::new(&mut $fab.events, &mut $fab.timers, PolicyTimerKind::FlowControl),
            flows_unfinished: $fab.flows_total - $fab.counters.flows_finished,
        }
    };
}

/// Generates the family's enums and dispatch from the registration list.
macro_rules! flow_control_registry {
    ($( $variant:ident : $policy:ty => $stored:ty ),+ $(,)?) => {
        /// The flow-control policy of every switch and NIC in a run
        /// (`[switch.flow_control]`). An explicit one-byte tag makes each hook's dispatch one
        /// compare.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum FlowControl {
            $( $variant($stored), )+
        }

        /// A control-frame payload of any flow-control mechanism.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum ControlPayload {
            $( $variant(<$policy as FlowControlPolicy>::Frame), )+
        }

        /// `[switch.flow_control]`: a mechanism's kind and its table.
        #[derive(Clone, Debug)]
        pub enum FlowControlSpec {
            $( $variant(<$policy as FlowControlPolicy>::Spec), )+
        }

        #[derive(Clone, Copy)]
        #[repr(u8)]
        enum Variant {
            $( $variant, )+
        }

        /// Frame kinds per mechanism, in registration order.
        const FRAME_KINDS: &[&[&str]] = &[$( <<$policy as FlowControlPolicy>::Frame as Frame>::KINDS ),+];

        impl ControlPayload {
            #[inline]
            fn variant(&self) -> Variant {
                match self {
                    $( ControlPayload::$variant(_) => Variant::$variant, )+
                }
            }

            /// Whether the frame stops (`Some(true)`) or restarts (`Some(false)`) traffic.
            pub fn pauses(&self) -> Option<bool> {
                match self {
                    $( ControlPayload::$variant(f) => f.pauses(), )+
                }
            }

            /// The class whose pause at the receiver the frame ends, if any.
            pub fn resumes(&self) -> Option<u32> {
                match self {
                    $( ControlPayload::$variant(f) => f.resumes(), )+
                }
            }

            /// The class the frame names (priority, flow, queue, root).
            pub fn subject(&self) -> u32 {
                match self {
                    $( ControlPayload::$variant(f) => f.subject(), )+
                }
            }

            /// Bytes on the wire.
            pub fn wire_bytes(&self) -> u16 {
                match self {
                    $( ControlPayload::$variant(f) => f.wire_bytes(), )+
                }
            }

            /// The frame's kind, numbered over every mechanism's kinds (see [`frame_kinds`]).
            pub fn kind_index(&self) -> usize {
                let before: usize = FRAME_KINDS[..self.variant() as usize].iter().map(|k| k.len()).sum();
                before + match self {
                    $( ControlPayload::$variant(f) => f.kind(), )+
                }
            }

            /// The frame's kind, by name.
            pub fn kind_name(&self) -> &'static str {
                let kinds = FRAME_KINDS[self.variant() as usize];
                match self {
                    $( ControlPayload::$variant(f) => kinds[f.kind()], )+
                }
            }
        }

        impl FlowControlSpec {
            /// Every kind's name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$( <$policy as FlowControlPolicy>::NAME ),+];

            /// The kind's name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( FlowControlSpec::$variant(_) => <$policy as FlowControlPolicy>::NAME, )+
                }
            }

            /// Whether the mechanism keeps PFC's accounting (`[switch.pfc]` applies).
            pub fn uses_pfc(&self) -> bool {
                match self {
                    $( FlowControlSpec::$variant(_) => <$policy as FlowControlPolicy>::USES_PFC, )+
                }
            }

            /// Whether a parallel run may cut the network across it
            /// ([`FlowControlPolicy::PARTITIONS`]).
            pub fn partitions(&self) -> bool {
                match self {
                    $( FlowControlSpec::$variant(_) => <$policy as FlowControlPolicy>::PARTITIONS, )+
                }
            }

            /// Check the mechanism's table.
            pub fn validate(&self) -> Result<(), ScenarioError> {
                match self {
                    $( FlowControlSpec::$variant(s) => <$policy as FlowControlPolicy>::validate(s), )+
                }
            }

            /// The mechanism at every switch and NIC.
            pub fn build(&self, b: &mut FcBuild) -> FlowControl {
                match self {
                    $( FlowControlSpec::$variant(s) => {
                        FlowControl::$variant(<$policy as FlowControlPolicy>::build(s, b).into())
                    } )+
                }
            }

            /// Data queues each switch port starts with.
            pub fn data_queues(&self, classes: usize) -> usize {
                match self {
                    $( FlowControlSpec::$variant(s) => <$policy as FlowControlPolicy>::data_queues(s, classes), )+
                }
            }

            /// One line for summaries.
            pub fn describe(&self, pfc: Option<&PfcConfig>) -> String {
                match self {
                    $( FlowControlSpec::$variant(s) => <$policy as FlowControlPolicy>::describe(s, pfc), )+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for FlowControlSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (kind, rest) = tagged::take_kind(d, FlowControlSpec::KINDS)?;
                $( if kind == <$policy as FlowControlPolicy>::NAME {
                    return tagged::inner(rest).map(FlowControlSpec::$variant);
                } )+
                unreachable!("take_kind checked the kind")
            }
        }

        impl schemars::JsonSchema for FlowControlSpec {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "FlowControlSpec".into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                tagged::kind_schema(
                    "Per-hop flow control (`[switch.flow_control]`): `kind` and its parameters.",
                    vec![$( (
                        <$policy as FlowControlPolicy>::NAME,
                        <<$policy as FlowControlPolicy>::Spec as schemars::JsonSchema>::json_schema(g),
                    ), )+],
                )
            }
        }

        impl serde::Serialize for FlowControlSpec {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( FlowControlSpec::$variant(spec) => tagged::serialize_with_kind(self.kind(), spec, s), )+
                }
            }
        }

        impl FlowControl {
            /// The kind's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( FlowControl::$variant(_) => <$policy as FlowControlPolicy>::NAME, )+
                }
            }

            /// The egress queue of data packet `pkt` (slot `slot`) at `egress` of switch `sw`.
            #[inline(always)]
            pub fn classify(&mut self, fab: &mut Fabric, sw: usize, egress: PortId, pkt: &Packet, r: PacketRef) -> usize {
                match self {
                    $( FlowControl::$variant(p) if <$policy as FlowControlPolicy>::INLINE => {
                        <$policy as FlowControlPolicy>::classify(p, &mut fc_cx!(fab), sw, egress, pkt, r.index())
                    } )+
                    _ => self.classify_out_of_line(fab, sw, egress, r),
                }
            }

            /// The hook of every mechanism that is not [`FlowControlPolicy::INLINE`], out of
            /// the event loop's line (one call for all of them, so the loop neither carries
            /// their code nor grows with the registration list): scalars in, the packet read
            /// from its slot.
            #[cold]
            #[inline(never)]
            fn classify_out_of_line(&mut self, fab: &mut Fabric, sw: usize, egress: PortId, r: PacketRef) -> usize {
                let pkt = *fab.store.get(r);
                match self {
                    $( FlowControl::$variant(p) => {
                        <$policy as FlowControlPolicy>::classify(p, &mut fc_cx!(fab), sw, egress, &pkt, r.index())
                    } )+
                }
            }

            /// The packet of `hop` joins its queue, which holds `queue_bytes` before it. (The
            /// [`Hop`] is built in each arm, so a mechanism whose hook is inlined keeps its
            /// fields in registers.)
            #[inline(always)]
            pub fn on_arrival(&mut self, fab: &mut Fabric, hop: HopArgs, queue_bytes: u64) -> Arrival {
                match self {
                    $( FlowControl::$variant(p) if <$policy as FlowControlPolicy>::INLINE => {
                        <$policy as FlowControlPolicy>::on_arrival(p, &mut fc_cx!(fab), &hop.hop(), queue_bytes)
                    } )+
                    _ => {
                        let HopArgs { sw, in_port, local_in, egress, queue, r, buffer, .. } = hop;
                        self.on_arrival_out_of_line(fab, sw, in_port, local_in, egress, queue, r, buffer, queue_bytes)
                    }
                }
            }

            /// The hook of every mechanism that is not [`FlowControlPolicy::INLINE`], out of
            /// the event loop's line (one call for all of them, so the loop neither carries
            /// their code nor grows with the registration list): scalars in, the packet read
            /// from its slot.
            #[cold]
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            fn on_arrival_out_of_line(
                &mut self,
                fab: &mut Fabric,
                sw: usize,
                in_port: PortId,
                local_in: u32,
                egress: PortId,
                queue: usize,
                r: PacketRef,
                buffer: u64,
                queue_bytes: u64,
            ) -> Arrival {
                let pkt = *fab.store.get(r);
                let hop = Hop { sw, in_port, local_in, egress, queue, pkt: &pkt, slot: r.index(), buffer };
                match self {
                    $( FlowControl::$variant(p) => {
                        <$policy as FlowControlPolicy>::on_arrival(p, &mut fc_cx!(fab), &hop, queue_bytes)
                    } )+
                }
            }

            /// The packet of `hop` left its queue. Returns whether frames wait.
            #[inline(always)]
            pub fn on_dequeue(&mut self, fab: &mut Fabric, hop: HopArgs) -> bool {
                match self {
                    $( FlowControl::$variant(p) if <$policy as FlowControlPolicy>::INLINE => {
                        <$policy as FlowControlPolicy>::on_dequeue(p, &mut fc_cx!(fab), &hop.hop())
                    } )+
                    _ => {
                        let HopArgs { sw, in_port, local_in, egress, queue, r, buffer, .. } = hop;
                        self.on_dequeue_out_of_line(fab, sw, in_port, local_in, egress, queue, r, buffer)
                    }
                }
            }

            /// The hook of every mechanism that is not [`FlowControlPolicy::INLINE`], out of
            /// the event loop's line (one call for all of them, so the loop neither carries
            /// their code nor grows with the registration list): scalars in, the packet read
            /// from its slot.
            #[cold]
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            fn on_dequeue_out_of_line(
                &mut self,
                fab: &mut Fabric,
                sw: usize,
                in_port: PortId,
                local_in: u32,
                egress: PortId,
                queue: usize,
                r: PacketRef,
                buffer: u64,
            ) -> bool {
                let pkt = *fab.store.get(r);
                let hop = Hop { sw, in_port, local_in, egress, queue, pkt: &pkt, slot: r.index(), buffer };
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::on_dequeue(p, &mut fc_cx!(fab), &hop), )+
                }
            }

            /// The next frame a hook asked to send: out of a port, towards its peer.
            pub fn take_frame(&mut self) -> Option<(PortId, ControlPayload)> {
                match self {
                    $( FlowControl::$variant(p) => {
                        <$policy as FlowControlPolicy>::outbox(p).pop_front().map(|(to, f)| (to, ControlPayload::$variant(f)))
                    } )+
                }
            }

            /// Frame `payload` from downstream arrived on `port` (of a switch, or a host's
            /// NIC port). Returns whether something was resumed there.
            pub fn on_frame(&mut self, fab: &mut Fabric, port: PortId, is_host: bool, payload: ControlPayload) -> bool {
                match (self, payload) {
                    $( (FlowControl::$variant(p), ControlPayload::$variant(f)) => {
                        <$policy as FlowControlPolicy>::on_frame(p, &mut fc_cx!(fab), port, is_host, f)
                    } )+
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// An order mark naming `id` reached the head of its queue at `port`.
            #[inline(never)]
            pub fn on_marker(&mut self, fab: &mut Fabric, port: PortId, id: u64) -> bool {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::on_marker(p, &mut fc_cx!(fab), port, id), )+
                }
            }

            /// The link of `port` failed.
            pub fn on_link_down(&mut self, fab: &mut Fabric, port: PortId, is_host: bool, host_flows: &[FlowId]) {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::on_link_down(p, &mut fc_cx!(fab), port, is_host, host_flows), )+
                }
            }

            /// A timer of the policy fired.
            #[inline(never)]
            pub fn on_timer(&mut self, fab: &mut Fabric, target: u32) {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::on_timer(p, &mut fc_cx!(fab), target), )+
                }
            }

            /// The run starts.
            pub fn on_start(&mut self, fab: &mut Fabric) {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::on_start(p, &mut fc_cx!(fab)), )+
                }
            }

            /// Queue length a departing data packet (slot `slot`) reports in INT at `port`.
            #[inline]
            pub fn int_queue_bytes(&self, port: &Port, slot: usize, headers: &Headers) -> u64 {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::int_queue_bytes(p, port, slot, headers), )+
                }
            }

            /// State still held: 0 once the network drained (`None` for PFC and none).
            pub fn held(&self) -> Option<usize> {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::held(p), )+
                }
            }

            /// The policy's counters, by name.
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::counters(p), )+
                }
            }

            /// What a run's description shows of the mechanism (label, line).
            pub fn summary_line(&self, frames_sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::summary_line(p, frames_sent), )+
                }
            }

            /// Fold another partition's instance (of the same kind: every partition of a
            /// run builds the same) into this one at the end of a parallel run.
            pub fn join_partition(&mut self, other: &FlowControl) {
                match (self, other) {
                    $( (FlowControl::$variant(p), FlowControl::$variant(o)) => {
                        <$policy as FlowControlPolicy>::join_partition(p, o)
                    } )+
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("the partitions of a run build the same flow control"),
                }
            }

            /// This instance simulates one partition of a parallel run.
            pub fn partitioned(&mut self) {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::partitioned(p), )+
                }
            }

            /// Counters only the joined instance reports (after every `join_partition`).
            pub fn run_wide_counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::run_wide_counters(p), )+
                }
            }

            /// Frame `payload` leaves this partition: the items it names here, to travel with it.
            pub fn frame_leaves(&mut self, payload: &ControlPayload) -> Vec<u32> {
                match (self, payload) {
                    $( (FlowControl::$variant(p), ControlPayload::$variant(f)) => {
                        <$policy as FlowControlPolicy>::frame_leaves(p, f)
                    } )+
                    #[allow(unreachable_patterns)]
                    _ => Vec::new(),
                }
            }

            /// Frame `payload` arrived from another partition with the items it names.
            pub fn frame_arrives(&mut self, payload: &mut ControlPayload, items: Vec<u32>) {
                match (self, payload) {
                    $( (FlowControl::$variant(p), ControlPayload::$variant(f)) => {
                        <$policy as FlowControlPolicy>::frame_arrives(p, f, items)
                    } )+
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }

        impl NicGate for FlowControl {
            #[inline(always)]
            fn nic_may_send(&self, nic: PortId, port: &Port, flow: &FlowKey, routing: &Routing, topo: &Topology) -> bool {
                match self {
                    $( FlowControl::$variant(p) if <$policy as FlowControlPolicy>::INLINE => {
                        <$policy as FlowControlPolicy>::nic_may_send(p, nic, port, flow, routing, topo)
                    } )+
                    _ => self.nic_may_send_out_of_line(nic, port, flow, routing, topo),
                }
            }
        }

        impl FlowControl {
            /// The hook of every mechanism that is not [`FlowControlPolicy::INLINE`], out of
            /// the event loop's line (one call for all of them, so the loop neither carries
            /// their code nor grows with the registration list): scalars in, the packet read
            /// from its slot.
            #[cold]
            #[inline(never)]
            fn nic_may_send_out_of_line(&self, nic: PortId, port: &Port, flow: &FlowKey, routing: &Routing, topo: &Topology) -> bool {
                match self {
                    $( FlowControl::$variant(p) => <$policy as FlowControlPolicy>::nic_may_send(p, nic, port, flow, routing, topo), )+
                }
            }
        }

        $(
            impl AsPolicy<$policy> for FlowControl {
                fn policy(&self) -> Option<&$policy> {
                    match self {
                        FlowControl::$variant(p) => Some(p),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )+
    };
}

/// The parts of a [`Hop`], handed to the dispatch by value: the [`Hop`] a hook borrows is
/// made in the hook's own dispatch arm, so a mechanism whose hook is inlined (PFC) keeps
/// the few fields it reads in registers, and the out-of-line arms read the packet again
/// from the store (no reference into the event loop's locals escapes to them).
#[derive(Clone, Copy)]
pub struct HopArgs<'p> {
    pub sw: usize,
    pub in_port: PortId,
    pub local_in: u32,
    pub egress: PortId,
    pub queue: usize,
    /// The packet (a copy the caller holds) and its slot in the store.
    pub pkt: &'p Packet,
    pub r: PacketRef,
    pub buffer: u64,
}

impl<'p> HopArgs<'p> {
    #[inline(always)]
    fn hop(self) -> Hop<'p> {
        let HopArgs { sw, in_port, local_in, egress, queue, pkt, r, buffer } = self;
        Hop { sw, in_port, local_in, egress, queue, pkt, slot: r.index(), buffer }
    }
}

/// A control frame sent out of `port` of `node` (`[output] control_frames`).
#[derive(Clone, Copy, Debug)]
pub struct ControlEvent {
    pub time: SimTime,
    pub node: NodeId,
    pub port: PortId,
    pub payload: ControlPayload,
    /// The tie key of the event during which the frame was sent: with `time`, its place
    /// in the run's order, by which a parallel run merges its partitions' logs.
    pub order: u64,
}

/// Access to the state of one mechanism, when it is the run's (tests and reports).
pub trait AsPolicy<P> {
    fn policy(&self) -> Option<&P>;
}

/// Every frame kind's name, numbered as [`ControlPayload::kind_index`] numbers them.
pub fn frame_kinds() -> Vec<&'static str> {
    FRAME_KINDS.iter().flat_map(|k| k.iter().copied()).collect()
}

// The registration list: one line per mechanism (`Variant: Type => stored as`).
flow_control_registry! {
    None: none::NoFlowControl => none::NoFlowControl,
    Pfc: pfc::Pfc => pfc::Pfc,
    PerFlow: per_flow::PerFlow => per_flow::PerFlow,
    Bfc: bfc::Bfc => Box<bfc::Bfc>,
    Pyrrha: pyrrha::Pyrrha => Box<pyrrha::Pyrrha>,
    Aquarius: aquarius::Aquarius => Box<aquarius::Aquarius>,
    Ofc: ofc::Ofc => Box<ofc::Ofc>,
    CaPfc: pfc_family::capfc::CaPfc => Box<pfc_family::capfc::CaPfc>,
    PPfc: pfc_family::ppfc::PPfc => Box<pfc_family::ppfc::PPfc>,
    Gfc: pfc_family::gfc::Gfc => Box<pfc_family::gfc::Gfc>,
    GPfc: pfc_family::gpfc::GPfc => Box<pfc_family::gpfc::GPfc>,
}

impl FlowControl {
    /// Access to mechanism `P`'s state, when it is the run's.
    pub fn get<P>(&self) -> Option<&P>
    where
        Self: AsPolicy<P>,
    {
        self.policy()
    }
}

#[cfg(test)]
mod tests {
    use super::bfc::BfcFrame;
    use super::per_flow::FlowFrame;
    use super::pfc::PfcFrame;
    use super::pyrrha::frame::{PyrrhaFrame, RootSignal};
    use super::*;

    /// Every mechanism's frame kinds are numbered one after another in registration order,
    /// and each payload says what it pauses, what it names and its size.
    #[test]
    fn frame_kinds_are_numbered_over_every_mechanism() {
        let names = frame_kinds();
        assert_eq!(&names[..4], ["pfc_pause", "pfc_resume", "flow_pause", "flow_resume"]);
        assert_eq!(
            names.len(),
            21,
            "PFC 2, per-flow 2, BFC 2, Pyrrha 4, Aquarius 2, OFC 2, caPFC 2, P-PFC 2, GFC 1, G-PFC 2"
        );
        let p = ControlPayload::Pfc(PfcFrame { priority: 3, pause: true });
        assert_eq!(
            (p.kind_index(), p.kind_name(), p.pauses(), p.subject(), p.wire_bytes()),
            (0, "pfc_pause", Some(true), 3, 64)
        );
        let f = ControlPayload::PerFlow(FlowFrame { flow: FlowId(42), reverse: false, pause: false });
        assert_eq!(
            (f.kind_index(), f.kind_name(), f.pauses(), f.subject()),
            (3, "flow_resume", Some(false), 42)
        );
        let b = ControlPayload::Bfc(BfcFrame { queue: 17, pause: true });
        assert_eq!(
            (b.kind_index(), b.kind_name(), b.pauses(), b.subject()),
            (4, "bfc_pause", Some(true), 17)
        );
        let m =
            ControlPayload::Pyrrha(PyrrhaFrame { signal: RootSignal::Merge, root: 9, old_root: 4, hop: 2 });
        assert_eq!((m.kind_index(), m.kind_name(), m.pauses(), m.subject()), (8, "pyrrha_merge", None, 9));
        for (i, name) in names.iter().enumerate() {
            assert_eq!(names.iter().position(|n| n == name), Some(i), "{name} is named once");
        }
        assert!(std::mem::size_of::<ControlPayload>() <= 16, "a payload stays small");
    }

    /// The kind-tagged table names its kinds, keeps field paths in errors, and writes
    /// `kind` first when serialized.
    #[test]
    fn the_table_is_kind_tagged() {
        let spec: FlowControlSpec = serde_json::from_str(r#"{"kind": "bfc", "queues": 8}"#).unwrap();
        assert_eq!((spec.kind(), spec.describe(None)), ("bfc", "bfc-8".to_string()));
        let text = serde_json::to_string(&spec).unwrap();
        assert!(text.starts_with(r#"{"kind":"bfc","queues":8,"#), "{text}");
        let err = serde_json::from_str::<FlowControlSpec>(r#"{"kind": "bfd"}"#).unwrap_err().to_string();
        assert!(err.contains("unknown kind \"bfd\"") && err.contains("\"pyrrha\""), "{err}");
        assert_eq!(
            FlowControlSpec::KINDS,
            ["none", "pfc", "per_flow", "bfc", "pyrrha", "aquarius", "ofc", "capfc", "ppfc", "gfc", "gpfc"]
        );
    }
}
