//! Extension header fields: header fields that only some mechanisms need (a congestion
//! root, an upstream queue id, a rank, congestion-control bits), kept beside the packet
//! store at each packet's slot number, so the 64-byte slot — and every run that uses none
//! of them — stays as it is.
//!
//! A mechanism **registers** the fields it carries while the run is built
//! ([`HeaderLayout::field`]: a name and a width in bits) and keeps the [`Field`] handles it
//! gets back; fields are packed into 64-bit words in the order they are registered. A run
//! whose mechanisms register nothing allocates nothing. A field two mechanisms share (a
//! rank written by senders and read by switches) is registered under one name by both and
//! resolves to the same place.
//!
//! A new packet's row is cleared when it is created; an ACK, which takes over its data
//! packet's slot, takes over its row too (a mechanism that echoes a field in ACKs reads it
//! there).

/// Where a registered field lives in a row: its word, its shift and its width mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    word: u32,
    shift: u8,
    mask: u64,
}

/// The fields of a run, in the order they were registered.
#[derive(Clone, Debug, Default)]
pub struct HeaderLayout {
    fields: Vec<(&'static str, u8, Field)>,
    /// Bits used in each word.
    used: Vec<u8>,
}

impl HeaderLayout {
    /// The field `name` of `bits` bits (1 to 64): registered now, or the one registered
    /// before under that name (which must have the same width).
    pub fn field(&mut self, name: &'static str, bits: u8) -> Field {
        assert!((1..=64).contains(&bits), "a header field has 1 to 64 bits, {name} asks {bits}");
        if let Some((_, b, f)) = self.fields.iter().find(|(n, _, _)| *n == name) {
            assert_eq!(*b, bits, "header field {name} registered with two widths");
            return *f;
        }
        let word = match self.used.iter().position(|u| 64 - u >= bits) {
            Some(w) => w,
            None => {
                self.used.push(0);
                self.used.len() - 1
            }
        };
        let shift = self.used[word];
        self.used[word] += bits;
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let f = Field { word: word as u32, shift, mask };
        self.fields.push((name, bits, f));
        f
    }

    /// The field registered under `name`, if any.
    pub fn get(&self, name: &str) -> Option<Field> {
        self.fields.iter().find(|(n, _, _)| *n == name).map(|(_, _, f)| *f)
    }

    /// 64-bit words per row.
    pub fn words(&self) -> usize {
        self.used.len()
    }

    /// Registered field names, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields.iter().map(|(n, _, _)| *n)
    }
}

/// The header fields of every packet in the network, one row per packet-store slot
/// (empty when the run registered no field).
#[derive(Clone, Debug, Default)]
pub struct Headers {
    words: usize,
    rows: Vec<u64>,
}

impl Headers {
    /// Rows for `layout`.
    pub fn new(layout: &HeaderLayout) -> Headers {
        Headers { words: layout.words(), rows: Vec::new() }
    }

    /// Whether any mechanism of the run carries header fields.
    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.words != 0
    }

    /// Give the new packet in `slot` cleared fields.
    #[inline]
    pub fn reset(&mut self, slot: usize) {
        let w = self.words;
        if self.rows.len() < (slot + 1) * w {
            self.rows.resize((slot + 1).next_power_of_two() * w, 0);
        }
        self.rows[slot * w..(slot + 1) * w].fill(0);
    }

    /// Field `f` of the packet in `slot`.
    #[inline]
    pub fn get(&self, slot: usize, f: Field) -> u64 {
        (self.rows[slot * self.words + f.word as usize] >> f.shift) & f.mask
    }

    /// Set field `f` of the packet in `slot` to `value` (cut to the field's width).
    #[inline]
    pub fn set(&mut self, slot: usize, f: Field, value: u64) {
        let w = &mut self.rows[slot * self.words + f.word as usize];
        *w = (*w & !(f.mask << f.shift)) | ((value & f.mask) << f.shift);
    }

    /// The fields of the packet in `slot`, as words (for a packet handed to another
    /// partition of a parallel run).
    pub fn row(&self, slot: usize) -> &[u64] {
        &self.rows[slot * self.words..(slot + 1) * self.words]
    }

    /// Give the packet in `slot` the fields `row` (from [`row`](Self::row)).
    pub fn set_row(&mut self, slot: usize, row: &[u64]) {
        self.reset(slot);
        self.rows[slot * self.words..(slot + 1) * self.words].copy_from_slice(row);
    }

    /// A packet moved from slot `from` to slot `to`: its fields move with it.
    pub fn copy(&mut self, from: usize, to: usize) {
        self.reset(to);
        let w = self.words;
        self.rows.copy_within(from * w..(from + 1) * w, to * w);
    }

    /// Bytes allocated.
    pub fn allocated_bytes(&self) -> u64 {
        (self.rows.capacity() * std::mem::size_of::<u64>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_pack_into_words_and_rows_follow_slots() {
        let mut layout = HeaderLayout::default();
        let root = layout.field("pyrrha.root", 32);
        let queue = layout.field("bfc.upstream_queue", 32);
        let mark = layout.field("mark", 8);
        let rank = layout.field("rank", 64);
        assert_eq!(layout.field("rank", 64), rank, "a shared field resolves to one place");
        assert_eq!(layout.words(), 3, "two 32-bit fields share a word; the 64-bit rank takes one");
        let off = Headers::new(&HeaderLayout::default());
        assert!(!off.is_enabled());
        assert_eq!(off.allocated_bytes(), 0);
        let mut h = Headers::new(&layout);
        h.reset(5);
        h.set(5, root, 7);
        h.set(5, queue, u32::MAX as u64);
        h.set(5, mark, 0x1ff); // cut to 8 bits
        h.set(5, rank, u64::MAX - 1);
        assert_eq!((h.get(5, root), h.get(5, queue), h.get(5, mark)), (7, u32::MAX as u64, 0xff));
        assert_eq!(h.get(5, rank), u64::MAX - 1);
        h.copy(5, 9);
        assert_eq!((h.get(9, root), h.get(9, rank)), (7, u64::MAX - 1));
        h.reset(5);
        assert_eq!((h.get(5, root), h.get(5, queue), h.get(5, mark), h.get(5, rank)), (0, 0, 0, 0));
        assert_eq!(h.get(9, mark), 0xff, "another slot keeps its fields");
    }
}
