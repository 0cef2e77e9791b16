//! `compat = "ns3"`: a scenario-level profile that makes a run follow the HPCC ns-3 RDMA
//! simulator (alibaba-edu/High-Precision-Congestion-Control) as its `run.py` configures it,
//! so that the same inputs give the same flows the same paths and the same dynamics.
//!
//! The profile only fills in fields the scenario leaves out: every part stays settable on
//! its own (a field written in the scenario wins). It is applied to the scenario document
//! before it is read, so errors still name the field.
//!
//! | field | value | ns-3 source |
//! |---|---|---|
//! | `switch.ack_queue` | `"data"` | `SwitchNode::SendToDev` (`AckHighPrio` unset) |
//! | `switch.buffer_bytes` | 32 MiB | `BUFFER_SIZE 32` read as MiB (`third.cc`) |
//! | `switch.ecn.random_stream` | `"shared"` | `SwitchMmu::ShouldSendCN` draws from ns-3's one global stream |
//! | `routing.hash` | `"ns3"` | `SwitchNode::EcmpHash`, seeded by node id |
//! | `engine.tie_order` | `"scheduled"` (simultaneous events in scheduling order) | ns-3's `MapScheduler` orders events by `(ts, uid)`, the uid a global insertion count |
//! | `links.serialization` | `"ns3"` (truncated to the ns) | `QbbNetDevice::TransmitStart`, `RdmaHw` pacing: `Seconds(DataRate::CalculateTxTime(bytes))` |
//! | `transport.source_ports` | `"per_pair"` | `third.cc` `portNumder` |
//! | `transport.bdp` | `"max"` | `GLOBAL_T 1` (`maxRtt`, `maxBdp`) |
//! | `transport.dcqcn.cnp_interval` | 0 (CE echoed in ACKs) | `rdma-hw.cc`: no CNP packets |
//! | `transport.hpcc.min_rate`, `dctcp.min_rate` | 1000 Mb/s | `MIN_RATE 1000Mb/s` |
//! | `transport.hpcc.max_stage` | 0 (every update multiplicative) | `MI_THRESH 0` (`run.py` `mi=0`), `UpdateRateHp` |
//! | `transport.hpcc.int_units` | `"ns3"` (bytes in 128 × m B, queue in 80 × m B, time in ns; m = line rate / 25 Gb/s) | `IntHop::Set` / `Get*` (`int-header.h`), `INT_MULTI` (`run.py` `int_multi = bw / 25`) |
//! | `transport.hpcc.shift_next_send` | true | `RdmaHw::ChangeRate`, `QbbNetDevice::UpdateNextAvail` |
//! | `transport.timely.variant` | `"ns3"` | `UpdateRateTimely` |
//! | DCTCP flows | `dctcp.variant = "ns3"`, `rate_ai` 615 Mb/s, `window = "bdp"`, `window_follows_rate`, ECN step at 300 KB (×4 at 400 Gb/s) | `run.py --cc dctcp`, `HandleAckDctcp`, `VAR_WIN 1` |
//!
//! `compat = "conweave_ns3"` follows ConWeave's ns-3 (conweave-project/conweave-ns3, the
//! RDMA load-balancing simulator of SIGCOMM 2023, built on the same HPCC code): the table
//! above, except where its `network-load-balance.cc` and `switch-mmu.cc` differ:
//!
//! | field | value | ConWeave ns-3 source |
//! |---|---|---|
//! | `switch.ack_queue` | `"control"` | `network-load-balance.cc` sets every switch's `AckHighPrio` to 1; `SwitchNode::SendToDevContinue` queues ACKs / NACKs in queue 0, outside admission and PFC |
//! | `transport.source_ports` | `"per_source"` | `portNumber[src]++` from 10000 per source host (`ScheduleFlowInputs`) |
//! | `switch.pfc.alpha` | 1/16 | `SwitchMmu` `IngressAlpha` 0.0625 |
//! | `switch.pfc.reserve_bytes` | 2,096 B | the PG and port guarantees, one 1,048-byte `MTU` cell each (`m_pg_min_cell`, `m_port_min_cell`) |
//! | `switch.pfc.resume_offset_bytes` | 1 B | `GetResumeClasses`: alpha × 16 bytes (`m_pg_shared_alpha_cell_off_diff`) |
//! | `switch.pfc.headroom_from` | `"shared_pool_full"` | `CheckIngressAdmission`: headroom only once the service pool is past its limit |
//! | `transport.nack_interval` | 4 µs | `RdmaHw` `NACKGenerationInterval` (HPCC's: 500 µs) |
//! | `transport.nack_signals_congestion` | true | `RdmaHw::ReceiverCheckSeq` sets the CNP bit on every new NACK |
//!
//! Its per-port headroom (2 × rate × delay + 2 MTU cells, `ConfigHdrm`) depends on each
//! port's link: `hopsim validate-against-ns3` writes it as `switch.pfc.headroom_bytes` when
//! every switch link has the same rate and delay.

