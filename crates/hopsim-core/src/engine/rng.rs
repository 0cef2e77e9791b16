//! Named random streams derived from the scenario seed.
//!
//! Each component draws from its own ChaCha8 stream seeded by `(scenario seed, stable
//! component name)`, so adding a random draw in one component never shifts another's.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A portable, reproducible random stream.
pub type RngStream = ChaCha8Rng;

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64-bit seed for the stream `name` under scenario seed `seed` (FNV-1a of the name,
/// mixed with the seed by SplitMix64).
pub fn stream_seed(seed: u64, name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix64(seed ^ splitmix64(h))
}

/// Open the stream `name` for scenario seed `seed`.
pub fn rng_stream(seed: u64, name: &str) -> RngStream {
    ChaCha8Rng::seed_from_u64(stream_seed(seed, name))
}

/// A uniform draw from `0..n` (`n` > 0).
#[inline]
pub fn pick_below(rng: &mut RngStream, n: usize) -> usize {
    use rand::Rng;
    rng.gen_range(0..n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_stable_and_independent() {
        let a: u64 = rng_stream(1, "workload/poisson/0").gen();
        let b: u64 = rng_stream(1, "workload/poisson/0").gen();
        let c: u64 = rng_stream(1, "workload/incast/0").gen();
        let d: u64 = rng_stream(2, "workload/poisson/0").gen();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
