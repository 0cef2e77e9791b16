//! The output tables of a run, declared once: each table's name (its file is
//! `<name>.parquet`), when it is written, and each column's name, type, unit and meaning.
//!
//! The simulator fills a [`Table`] column by column through a [`TableBuilder`], which
//! checks every column against its declaration (name, order and type), so a table can
//! never hold a column its declaration does not describe. The Python bindings turn any
//! table into a dict of columns with one generic conversion, the Python package takes its
//! column types from [`CATALOG`], and `docs/formats.md`'s tables of outputs are generated
//! from it (`python -m hopsim.docgen`, checked by `tests/test_docs.py`).

/// A column's type, as pandas holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    Int,
    /// An integer that may be missing.
    OptionalInt,
    Float,
    /// A float that may be missing (e.g. the FCT of an unfinished flow).
    OptionalFloat,
    Bool,
    Text,
}

impl Dtype {
    /// The pandas dtype.
    pub fn pandas(self) -> &'static str {
        match self {
            Dtype::Int => "int64",
            Dtype::OptionalInt => "Int64",
            Dtype::Float => "float64",
            Dtype::OptionalFloat => "Float64",
            Dtype::Bool => "bool",
            Dtype::Text => "object",
        }
    }
}

/// One column: name, type, unit (empty when it has none) and meaning.
#[derive(Clone, Copy, Debug)]
pub struct ColumnDecl {
    pub name: &'static str,
    pub dtype: Dtype,
    pub unit: &'static str,
    pub doc: &'static str,
}

const fn col(name: &'static str, dtype: Dtype, unit: &'static str, doc: &'static str) -> ColumnDecl {
    ColumnDecl { name, dtype, unit, doc }
}

/// One table: its name, what a row is, when it is written, its columns.
#[derive(Clone, Copy, Debug)]
pub struct TableDecl {
    pub name: &'static str,
    /// What one row is.
    pub doc: &'static str,
    /// When the table has rows (`"always"` or the `[output]` setting that asks for it).
    pub when: &'static str,
    pub columns: &'static [ColumnDecl],
}

impl TableDecl {
    /// The file a run directory holds it in.
    pub fn file(&self) -> String {
        format!("{}.parquet", self.name)
    }
}

/// A column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Int(Vec<i64>),
    OptionalInt(Vec<Option<i64>>),
    Float(Vec<f64>),
    OptionalFloat(Vec<Option<f64>>),
    Bool(Vec<bool>),
    Text(Vec<String>),
}