use serde_json::{json, Map, Value};

use super::ScenarioError;

/// Fill in what `compat` implies, where the document leaves it out. A document without
/// `compat` is left as it is.
pub fn apply(doc: &mut Value) -> Result<(), ScenarioError> {
    let Some(compat) = doc.get("compat") else { return Ok(()) };
    let conweave = match compat {
        Value::String(s) if s == "ns3" => false,
        Value::String(s) if s == "conweave_ns3" => true,
        other => {
            return Err(ScenarioError::field(
                "compat",
                format!("expected \"ns3\" or \"conweave_ns3\", got {other}"),
            ));
        }
    };
    let cc = doc.pointer("/transport/cc").and_then(Value::as_str).unwrap_or("dcqcn").to_string();
    let mut defaults = Vec::new();
    if conweave {
        defaults.extend([
            ("/switch/ack_queue", json!("control")),
            ("/transport/source_ports", json!("per_source")),
            ("/switch/pfc/alpha", json!(0.0625)),
            ("/switch/pfc/reserve_bytes", json!(2 * CONWEAVE_MMU_CELL)),
            ("/switch/pfc/resume_offset_bytes", json!(1)),
            ("/switch/pfc/headroom_from", json!("shared_pool_full")),
            ("/transport/nack_interval", json!("4us")),
            ("/transport/nack_signals_congestion", json!(true)),
        ]);
    }
    // Set first, so a ConWeave value above wins over HPCC's below.
    defaults.extend([
        ("/switch/ack_queue", json!("data")),
        ("/switch/buffer_bytes", json!("32MiB")),
        ("/switch/ecn/random_stream", json!("shared")),
        ("/routing/hash", json!("ns3")),
        ("/links/serialization", json!("ns3")),
        ("/engine/tie_order", json!("scheduled")),
        ("/transport/source_ports", json!("per_pair")),
        ("/transport/bdp", json!("max")),
        ("/transport/dcqcn/cnp_interval", json!("0us")),
        ("/transport/hpcc/min_rate", json!("1000Mbps")),
        ("/transport/hpcc/max_stage", json!(0)),
        ("/transport/hpcc/int_units", json!("ns3")),
        ("/transport/hpcc/shift_next_send", json!(true)),
        ("/transport/timely/variant", json!("ns3")),
    ]);
    if cc == "dctcp" {
        defaults.extend([
            ("/transport/dctcp/variant", json!("ns3")),
            ("/transport/dctcp/rate_ai", json!("615Mbps")),
            ("/transport/dctcp/min_rate", json!("1000Mbps")),
            ("/transport/window", json!("bdp")),
            ("/transport/window_follows_rate", json!(true)),
            ("/switch/ecn/kmin", json!("300KB")),
            ("/switch/ecn/kmax", json!("300KB")),
            ("/switch/ecn/pmax", json!(1.0)),
        ]);
    }
    for (pointer, value) in defaults {
        set_default(doc, pointer, value)?;
    }
    Ok(())
}

