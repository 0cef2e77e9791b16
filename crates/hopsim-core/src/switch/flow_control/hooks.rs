//! The shape of a flow-control plug-in: the [`FlowControlPolicy`] trait (every hook has a
//! default, so a mechanism implements only what it changes), the context its hooks
//! receive ([`FcCx`]: the clock, the ports and queues, the packet store and header fields,
//! the routes, its timers), the packet a per-packet hook is about ([`Hop`]), and what it
//! gets at build time ([`FcBuild`]).
//!
//! A mechanism keeps its own state in its own arrays, sends control frames by pushing its
//! own payload type ([`FlowControlPolicy::Frame`]) into its [`Outbox`], registers the
//! header fields it carries with [`FcBuild::headers`], and owns its scenario table
//! ([`FlowControlPolicy::Spec`]) with its validation and cited defaults.

use std::collections::VecDeque;

use super::pfc_spec::PfcSpec;
use crate::fabric::frames::Frame;
use crate::fabric::headers::{HeaderLayout, Headers};
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::store::PacketStore;
use crate::fabric::timers::Timers;
use crate::host::FlowKey;
use crate::ids::{FlowId, NodeId, PortId};
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;
use crate::scenario::output::OutputSpec;
use crate::time::{Delta, Rate, SimTime};
use crate::topology::routing::Routing;
use crate::topology::Topology;

/// Frames a policy asked to send, out of a port towards its peer, in the order asked.
pub type Outbox<F> = VecDeque<(PortId, F)>;

/// Outcome of a data packet's arrival for flow control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A lossless packet, admitted (the shared buffer permitting).
    Admit,
    /// Admitted, and frames for upstream wait in the policy's outbox.
    AdmitAndSignal,
    /// A lossless packet that cannot be admitted.
    Refuse(DropCause),
    /// Not flow-controlled here: the admission policy decides.
    Lossy,
}

impl Arrival {
    /// A lossless packet admitted, with frames waiting or not.
    #[inline]
    pub fn admitted(frames: bool) -> Arrival {
        if frames {
            Arrival::AdmitAndSignal
        } else {
            Arrival::Admit
        }
    }
}

/// What a flow-control hook may use besides its own state.
pub struct FcCx<'a> {
    pub now: SimTime,
    /// Every port (a hook acts on the ports of its own switch, or on a host NIC's port).
    pub ports: &'a mut [Port],
    /// The packet store (order marks, moves between queues).
    pub store: &'a mut PacketStore,
    /// Header fields of the packets (read and written through the policy's own fields).
    pub headers: &'a mut Headers,
    pub routing: &'a Routing,
    pub topo: &'a Topology,
    /// The flow-control family's timers (target ids are the policy's own).
    pub timers: Timers<'a>,
    /// Flows of the run not finished yet.
    pub flows_unfinished: u64,
}

/// The data packet a per-packet hook is about, and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Hop<'p> {
    /// The switch (by switch index).
    pub sw: usize,
    /// The port it arrived on (global id) and that port's number at the switch.
    pub in_port: PortId,
    pub local_in: u32,
    pub egress: PortId,
    /// Its egress queue.
    pub queue: usize,
    pub pkt: &'p Packet,
    /// Its packet-store slot (its header fields' row).
    pub slot: usize,
    /// The switch's shared buffer, bytes.
    pub buffer: u64,
}

/// What a policy is built from.
pub struct FcBuild<'a> {
    pub topo: &'a Topology,
    /// Node id of each switch, in switch order.
    pub switches: &'a [NodeId],
    pub seed: u64,
    /// Flows in the run.
    pub flows: usize,
    /// Traffic classes (data queues) per port, `switch.queues`.
    pub classes: usize,
    /// The slowest host NIC's rate.
    pub nic_rate: Rate,
    /// Wire bytes of a full-sized data packet (`transport.mtu` + `transport.header_bytes`).
    pub mtu_bytes: u32,
    /// The load balancer picks ports per packet (onward paths are known only in part).
    pub adaptive_routing: bool,
    /// `[switch.pfc]`: PFC's table (also the default flow control).
    pub pfc: &'a PfcSpec,
    /// `[output]`: what the run records.
    pub output: &'a OutputSpec,
    /// Where the policy registers the header fields its packets carry.
    pub headers: &'a mut HeaderLayout,
    /// In a replica of a partitioned run, the nodes it simulates (by node index); a
    /// policy may leave the others' per-port state out (`None`: every node).
    pub simulated: Option<&'a [bool]>,
}