impl Values {
    pub fn dtype(&self) -> Dtype {
        match self {
            Values::Int(_) => Dtype::Int,
            Values::OptionalInt(_) => Dtype::OptionalInt,
            Values::Float(_) => Dtype::Float,
            Values::OptionalFloat(_) => Dtype::OptionalFloat,
            Values::Bool(_) => Dtype::Bool,
            Values::Text(_) => Dtype::Text,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::OptionalInt(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::OptionalFloat(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A filled table: its declaration and one [`Values`] per declared column, in order.
#[derive(Clone, Debug)]
pub struct Table {
    pub decl: &'static TableDecl,
    pub columns: Vec<Values>,
}

impl Table {
    /// Rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Values::len)
    }

    /// The column `name`.
    pub fn column(&self, name: &str) -> Option<&Values> {
        self.decl.columns.iter().position(|c| c.name == name).map(|i| &self.columns[i])
    }
}

/// Fills a table column by column, in declaration order; each call names the column it
/// fills, and a name, type or order the declaration does not have is a bug (panics).
pub struct TableBuilder {
    decl: &'static TableDecl,
    columns: Vec<Values>,
}

impl TableBuilder {
    pub fn new(decl: &'static TableDecl) -> Self {
        TableBuilder { decl, columns: Vec::with_capacity(decl.columns.len()) }
    }

    fn push(mut self, name: &str, values: Values) -> Self {
        let i = self.columns.len();
        let expected = self.decl.columns.get(i).unwrap_or_else(|| {
            panic!("table {}: column {name} is not declared (it has {} columns)", self.decl.name, i)
        });
        assert_eq!(
            expected.name, name,
            "table {}: column {i} is declared as {}",
            self.decl.name, expected.name
        );
        assert_eq!(expected.dtype, values.dtype(), "table {}: column {name}'s type", self.decl.name);
        if let Some(first) = self.columns.first() {
            assert_eq!(first.len(), values.len(), "table {}: column {name}'s length", self.decl.name);
        }
        self.columns.push(values);
        self
    }

    pub fn int<T: TryInto<i64>>(self, name: &str, v: impl IntoIterator<Item = T>) -> Self {
        let v =
            v.into_iter().map(|x| x.try_into().ok().expect("an integer column value fits in i64")).collect();
        self.push(name, Values::Int(v))
    }

    pub fn optional_int<T: TryInto<i64>>(self, name: &str, v: impl IntoIterator<Item = Option<T>>) -> Self {
        let v = v
            .into_iter()
            .map(|x| x.map(|x| x.try_into().ok().expect("an integer column value fits in i64")))
            .collect();
        self.push(name, Values::OptionalInt(v))
    }

    pub fn float(self, name: &str, v: impl IntoIterator<Item = f64>) -> Self {
        self.push(name, Values::Float(v.into_iter().collect()))
    }

    pub fn optional_float(self, name: &str, v: impl IntoIterator<Item = Option<f64>>) -> Self {
        self.push(name, Values::OptionalFloat(v.into_iter().collect()))
    }

    pub fn bool(self, name: &str, v: impl IntoIterator<Item = bool>) -> Self {
        self.push(name, Values::Bool(v.into_iter().collect()))
    }

    pub fn text<S: Into<String>>(self, name: &str, v: impl IntoIterator<Item = S>) -> Self {
        self.push(name, Values::Text(v.into_iter().map(Into::into).collect()))
    }

    /// The table; every declared column must have been filled.
    pub fn finish(self) -> Table {
        assert_eq!(
            self.columns.len(),
            self.decl.columns.len(),
            "table {}: {} of {} columns filled",
            self.decl.name,
            self.columns.len(),
            self.decl.columns.len()
        );
        Table { decl: self.decl, columns: self.columns }
    }
}

use Dtype::{Bool, Float, Int, OptionalFloat, OptionalInt, Text};

/// Every output table, in the order a run directory lists them.
pub const CATALOG: &[&TableDecl] = &[
    &FLOWS,
    &PORTS,
    &PFC_EVENTS,
    &RATES,
    &SWITCHES,
    &QUEUE_DELAY,
    &QUEUES,
    &BUFFERS,
    &THROUGHPUT,
    &PACKETS,
    &CONTROL_FRAMES,
    &IQ_USAGE,
    &CONGESTION_TREES,
    &DEADLOCKS,
];

/// The declaration of table `name`.
pub fn decl(name: &str) -> Option<&'static TableDecl> {
    CATALOG.iter().copied().find(|t| t.name == name)
}

const TIME: ColumnDecl = col("time_ns", Float, "ns", "simulated time");
const NODE: ColumnDecl = col("node", Int, "", "node id");
const PORT: ColumnDecl = col("port", Int, "", "port number within its node");
const HOP_TIER: ColumnDecl = col(
    "hop_tier",
    Text,
    "",
    "the hop the port sends on: `host` (a host's NIC), `src_tor` (a ToR towards the fabric), \
     `agg` (an aggregation switch, or a leaf-spine's spine), `core`, `dst_tor` (a ToR towards its hosts)",
);

pub const FLOWS: TableDecl = TableDecl {
    name: "flows",
    doc: "one row per flow",
    when: "always",
    columns: &[
        col("flow_id", Int, "", "the flow's id (flows are numbered in start order)"),
        col("src", Int, "", "sending host (node id)"),
        col("dst", Int, "", "receiving host (node id)"),
        col("size_bytes", Int, "bytes", "payload bytes"),
        col("start_ns", Float, "ns", "when the flow started"),
        col(
            "finish_ns",
            OptionalFloat,
            "ns",
            "when the sender had the last byte acknowledged (null: unfinished)",
        ),
        col("fct_ns", OptionalFloat, "ns", "flow completion time (null: unfinished)"),
        col(
            "ideal_fct_ns",
            Float,
            "ns",
            "FCT alone on an idle network (the HPCC simulator's `standalone_fct`)",
        ),
        col("slowdown", OptionalFloat, "", "`fct_ns / ideal_fct_ns`, not clipped (null: unfinished)"),
        col("tag", Text, "", "the workload entry's tag"),
        col("query_id", OptionalInt, "", "the query the flow answers (query workloads)"),
        col("class", Text, "", "`congested`, `vulnerable` or `background` (see docs/analysis.md)"),
        col("cc", Text, "", "the flow's congestion control"),
        col("loss_recovery", Text, "", "`go_back_n`, `go_back_n+reorder_buffer` or `irn` (RoCE), `tcp`, `mp_rdma`"),
        col("priority", Int, "", "the flow's priority class"),
        col("retransmitted_bytes", Int, "bytes", "payload bytes sent more than once"),
        col("timeouts", Int, "", "retransmission timeouts"),
        col("cnps_received", Int, "", "congestion notifications the sender received"),
        col("path_hops", Int, "", "links on the flow's routed path"),
        col("reordered_packets", Int, "", "data packets that arrived out of order (not retransmissions)"),
        col("deflections", Int, "", "times a packet of the flow (data or ACK) was deflected"),
        col(
            "hol_blocked",
            Bool,
            "",
            "a pause held one of its data packets in a switch egress queue for at least `output.hol_threshold` \
             (head-of-line blocking, see docs/model.md)",
        ),
        col("sport", Int, "", "UDP source port (ECMP hashes it)"),
        col("dport", Int, "", "UDP destination port"),
    ],
};

pub const PORTS: TableDecl = TableDecl {
    name: "ports",
    doc: "one row per port (one direction of a link)",
    when: "always",
    columns: &[
        NODE,
        PORT,
        col("peer_node", Int, "", "node at the other end"),
        col("peer_port", Int, "", "port at the other end"),
        col(
            "tier",
            Text,
            "",
            "the node's tier: `host`, `tor`, `agg`, `spine` (top of a two-tier fabric), `core`",
        ),
        HOP_TIER,
        col("rate_bps", Int, "bit/s", "link rate"),
        col("tx_bytes", Int, "bytes", "bytes sent (data and control, on the wire)"),
        col("tx_packets", Int, "", "packets sent"),
        col("pause_sent", Int, "", "PAUSE frames sent, of every flow-control kind"),
        col("resume_sent", Int, "", "RESUME frames sent"),
        col("pause_received", Int, "", "PAUSE frames received"),
        col("deflections", Int, "", "packets admission sent elsewhere because this port could not take them"),
        col("paused_time_ns", Float, "ns", "time the port had a paused queue"),
        col("max_queue_bytes", Int, "bytes", "largest egress backlog (0 for host NICs, which hold no queue)"),
        col("busy_time_ns", Float, "ns", "time spent transmitting"),
    ],
};

pub const PFC_EVENTS: TableDecl = TableDecl {
    name: "pfc_events",
    doc: "one row per PFC frame sent",
    when: "`[output] pfc_events = true`",
    columns: &[
        TIME,
        NODE,
        PORT,
        col("priority", Int, "", "the paused or resumed priority"),
        col("pause", Bool, "", "PAUSE (true) or RESUME (false)"),
    ],
};

pub const RATES: TableDecl = TableDecl {
    name: "rates",
    doc: "one row per traced flow and sample",
    when: "`[output.rate_trace]`",
    columns: &[
        TIME,
        col("flow_id", Int, "", "the traced flow"),
        col("rate_bps", Int, "bit/s", "sending rate set by congestion control"),
        col("window_bytes", Int, "bytes", "window (0: none)"),
        col("in_flight_bytes", Int, "bytes", "bytes sent and not yet acknowledged"),
    ],
};

pub const SWITCHES: TableDecl = TableDecl {
    name: "switches",
    doc: "one row per switch",
    when: "always",
    columns: &[
        NODE,
        col("tier", Text, "", "`tor`, `agg`, `spine` or `core`"),
        col("max_buffer_bytes", Int, "bytes", "largest shared-buffer occupancy (data)"),
    ],
};

pub const QUEUE_DELAY: TableDecl = TableDecl {
    name: "queue_delay",
    doc: "queuing-delay histogram per hop tier, one row per non-empty bucket `[lower_ns, upper_ns)`",
    when: "always",
    columns: &[
        HOP_TIER,
        col("lower_ns", Int, "ns", "bucket's lower edge"),
        col("upper_ns", Int, "ns", "bucket's upper edge (excluded)"),
        col("packets", Int, "", "data packets whose wait fell in the bucket"),
    ],
};

pub const QUEUES: TableDecl = TableDecl {
    name: "queues",
    doc: "one row per non-empty egress queue and sample",
    when: "`[output.queues]`",
    columns: &[
        TIME,
        NODE,
        PORT,
        col("queue", Int, "", "the queue (-1: the whole port)"),
        HOP_TIER,
        col("bytes", Int, "bytes", "bytes queued"),
    ],
};

pub const BUFFERS: TableDecl = TableDecl {
    name: "buffers",
    doc: "one row per non-empty switch shared buffer and sample",
    when: "`[output.queues]`",
    columns: &[
        TIME,
        NODE,
        col("tier", Text, "", "`tor`, `agg`, `spine` or `core`"),
        col("bytes", Int, "bytes", "shared-buffer bytes in use"),
    ],
};

pub const THROUGHPUT: TableDecl = TableDecl {
    name: "throughput",
    doc: "one row per flow and bin with delivered bytes",
    when: "`[output.throughput]`",
    columns: &[
        col("time_ns", Float, "ns", "the bin's start"),
        col("flow_id", Int, "", "the flow"),
        col("bytes", Int, "bytes", "new payload the receiver accepted in the bin"),
    ],
};

pub const PACKETS: TableDecl = TableDecl {
    name: "packets",
    doc: "one row per traced packet event",
    when: "`[output.packet_trace]`",
    columns: &[
        TIME,
        col(
            "event",
            Text,
            "",
            "`enqueue`, `tx`, `drop`, `rx`, or `deflect` (recorded at the port a deflection policy sent the packet to)",
        ),
        NODE,
        PORT,
        col("kind", Text, "", "`data`, `ack`, `nack`, `cnp` or `control`"),
        col("flow_id", OptionalInt, "", "the packet's flow (null for control frames)"),
        col("seq", Int, "bytes", "sequence number (first payload byte)"),
        col("wire_bytes", Int, "bytes", "size on the wire"),
        col(
            "queue",
            Int,
            "",
            "for `enqueue` and `drop`, the data queue the packet entered or was meant for (its priority \
             under PFC, its own queue under per-flow flow control); otherwise 0",
        ),
        col("port_backlog_bytes", Int, "bytes", "the port's backlog when the event happened"),
        col("ecn_ce", Bool, "", "whether the packet carried a congestion mark"),
    ],
};

pub const CONTROL_FRAMES: TableDecl = TableDecl {
    name: "control_frames",
    doc: "one row per control frame sent, of any kind",
    when: "`[output] control_frames = true`",
    columns: &[
        TIME,
        NODE,
        PORT,
        col(
            "kind",
            Text,
            "",
            "the frame's kind (`pfc_pause`, `flow_resume`, `bfc_pause`, `pyrrha_merge`, …)",
        ),
        col(
            "subject",
            Int,
            "",
            "what the frame is about: the PFC priority, the flow id, BFC's upstream queue, or Pyrrha's root \
             as a global port id",
        ),
        col("pause", Bool, "", "whether the frame pauses"),
        col(
            "resumes",
            OptionalInt,
            "",
            "the subject whose pause at the receiver the frame ends (a RESUME's own subject; a Pyrrha MERGE's \
             false-positive root); null: none",
        ),
    ],
};

pub const IQ_USAGE: TableDecl = TableDecl {
    name: "iq_usage",
    doc: "Pyrrha: one row per change of a port's number of isolation queues (its Fig 7)",
    when: "Pyrrha runs",
    columns: &[TIME, NODE, PORT, HOP_TIER, col("iqs", Int, "", "isolation queues the port holds")],
};

pub const DEADLOCKS: TableDecl = TableDecl {
    name: "deadlocks",
    doc: "one row per queue of each deadlock found (a frozen cycle of paused queues), in wait-for order",
    when: "`[output.deadlock]`",
    columns: &[
        TIME,
        col("deadlock", Int, "", "the deadlock's number (0: the first found)"),
        col(
            "member",
            Int,
            "",
            "the queue's place in the cycle (each waits on the next, the last on the first)",
        ),
        NODE,
        PORT,
        col("queue", Int, "", "the paused egress queue"),
        col("peer_node", Int, "", "the switch that paused it"),
        col("bytes", Int, "bytes", "bytes it holds"),
        col("stuck_since_ns", Float, "ns", "since when it has been paused with the same head packet"),
        col("flows", Text, "", "flows with data packets in it (ids, comma-separated)"),
    ],
};

pub const CONGESTION_TREES: TableDecl = TableDecl {
    name: "congestion_trees",
    doc: "Pyrrha: per snapshot, one row per (congestion root, member); drawn by `hopsim.plots.congestion_trees`",
    when: "`[output.congestion_trees]`",
    columns: &[
        TIME,
        col("root_node", Int, "", "the root port's node"),
        col("root_port", Int, "", "the root port"),
        NODE,
        PORT,
        col(
            "role",
            Text,
            "",
            "`root` (the root's own port), `iq` (a port holding an isolation queue for the root) or `host` (a \
             NIC told to stop the root's flows)",
        ),
        col("state", Text, "", "an IQ's state: `paused`, `resumed` or `merging`"),
        col("hop", Int, "", "distance to the root, in hops"),
        col("bytes", Int, "bytes", "bytes queued (the root's OQ, or the IQ)"),
        col("paused_children", Int, "", "upstreams the IQ holds paused"),
    ],
};

/// The type of a run-summary field (`summary.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    Int,
    Float,
    /// A float that may be missing (null).
    OptionalFloat,
    Text,
    /// A list of integers.
    IntList,
    /// Integers by name.
    Counts,
    /// Per hop tier: `packets`, `mean_ns`, `max_ns`.
    TierStats,
    /// Strings by name.
    Texts,
    /// A list of [label, line] pairs.
    Lines,
}

impl FieldType {
    /// How `docs/formats.md` names the type.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::Int => "int",
            FieldType::Float => "float",
            FieldType::OptionalFloat => "float or null",
            FieldType::Text => "string",
            FieldType::IntList => "list of int",
            FieldType::Counts => "{name: int}",
            FieldType::TierStats => "{hop tier: {packets, mean_ns, max_ns}}",
            FieldType::Texts => "{name: string}",
            FieldType::Lines => "list of [label, line]",
        }
    }
}

