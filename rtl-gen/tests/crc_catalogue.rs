//! The CRC reference model and the generator's GF(2) map against the `crc` crate: every
//! catalogue algorithm the crate ships up to 64 bits (CRC-82/DARC exceeds the 64-bit width limit
//! of the `crc` kind), its catalogue check value, and random messages of several lengths.

use crc::*;
use rtl_gen::blocks::crc::model::{CrcAlgo, CrcModel};
use rtl_gen::math::gf2::BitVec;

/// A small deterministic generator, so a failure names a reproducible message.
struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn algo_of<W: Into<u64> + Copy + crc::Width>(a: &Algorithm<W>) -> CrcAlgo {
    CrcAlgo { width: a.width as u32, poly: a.poly.into(), init: a.init.into(), refin: a.refin, refout: a.refout, xorout: a.xorout.into() }
}

fn check_algorithm(name: &str, algo: CrcAlgo, check: u64, reference: &dyn Fn(&[u8]) -> u64) -> usize {
    let model = CrcModel::new(algo);
    assert_eq!(model.checksum(b"123456789"), check, "{name}: catalogue check value");
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ algo.poly);
    let mut compared = 1;
    for len in [0usize, 1, 2, 3, 7, 8, 9, 31, 64, 242, 1000] {
        for _ in 0..4 {
            let msg = rng.bytes(len);
            assert_eq!(model.checksum(&msg), reference(&msg), "{name}: {len}-byte message {msg:02x?}");
            compared += 1;
        }
    }
    // The matrix the RTL is emitted from gives the same value as the crate.
    for len in [1usize, 9, 30] {
        let map = algo.affine(8 * len, 0);
        for _ in 0..3 {
            let msg = rng.bytes(len);
            let hw = map.apply(&BitVec::from_bytes(8 * len, &msg)).to_u128() as u64;
            assert_eq!(hw, reference(&msg), "{name}: GF(2) map over {len} bytes {msg:02x?}");
            compared += 1;
        }
    }
    compared
}

macro_rules! check {
    ($alg:ident, $t:ty, $total:ident, $count:ident) => {{
        let crate_crc = Crc::<$t>::new(&$alg);
        let reference = |m: &[u8]| crate_crc.checksum(m) as u64;
        $total += check_algorithm(stringify!($alg), algo_of(&$alg), $alg.check as u64, &reference);
        $count += 1;
    }};
}

