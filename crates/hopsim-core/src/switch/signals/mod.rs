//! Switch signals: mechanisms that read or write the data packets a switch forwards on
//! behalf of the hosts' congestion control — INT (`int`) and Bolt's SRC / PRU / SM
//! (`bolt`). Each is one file here behind [`SignalPolicy`] (in `hooks`) and one line in the
//! registration list below; a run keeps the signals that build themselves for it, and a
//! run with none pays a length check per packet.

mod hooks;

pub mod bolt;
pub mod int;

pub use hooks::{Notice, SignalBuild, SignalCx, SignalPolicy};

use crate::fabric::packet::Packet;
use crate::ids::{NodeId, PortId};

/// Generates the family's enum and dispatch from the registration list.
macro_rules! signal_registry {
    ($( $variant:ident => $policy:ty => $stored:ty ),+ $(,)?) => {
        /// A signal running at every switch.
        #[derive(Clone, Debug)]
        pub enum Signal {
            $( $variant($stored), )+
        }

        impl Signal {
            /// Every registered signal this run needs, in registration order.
            pub fn build_all(b: &mut SignalBuild) -> Vec<Signal> {
                let mut out = Vec::new();
                $( if let Some(s) = <$policy as SignalPolicy>::build(b) {
                    out.push(Signal::$variant(s.into()));
                } )+
                out
            }

            pub fn name(&self) -> &'static str {
                match self {
                    $( Signal::$variant(_) => <$policy as SignalPolicy>::NAME, )+
                }
            }

            /// Whether it acts on arrivals, and on departures.
            pub fn on_arrival_wanted(&self) -> bool {
                match self {
                    $( Signal::$variant(_) => <$policy as SignalPolicy>::ON_ARRIVAL, )+
                }
            }
            pub fn on_departure_wanted(&self) -> bool {
                match self {
                    $( Signal::$variant(_) => <$policy as SignalPolicy>::ON_DEPARTURE, )+
                }
            }

            #[inline]
            pub fn on_arrival(&mut self, cx: &mut SignalCx, node: NodeId, egress: PortId, pkt: &Packet, slot: usize) -> Option<Packet> {
                match self {
                    $( Signal::$variant(s) => <$policy as SignalPolicy>::on_arrival(s, cx, node, egress, pkt, slot), )+
                }
            }

            #[inline]
            pub fn on_departure(&mut self, cx: &mut SignalCx, port: PortId, slot: usize, queue_bytes: u64) {
                match self {
                    $( Signal::$variant(s) => <$policy as SignalPolicy>::on_departure(s, cx, port, slot, queue_bytes), )+
                }
            }

            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    $( Signal::$variant(s) => <$policy as SignalPolicy>::counters(s), )+
                }
            }
        }
    };
}

// The registration list: one line per signal.
signal_registry! {
    Int => int::Int => int::Int,
    Bolt => bolt::BoltSwitches => Box<bolt::BoltSwitches>,
}
