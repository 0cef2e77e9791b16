//! Maps keyed by packed `u64` keys (a port and a flow, root or id) with a deterministic
//! hasher: the standard library's hasher is randomly keyed per process, and although no
//! policy iterates these maps to decide anything, a fixed hasher keeps every run's memory
//! layout, and so its speed, reproducible.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for packed `u64` keys.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ *b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = crate::topology::routing::mix64(v);
    }
}

/// A hash map keyed by a packed `u64`.
pub type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// Two 32-bit ids packed in one key.
#[inline]
pub fn pair(a: u32, b: u32) -> u64 {
    ((a as u64) << 32) | b as u64
}