/// The MMU cell of ConWeave's `switch-mmu.h` (`MTU`: 1,000 payload bytes + headers).
const CONWEAVE_MMU_CELL: u64 = 1_048;

/// Set `pointer` (a JSON pointer of table keys) to `value` unless it is already set.
fn set_default(doc: &mut Value, pointer: &str, value: Value) -> Result<(), ScenarioError> {
    let mut at = doc;
    let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for (i, key) in keys.iter().enumerate() {
        let path = keys[..=i].join(".");
        let Value::Object(table) = at else {
            let parent = keys[..i].join(".");
            return Err(ScenarioError::field(parent, "expected a table"));
        };
        if i + 1 == keys.len() {
            table.entry(key.to_string()).or_insert(value);
            return Ok(());
        }
        at = table.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !at.is_object() {
            return Err(ScenarioError::field(path, "expected a table"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_in_only_what_is_left_out() {
        let mut doc = json!({"compat": "ns3", "routing": {"hash": "mix"}, "transport": {"cc": "dctcp"}});
        apply(&mut doc).unwrap();
        assert_eq!(doc["routing"]["hash"], "mix", "a field written wins");
        assert_eq!(doc["transport"]["source_ports"], "per_pair");
        assert_eq!(doc["switch"]["buffer_bytes"], "32MiB");
        assert_eq!(doc["transport"]["dctcp"]["rate_ai"], "615Mbps");
        assert_eq!(doc["switch"]["ecn"]["kmin"], "300KB");
        assert_eq!(doc["switch"]["ecn"]["random_stream"], "shared");
        assert_eq!(doc["links"]["serialization"], "ns3");
        assert_eq!(doc["transport"]["hpcc"]["max_stage"], 0);
        assert_eq!(doc["transport"]["hpcc"]["int_units"], "ns3");
        assert_eq!(doc["transport"]["hpcc"]["shift_next_send"], true);
        assert_eq!(doc["transport"]["timely"]["variant"], "ns3");
        let mut plain = json!({"transport": {"cc": "dctcp"}});
        apply(&mut plain).unwrap();
        assert_eq!(plain, json!({"transport": {"cc": "dctcp"}}), "no compat: untouched");
        let mut bad = json!({"compat": "omnet"});
        assert_eq!(
            apply(&mut bad).unwrap_err().to_string(),
            "compat: expected \"ns3\" or \"conweave_ns3\", got \"omnet\""
        );
        let mut cw = json!({"compat": "conweave_ns3", "switch": {"pfc": {"alpha": 0.125}}});
        apply(&mut cw).unwrap();
        assert_eq!(cw["switch"]["ack_queue"], "control", "ConWeave's value beats HPCC's");
        assert_eq!(cw["transport"]["source_ports"], "per_source");
        assert_eq!(cw["switch"]["pfc"]["alpha"], 0.125, "a field written wins");
        assert_eq!(cw["switch"]["pfc"]["reserve_bytes"], 2_096);
        assert_eq!(cw["routing"]["hash"], "ns3", "the rest is HPCC's profile");
        let mut clash = json!({"compat": "ns3", "switch": 3});
        assert!(apply(&mut clash).unwrap_err().to_string().starts_with("switch: expected a table"));
    }
}

/// What a scenario under `compat = "ns3"` wrote that the ns-3 simulator does not do for its
/// congestion control(s): a written field beats the profile, so such a run is silently not
/// ns-3's unless someone says so. One sentence per contradiction, naming the field, ns-3's
/// behaviour and its source; empty without `compat` or when nothing contradicts. (Settings
/// ns-3 reads from its configuration — buffer, ECN thresholds, rates — are the user's to
/// choose and are not listed.)
pub fn contradictions(s: &super::Scenario) -> Vec<String> {
    use super::{AckQueue, CcKind, DctcpVariantSpec, EcmpHash, RandomStream, SourcePorts};
    use super::{TimelyVariantSpec, WindowSpec};
    let Some(compat) = s.compat else { return Vec::new() };
    let conweave = compat == super::Compat::ConweaveNs3;
    let t = &s.transport;
    let ccs: Vec<CcKind> = std::iter::once(t.cc).chain(t.groups.iter().map(|g| g.cc)).collect();
    let uses = |cc: CcKind| ccs.contains(&cc);
    let mut out = Vec::new();
    let name = compat.name();
    let mut say = |field: &str, written: String, ns3: &str| {
        out.push(format!("compat = \"{name}\": {field} = {written} contradicts ns-3, which {ns3}"));
    };
    match (conweave, s.switch.ack_queue) {
        (false, AckQueue::Control) => {
            say("switch.ack_queue", "\"control\"".into(), "queues ACKs with data (SwitchNode::SendToDev)")
        }
        (true, AckQueue::Data) => say(
            "switch.ack_queue",
            "\"data\"".into(),
            "queues ACKs at high priority (AckHighPrio 1, network-load-balance.cc)",
        ),
        _ => {}
    }
    if s.switch.ecn.random_stream != RandomStream::Shared {
        say("switch.ecn.random_stream", "\"per_switch\"".into(), "draws every mark from one global stream");
    }
    if s.routing.hash != EcmpHash::Ns3 {
        say(
            "routing.hash",
            format!("{:?}", s.routing.hash).to_lowercase(),
            "hashes with SwitchNode::EcmpHash",
        );
    }
    if s.links.serialization != crate::time::Serialization::Ns3 {
        say("links.serialization", "\"exact\"".into(), "truncates serialization times to the ns");
    }
    if s.engine.tie_order != super::TieOrderSpec::Scheduled {
        say(
            "engine.tie_order",
            "\"shuffled\"".into(),
            "fires simultaneous events in scheduling order (MapScheduler's (ts, uid))",
        );
    }
    let (ports, ports_how) = if conweave {
        (SourcePorts::PerSource, "numbers source ports per source host (ScheduleFlowInputs)")
    } else {
        (SourcePorts::PerPair, "numbers source ports per host pair (third.cc)")
    };
    if t.source_ports != ports {
        let written = serde_json::to_string(&t.source_ports).expect("a unit variant serializes");
        say("transport.source_ports", written, ports_how);
    }
    if t.dcqcn.cnp_interval.0 != crate::time::Delta::ZERO && uses(CcKind::Dcqcn) {
        say(
            "transport.dcqcn.cnp_interval",
            format!("\"{}us\"", t.dcqcn.cnp_interval.0.as_ns_f64() / 1000.0),
            "sends no CNP packets: congestion is echoed in ACKs",
        );
    }
    if t.hpcc.int_units != super::HpccIntUnits::Ns3 && uses(CcKind::Hpcc) {
        say("transport.hpcc.int_units", "\"exact\"".into(), "reads INT in its header's units (int-header.h)");
    }
    if !t.hpcc.shift_next_send && uses(CcKind::Hpcc) {
        say(
            "transport.hpcc.shift_next_send",
            "false".into(),
            "moves the next send on a rate change (RdmaHw::ChangeRate)",
        );
    }
    if t.timely.variant != TimelyVariantSpec::Ns3 && uses(CcKind::Timely) {
        say("transport.timely.variant", "\"paper\"".into(), "updates TIMELY as UpdateRateTimely does");
    }
    if t.dctcp.variant != DctcpVariantSpec::Ns3 && uses(CcKind::Dctcp) {
        say("transport.dctcp.variant", "\"hpcc_sim\"".into(), "keeps DCTCP's books as HandleAckDctcp does");
    }
    let window = |w: &WindowSpec| match w {
        WindowSpec::Auto => "\"auto\"".to_string(),
        WindowSpec::None => "\"none\"".to_string(),
        WindowSpec::Bdp => "\"bdp\"".to_string(),
        WindowSpec::Bytes(b) => b.to_string(),
    };
    match t.window {
        WindowSpec::None | WindowSpec::Bytes(_) if uses(CcKind::Hpcc) => {
            say("transport.window", window(&t.window), "runs HPCC with its BDP window (run.py has_win 1)")
        }
        WindowSpec::None | WindowSpec::Bytes(_) if uses(CcKind::Dctcp) => {
            say("transport.window", window(&t.window), "runs DCTCP with a BDP window (run.py has_win 1)")
        }
        WindowSpec::Bdp | WindowSpec::Bytes(_) if uses(CcKind::Dcqcn) || uses(CcKind::Timely) => say(
            "transport.window",
            window(&t.window),
            "runs DCQCN and TIMELY without a window (run.py has_win 0)",
        ),
        _ => {}
    }
    if uses(CcKind::Dctcp) && !t.window_follows_rate {
        say(
            "transport.window_follows_rate",
            "false".into(),
            "scales DCTCP's window with its rate (VAR_WIN 1)",
        );
    }
    out
}

#[cfg(test)]
mod contradiction_tests {
    use crate::scenario::Scenario;

    fn notes(extra: &str) -> Vec<String> {
        let text = format!(
            "compat = \"ns3\"\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n{extra}\n\
             [workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"1KB\" }}]\n"
        );
        super::contradictions(&Scenario::from_toml_str(&text).expect("valid"))
    }

    #[test]
    fn a_written_field_that_is_not_ns3s_is_named() {
        assert!(notes("[transport]\ncc = \"hpcc\"").is_empty(), "the profile alone contradicts nothing");
        assert!(notes("[transport]\ncc = \"dcqcn\"\nwindow = \"none\"").is_empty(), "DCQCN has no window");
        let n = notes("[transport]\ncc = \"hpcc\"\nwindow = \"none\"");
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].contains("transport.window = \"none\"") && n[0].contains("BDP window"), "{}", n[0]);
        let n = notes("[switch]\nack_queue = \"control\"\n[routing]\nhash = \"mix\"");
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n.iter().any(|m| m.starts_with("compat = \"ns3\": routing.hash = mix")));
        let n = notes("[transport]\ncc = \"dctcp\"\nwindow_follows_rate = false");
        assert_eq!(n.len(), 1, "{n:?}");
        let plain = Scenario::from_toml_str(
            "[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n[transport]\ncc = \"hpcc\"\n\
             window = \"none\"\n[workload]\nkind = \"flows\"\nflows = [{ src = 0, dst = 1, size = \"1KB\" }]\n",
        )
        .expect("valid");
        assert!(super::contradictions(&plain).is_empty(), "no compat, nothing to contradict");
    }

    /// ConWeave's profile expects its own ACK queue and source ports.
    #[test]
    fn conweave_profile_names_its_own_contradictions() {
        let cw = |extra: &str| {
            let text = format!(
                "compat = \"conweave_ns3\"\n[topology]\nkind = \"dumbbell\"\nleft_hosts = 1\nright_hosts = 1\n\
                 {extra}\n[workload]\nkind = \"flows\"\nflows = [{{ src = 0, dst = 1, size = \"1KB\" }}]\n"
            );
            super::contradictions(&Scenario::from_toml_str(&text).expect("valid"))
        };
        assert!(cw("").is_empty(), "the profile alone contradicts nothing");
        let n = cw("[switch]\nack_queue = \"data\"\n[transport]\nsource_ports = \"per_pair\"");
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].starts_with("compat = \"conweave_ns3\": switch.ack_queue = \"data\""), "{}", n[0]);
        assert!(n[1].contains("transport.source_ports = \"per_pair\"") && n[1].contains("per source host"));
    }
}