#[test]
fn model_matches_every_crc_crate_catalogue_algorithm() {
    let mut total = 0usize;
    let mut count = 0usize;
    macro_rules! run {
        () => {
        check!(CRC_3_GSM, u8, total, count);
        check!(CRC_3_ROHC, u8, total, count);
        check!(CRC_4_G_704, u8, total, count);
        check!(CRC_4_INTERLAKEN, u8, total, count);
        check!(CRC_5_EPC_C1G2, u8, total, count);
        check!(CRC_5_G_704, u8, total, count);
        check!(CRC_5_USB, u8, total, count);
        check!(CRC_6_CDMA2000_A, u8, total, count);
        check!(CRC_6_CDMA2000_B, u8, total, count);
        check!(CRC_6_DARC, u8, total, count);
        check!(CRC_6_G_704, u8, total, count);
        check!(CRC_6_GSM, u8, total, count);
        check!(CRC_7_MMC, u8, total, count);
        check!(CRC_7_ROHC, u8, total, count);
        check!(CRC_7_UMTS, u8, total, count);
        check!(CRC_8_AUTOSAR, u8, total, count);
        check!(CRC_8_BLUETOOTH, u8, total, count);
        check!(CRC_8_CDMA2000, u8, total, count);
        check!(CRC_8_DARC, u8, total, count);
        check!(CRC_8_DVB_S2, u8, total, count);
        check!(CRC_8_GSM_A, u8, total, count);
        check!(CRC_8_GSM_B, u8, total, count);
        check!(CRC_8_HITAG, u8, total, count);
        check!(CRC_8_I_432_1, u8, total, count);
        check!(CRC_8_I_CODE, u8, total, count);
        check!(CRC_8_LTE, u8, total, count);
        check!(CRC_8_MAXIM_DOW, u8, total, count);
        check!(CRC_8_MIFARE_MAD, u8, total, count);
        check!(CRC_8_NRSC_5, u8, total, count);
        check!(CRC_8_OPENSAFETY, u8, total, count);
        check!(CRC_8_ROHC, u8, total, count);
        check!(CRC_8_SAE_J1850, u8, total, count);
        check!(CRC_8_SMBUS, u8, total, count);
        check!(CRC_8_TECH_3250, u8, total, count);
        check!(CRC_8_WCDMA, u8, total, count);
        check!(CRC_10_ATM, u16, total, count);
        check!(CRC_10_CDMA2000, u16, total, count);
        check!(CRC_10_GSM, u16, total, count);
        check!(CRC_11_FLEXRAY, u16, total, count);
        check!(CRC_11_UMTS, u16, total, count);
        check!(CRC_12_CDMA2000, u16, total, count);
        check!(CRC_12_DECT, u16, total, count);
        check!(CRC_12_GSM, u16, total, count);
        check!(CRC_12_UMTS, u16, total, count);
        check!(CRC_13_BBC, u16, total, count);
        check!(CRC_14_DARC, u16, total, count);
        check!(CRC_14_GSM, u16, total, count);
        check!(CRC_15_CAN, u16, total, count);
        check!(CRC_15_MPT1327, u16, total, count);
        check!(CRC_16_ARC, u16, total, count);
        check!(CRC_16_CDMA2000, u16, total, count);
        check!(CRC_16_CMS, u16, total, count);
        check!(CRC_16_DDS_110, u16, total, count);
        check!(CRC_16_DECT_R, u16, total, count);
        check!(CRC_16_DECT_X, u16, total, count);
        check!(CRC_16_DNP, u16, total, count);
        check!(CRC_16_EN_13757, u16, total, count);
        check!(CRC_16_GENIBUS, u16, total, count);
        check!(CRC_16_GSM, u16, total, count);
        check!(CRC_16_IBM_3740, u16, total, count);
        check!(CRC_16_IBM_SDLC, u16, total, count);
        check!(CRC_16_ISO_IEC_14443_3_A, u16, total, count);
        check!(CRC_16_KERMIT, u16, total, count);
        check!(CRC_16_LJ1200, u16, total, count);
        check!(CRC_16_M17, u16, total, count);
        check!(CRC_16_MAXIM_DOW, u16, total, count);
        check!(CRC_16_MCRF4XX, u16, total, count);
        check!(CRC_16_MODBUS, u16, total, count);
        check!(CRC_16_NRSC_5, u16, total, count);
        check!(CRC_16_OPENSAFETY_A, u16, total, count);
        check!(CRC_16_OPENSAFETY_B, u16, total, count);
        check!(CRC_16_PROFIBUS, u16, total, count);
        check!(CRC_16_RIELLO, u16, total, count);
        check!(CRC_16_SPI_FUJITSU, u16, total, count);
        check!(CRC_16_T10_DIF, u16, total, count);
        check!(CRC_16_TELEDISK, u16, total, count);
        check!(CRC_16_TMS37157, u16, total, count);
        check!(CRC_16_UMTS, u16, total, count);
        check!(CRC_16_USB, u16, total, count);
        check!(CRC_16_XMODEM, u16, total, count);
        check!(CRC_17_CAN_FD, u32, total, count);
        check!(CRC_21_CAN_FD, u32, total, count);
        check!(CRC_24_BLE, u32, total, count);
        check!(CRC_24_FLEXRAY_A, u32, total, count);
        check!(CRC_24_FLEXRAY_B, u32, total, count);
        check!(CRC_24_INTERLAKEN, u32, total, count);
        check!(CRC_24_LTE_A, u32, total, count);
        check!(CRC_24_LTE_B, u32, total, count);
        check!(CRC_24_OPENPGP, u32, total, count);
        check!(CRC_24_OS_9, u32, total, count);
        check!(CRC_30_CDMA, u32, total, count);
        check!(CRC_31_PHILIPS, u32, total, count);
        check!(CRC_32_AIXM, u32, total, count);
        check!(CRC_32_AUTOSAR, u32, total, count);
        check!(CRC_32_BASE91_D, u32, total, count);
        check!(CRC_32_BZIP2, u32, total, count);
        check!(CRC_32_CD_ROM_EDC, u32, total, count);
        check!(CRC_32_CKSUM, u32, total, count);
        check!(CRC_32_ISCSI, u32, total, count);
        check!(CRC_32_ISO_HDLC, u32, total, count);
        check!(CRC_32_JAMCRC, u32, total, count);
        check!(CRC_32_MEF, u32, total, count);
        check!(CRC_32_MPEG_2, u32, total, count);
        check!(CRC_32_XFER, u32, total, count);
        check!(CRC_40_GSM, u64, total, count);
        check!(CRC_64_ECMA_182, u64, total, count);
        check!(CRC_64_GO_ISO, u64, total, count);
        check!(CRC_64_MS, u64, total, count);
        check!(CRC_64_NVME, u64, total, count);
        check!(CRC_64_REDIS, u64, total, count);
        check!(CRC_64_WE, u64, total, count);
        check!(CRC_64_XZ, u64, total, count);
        };
    }
    run!();
    assert!(count >= 100, "only {count} algorithms checked");
    println!("{count} catalogue algorithms, {total} messages compared with the crc crate");
}