/// One field of the run summary.
#[derive(Clone, Copy, Debug)]
pub struct FieldDecl {
    pub name: &'static str,
    pub ty: FieldType,
    pub unit: &'static str,
    pub doc: &'static str,
}

const fn field(name: &'static str, ty: FieldType, unit: &'static str, doc: &'static str) -> FieldDecl {
    FieldDecl { name, ty, unit, doc }
}

/// Fills a record (the run summary) field by field, in declaration order, checked like
/// [`TableBuilder`].
pub struct RecordBuilder {
    decl: &'static [FieldDecl],
    map: serde_json::Map<String, serde_json::Value>,
}

impl RecordBuilder {
    pub fn new(decl: &'static [FieldDecl]) -> Self {
        RecordBuilder { decl, map: serde_json::Map::new() }
    }

    /// Field `name` of type `ty` (checked against the declaration) is `value`.
    pub fn set(mut self, name: &str, ty: FieldType, value: serde_json::Value) -> Self {
        let i = self.map.len();
        let expected = self.decl.get(i).unwrap_or_else(|| panic!("summary field {name} is not declared"));
        assert_eq!(expected.name, name, "summary field {i} is declared as {}", expected.name);
        assert_eq!(expected.ty, ty, "summary field {name}'s type");
        self.map.insert(name.to_string(), value);
        self
    }

