//! The reference model of a `crc_stream` block: the CRC of a message fed as beats of
//! `word_bytes` bytes, as the module takes them (a beat with `in_first` starts a message, the
//! beat with `in_last` ends it and keeps only its first `keep` bytes, the bytes of every other
//! beat all count).

use crate::blocks::crc::model::{CrcAlgo, CrcModel};

/// The beat-level model: feed it the module's valid beats, read each message's CRC at its last.
#[derive(Debug, Clone)]
pub struct CrcStreamModel {
    crc: CrcModel,
    word_bytes: usize,
    /// The bytes of the message in progress.
    message: Vec<u8>,
}

impl CrcStreamModel {
    pub fn new(algo: CrcAlgo, word_bytes: u32) -> CrcStreamModel {
        CrcStreamModel { crc: CrcModel::new(algo), word_bytes: word_bytes as usize, message: Vec::new() }
    }

    /// One valid beat: `data` holds `word_bytes` bytes (byte i of the beat at `data[i]`), `keep`
    /// the valid bytes of a last beat (the first `keep`). Returns the message's CRC at its last
    /// beat, `None` before.
    pub fn beat(&mut self, data: &[u8], keep: usize, first: bool, last: bool) -> Option<u64> {
        assert_eq!(data.len(), self.word_bytes, "a beat is word_bytes bytes");
        if first {
            self.message.clear();
        }
        if !last {
            self.message.extend_from_slice(data);
            return None;
        }
        self.message.extend_from_slice(&data[..keep.min(self.word_bytes)]);
        let crc = self.crc.checksum(&self.message);
        self.message.clear();
        Some(crc)
    }

    /// The CRC of a whole message (what its beats give).
    pub fn checksum(&self, message: &[u8]) -> u64 {
        self.crc.checksum(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beats_of_any_length_give_the_whole_message_crc() {
        let algo = CrcAlgo { width: 32, poly: 0x04C1_1DB7, init: 0xFFFF_FFFF, refin: true, refout: true, xorout: 0xFFFF_FFFF };
        let mut m = CrcStreamModel::new(algo, 4);
        // "123456789" in beats of four bytes, the last keeping one byte.
        assert_eq!(m.beat(b"1234", 4, true, false), None);
        assert_eq!(m.beat(b"5678", 4, false, false), None);
        assert_eq!(m.beat(b"9xyz", 1, false, true), Some(0xCBF4_3926), "the catalogue check value");
        // A one-beat message right after.
        assert_eq!(m.beat(b"1234", 2, true, true), Some(m.checksum(b"12")));
    }
}