impl FcBuild<'_> {
    /// Whether this instance simulates `node` (always, outside partitioned runs).
    pub fn simulates(&self, node: NodeId) -> bool {
        self.simulated.is_none_or(|s| s[node.idx()])
    }

    /// One-hop BDP of port `p`: its rate × twice its propagation delay.
    pub fn hop_bdp(&self, p: usize) -> u64 {
        let s = &self.topo.ports[p];
        (s.rate.0 as u128 * 2 * s.delay.0 as u128 / 8 / crate::time::PS_PER_S as u128) as u64
    }

    /// Twice the propagation delay of port `p`.
    pub fn hop_rtt(&self, p: usize) -> Delta {
        Delta(2 * self.topo.ports[p].delay.0)
    }

    /// Whether port `p`'s peer is a host.
    pub fn peer_host(&self, p: usize) -> bool {
        self.topo.is_host(self.topo.ports[self.topo.ports[p].peer.idx()].node)
    }

    /// One named random stream per switch (`switch/<node>/<component>`).
    pub fn switch_streams(&self, component: &str) -> Vec<crate::engine::RngStream> {
        self.switches
            .iter()
            .map(|n| crate::engine::rng_stream(self.seed, &format!("switch/{}/{component}", n.0)))
            .collect()
    }
}

/// A per-hop flow-control mechanism (`[switch.flow_control] kind = NAME`). Every hook
/// has a default: PFC-less, lossy, one queue per traffic class, no frames.
pub trait FlowControlPolicy: Sized {
    /// The kind's name in scenarios.
    const NAME: &'static str;
    /// Its scenario table (the fields of `[switch.flow_control]` beside `kind`).
    /// (`JsonSchema`: its fields appear in `hopsim schema` and docs/formats.md.)
    type Spec: schemars::JsonSchema;
    /// Its control-frame payload.
    type Frame: Frame;
    /// Whether its per-packet hooks (classify, arrival, dequeue, the NIC's check) are
    /// inlined into the event loop. Only the substrate's own mechanisms (PFC, none) are;
    /// every other mechanism's hooks are called out of line, so runs that do not use
    /// it carry none of its code in their hot loop.
    const INLINE: bool = false;

    /// Whether it keeps PFC's ingress accounting underneath: `[switch.pfc]` is then
    /// validated and resolved for it (and handed to [`describe`](Self::describe)).
    const USES_PFC: bool = false;

    /// Whether a parallel run (`engine.threads`) may cut the network across it: its state
    /// kept per switch and NIC, and a frame that names a list in its arena handing the
    /// list over as it crosses ([`frame_leaves`](Self::frame_leaves)). Set once a
    /// `tests/parallel.rs` case shows a partitioned run identical to one thread's; until
    /// then a parallel run refuses it by field.
    const PARTITIONS: bool = false;

    /// Check the table; errors name the field (`switch.flow_control.<field>`).
    fn validate(_spec: &Self::Spec) -> Result<(), ScenarioError> {
        Ok(())
    }

    /// The policy at every switch and NIC of the run.
    fn build(spec: &Self::Spec, b: &mut FcBuild) -> Self;

    /// Data queues each switch port starts with (`classes`: `switch.queues`).
    fn data_queues(_spec: &Self::Spec, classes: usize) -> usize {
        classes
    }

    /// A one-line description for summaries ("bfc-32"), given PFC's resolved settings
    /// (`[switch.pfc]`, for mechanisms that keep PFC underneath); the kind's name by
    /// default.
    fn describe(_spec: &Self::Spec, _pfc: Option<&super::pfc_spec::PfcConfig>) -> String {
        Self::NAME.to_string()
    }

    /// Frames the hooks asked to send.
    fn outbox(&mut self) -> &mut Outbox<Self::Frame>;

    /// The egress queue of data packet `pkt` (slot `slot`) at `egress` of switch `sw`.
    #[inline(always)]
    fn classify(&mut self, _cx: &mut FcCx, _sw: usize, _egress: PortId, pkt: &Packet, _slot: usize) -> usize {
        pkt.priority as usize
    }

    /// The packet of `hop` joins its queue (holding `queue_bytes` before it): lossless or
    /// not, and whether frames wait.
    #[inline(always)]
    fn on_arrival(&mut self, _cx: &mut FcCx, _hop: &Hop, _queue_bytes: u64) -> Arrival {
        Arrival::Lossy
    }