    pub fn int(self, name: &str, v: u64) -> Self {
        self.set(name, FieldType::Int, v.into())
    }

    pub fn float(self, name: &str, v: f64) -> Self {
        self.set(name, FieldType::Float, v.into())
    }

    pub fn optional_float(self, name: &str, v: Option<f64>) -> Self {
        self.set(name, FieldType::OptionalFloat, v.into())
    }

    pub fn text(self, name: &str, v: &str) -> Self {
        self.set(name, FieldType::Text, v.into())
    }

    pub fn int_list(self, name: &str, v: &[u64]) -> Self {
        self.set(name, FieldType::IntList, v.into())
    }

    pub fn counts<'a>(self, name: &str, v: impl IntoIterator<Item = (&'a str, u64)>) -> Self {
        let m = v.into_iter().map(|(k, n)| (k.to_string(), serde_json::Value::from(n))).collect();
        self.set(name, FieldType::Counts, serde_json::Value::Object(m))
    }

    /// The record; every declared field must have been set.
    pub fn finish(self) -> serde_json::Map<String, serde_json::Value> {
        assert_eq!(
            self.map.len(),
            self.decl.len(),
            "{} of {} summary fields set",
            self.map.len(),
            self.decl.len()
        );
        self.map
    }
}

use FieldType as F;