    /// The packet of `hop` left its queue (sent, or dropped with a failed link). Returns
    /// whether frames wait.
    #[inline(always)]
    fn on_dequeue(&mut self, _cx: &mut FcCx, _hop: &Hop) -> bool {
        false
    }

    /// A frame of this policy arrived on `port` (of a switch, or a host's NIC port when
    /// `is_host`). Returns whether something there may send again.
    fn on_frame(&mut self, _cx: &mut FcCx, _port: PortId, _is_host: bool, _frame: Self::Frame) -> bool {
        false
    }

    /// May the NIC on `nic` send data of `flow`? By default the flow's traffic class
    /// decides (a PFC PAUSE stops the NIC's class).
    #[inline(always)]
    fn nic_may_send(
        &self,
        _nic: PortId,
        port: &Port,
        flow: &FlowKey,
        _routing: &Routing,
        _topo: &Topology,
    ) -> bool {
        port.queues.may_send(flow.priority as usize)
    }

    /// An order mark the policy queued (naming `id`) reached the head of its queue at
    /// `port`. Returns whether a queue it held may send now.
    fn on_marker(&mut self, _cx: &mut FcCx, _port: PortId, _id: u64) -> bool {
        false
    }

    /// The link of `port` failed: forget the pauses that concern it (`host_flows`: the
    /// flows sent from it, when it is a host's NIC port).
    fn on_link_down(&mut self, _cx: &mut FcCx, _port: PortId, _is_host: bool, _host_flows: &[FlowId]) {}

    /// A timer the policy set fired.
    fn on_timer(&mut self, _cx: &mut FcCx, _target: u32) {}

    /// The run starts (after the first flow start is scheduled): set first timers.
    fn on_start(&mut self, _cx: &mut FcCx) {}

    /// Queue length a departing data packet (slot `slot`) reports in INT at `port`.
    #[inline(always)]
    fn int_queue_bytes(&self, port: &Port, _slot: usize, _headers: &Headers) -> u64 {
        port.queues.backlog_bytes
    }

    /// State still held (queues, pauses, counters, trees): 0 once the network drained;
    /// `None` for policies that keep none of it.
    fn held(&self) -> Option<usize> {
        None
    }

    /// The policy's own counters, by name (prefixed with the kind's name). A parallel run
    /// sums each over its partitions, but takes the largest of one named as a maximum
    /// (`<kind>_max_...`).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// What a run's description shows of the mechanism: a label and one line (e.g. BFC's
    /// pauses), from its counters and `frames_sent` (frames sent, by kind name); none by
    /// default.
    fn summary_line(&self, _frames_sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        None
    }

    /// A parallel run has ended: fold what another partition's instance holds of the run
    /// as a whole (what [`summary_line`](Self::summary_line) reports from its own fields)
    /// into this one, the first partition's, which then reports for the run. Nothing by
    /// default. (Frame counts are joined by the engine.)
    fn join_partition(&mut self, _other: &Self) {}

    /// This instance simulates one partition of a parallel run (called on every
    /// partition's before the run starts): keep what [`join_partition`](Self::join_partition)
    /// will need beyond counts (e.g. a log of changes to a network-wide sum). Nothing by
    /// default.
    fn partitioned(&mut self) {}

    /// Counters no partition can report alone (OFC's table peaks: the peak over time of a
    /// sum over every switch), read from the first partition's instance once every other
    /// was joined into it; they replace the partitions' sums of the same names. None by
    /// default.
    fn run_wide_counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Frame `f` leaves this partition for another (parallel run): the items it names
    /// in this instance's own storage (a flow list in its arena), taken out to travel
    /// with it. None by default: a frame is self-contained.
    fn frame_leaves(&mut self, _f: &Self::Frame) -> Vec<u32> {
        Vec::new()
    }

    /// Frame `f` arrived from another partition with `items` (what
    /// [`frame_leaves`](Self::frame_leaves) took out there): store them where `f` names
    /// them in this instance.
    fn frame_arrives(&mut self, _f: &mut Self::Frame, _items: Vec<u32>) {}
}

/// `switch.flow_control.queues` of a mechanism that maps flows onto physical queues per port
/// (BFC, Aquarius): 1 to 1024.
pub fn check_queues_per_port(queues: u32) -> Result<(), ScenarioError> {
    crate::scenario::error::check(
        (1..=1024).contains(&queues),
        "switch.flow_control.queues",
        format!("expected 1 to 1024 queues per port, got {queues}"),
    )
}