/// The run summary's fields (`summary.json`; the Python package adds the wall time, the
/// scenario's name, the status and the setup, documented beside them).
pub const SUMMARY: &[FieldDecl] = &[
    field("seed", F::Int, "", "the scenario's seed"),
    field("events", F::Int, "", "events simulated"),
    field("sim_time_ns", F::Float, "ns", "simulated time at the end"),
    field("flows_total", F::Int, "", "flows in the workload"),
    field("flows_finished", F::Int, "", "flows whose last byte was acknowledged"),
    field("packet_hops", F::Int, "", "packets (data and control) that crossed a link"),
    field("data_packets_sent", F::Int, "", "data packets sent by hosts (retransmissions included)"),
    field("data_packets_delivered", F::Int, "", "data packets that reached their receiver"),
    field("drops", F::Int, "", "data packets dropped, every cause"),
    field("drops_buffer_full", F::Int, "", "… because the shared buffer was full"),
    field("drops_headroom_overflow", F::Int, "", "… because PFC headroom overflowed"),
    field("drops_egress_admission", F::Int, "", "… refused by the egress admission rule"),
    field("drops_hop_limit", F::Int, "", "… deflected beyond the hop limit"),
    field("drops_rank_admission", F::Int, "", "… refused for their rank (AIFO)"),
    field("drops_link_down", F::Int, "", "… on a link that failed"),
    field("drops_no_route", F::Int, "", "… with no route left after link failures"),
    field("control_drops", F::Int, "", "ACKs, NACKs, CNPs and control frames dropped (not in `drops`)"),
    field("deflections", F::Int, "", "packets deflected (sent out of another port than routing chose)"),
    field("pfc_pause_frames", F::Int, "", "PFC PAUSE frames sent"),
    field("pfc_resume_frames", F::Int, "", "PFC RESUME frames sent"),
    field("control_frames_sent", F::Counts, "", "control frames sent, by kind (every kind of every flow control)"),
    field("flow_control_counters", F::Counts, "", "the flow-control mechanism's own counters"),
    field("load_balancer", F::Text, "", "the load balancer that ran"),
    field("flow_control", F::Text, "", "the flow control that ran"),
    field("deflection", F::Text, "", "the deflection policy that ran"),
    field(
        "policies",
        F::Texts,
        "",
        "each policy family's own one-line description of what ran (`flow_control`: \"bfc-32\", \
         \"pfc (dynamic)\"; `load_balancer`; `deflection`)",
    ),
    field("packets_in_flight", F::Int, "", "packets still in queues or on links at the end (0 once drained)"),
    field("peak_packets_in_flight", F::Int, "", "most packets in queues or on links at once"),
    field("buffer_bytes_in_use", F::Int, "bytes", "shared-buffer bytes still accounted at the end (0 once drained)"),
    field("max_switch_buffer_bytes", F::Int, "bytes", "largest shared-buffer occupancy of any switch"),
    field("retransmitted_bytes", F::Int, "bytes", "payload bytes sent more than once"),
    field("timeouts", F::Int, "", "retransmission timeouts"),
    field("cnps", F::Int, "", "congestion notifications senders received"),
    field("ecn_marks", F::Int, "", "packets marked CE"),
    field("reordering_ratio", F::Float, "", "data packets that arrived out of order, over data packets delivered"),
    field("hol_blocked_flows", F::Int, "", "flows with `hol_blocked` (a pause held a packet for `output.hol_threshold`)"),
    field("hol_blocked_ratio", F::Float, "", "… over `flows_total`"),
    field("reorder_held", F::Int, "", "TCP's ordering layer: out-of-order segments it held"),
    field("reorder_released", F::Int, "", "… and those it handed on out of order when its timeout expired"),
    field("bolt_srcs", F::Int, "", "source congestion notifications Bolt's switches sent"),
    field(
        "deflection_extra_hops",
        F::IntList,
        "",
        "with a deflection policy: data packets delivered per number of switch hops their deflections added          (index k: k extra hops)",
    ),
    field(
        "policy_lines",
        F::Lines,
        "",
        "what each mechanism of the run reports of itself in a run's description: [label, line] pairs \
         (BFC's pauses, Pyrrha's merges and roots, LetFlow's flowlets, ...)",
    ),
    field(
        "notes",
        F::Lines,
        "",
        "warnings about the scenario as run, [topic, sentence] pairs (shown before the run starts): under \
         `compat = \"ns3\"`, each written field that contradicts what the ns-3 simulator does; a load balancer \
         that reorders a flow's packets under go-back-N recovery; an incast with more flows a round than senders",
    ),
    field("packet_trace_dropped", F::Int, "", "packet-trace events not recorded once `max_records` was reached"),
    field(
        "counters",
        F::Counts,
        "",
        "every mechanism's own counters (flow control, load balancer, switch signals, transport), by name",
    ),
    field("queue_sample_interval_ns", F::OptionalFloat, "ns", "`[output.queues]`'s interval (null: off)"),
    field("throughput_interval_ns", F::OptionalFloat, "ns", "`[output.throughput]`'s interval (null: off)"),
    field("queue_delay_ns", F::TierStats, "ns", "queuing delay of data packets per hop tier"),
    field("deadlocks", F::Int, "", "deadlocks `[output.deadlock]` found (0 when it is off)"),
    field(
        "deadlock_time_ns",
        F::OptionalFloat,
        "ns",
        "when the first deadlock was found (null: none, or the detector is off)",
    ),
    field("deadlock_flows", F::Int, "", "flows held in the first deadlock's cycle"),
    field(
        "deadlock_message",
        F::Text,
        "",
        "a sentence on the first deadlock (its cycle, since when it froze, the flows it holds, whether the run \
         was stopped there); empty when none was found",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_are_unique() {
        for (i, f) in SUMMARY.iter().enumerate() {
            assert!(SUMMARY[..i].iter().all(|g| g.name != f.name), "{}", f.name);
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, t) in CATALOG.iter().enumerate() {
            assert!(CATALOG[..i].iter().all(|u| u.name != t.name), "{}", t.name);
            for (j, c) in t.columns.iter().enumerate() {
                assert!(t.columns[..j].iter().all(|d| d.name != c.name), "{}.{}", t.name, c.name);
            }
        }
    }

    #[test]
    #[should_panic(expected = "column 0 is declared as time_ns")]
    fn a_column_out_of_order_is_refused() {
        TableBuilder::new(&PFC_EVENTS).int("node", [1u32]);
    }

    #[test]
    #[should_panic(expected = "type")]
    fn a_column_of_another_type_is_refused() {
        TableBuilder::new(&PFC_EVENTS).int("time_ns", [1u32]);
    }

    #[test]
    #[should_panic(expected = "4 of 5 columns")]
    fn a_missing_column_is_refused() {
        TableBuilder::new(&PFC_EVENTS)
            .float("time_ns", [1.0])
            .int("node", [1u32])
            .int("port", [1u32])
            .int("priority", [3u8])
            .finish();
    }
}
