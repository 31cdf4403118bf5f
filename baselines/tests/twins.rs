//! The optimized code and its naive twin agree on every input proptest can think of.

use bytes::Buf;
use proptest::prelude::*;
use wirelab_baselines as naive;

fn latin1ish() -> impl Strategy<Value = String> {
    // Mostly ASCII with Latin-1 and wider chars mixed in, plus fully arbitrary strings.
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(
            prop_oneof![
                8 => 0x20u32..0x7F,
                2 => 0x80u32..0x100,
                1 => 0x100u32..0x3000,
                1 => Just(0x1F600u32),
            ],
            0..200
        )
        .prop_map(|v| v.into_iter().filter_map(char::from_u32).collect()),
    ]
}

proptest! {
    #[test]
    fn latin1_optimized_matches_naive(s in latin1ish(), cut in 0usize..250) {
        prop_assert_eq!(wirelab::latin1::encode_truncating(&s), naive::latin1::encode_truncating(&s));
        prop_assert_eq!(wirelab::latin1::encode_lossy(&s), naive::latin1::encode_lossy(&s));
        let mut a = vec![0u8; cut];
        let mut b = vec![0u8; cut];
        let na = wirelab::latin1::encode_truncating_into(&s, &mut a);
        let nb = naive::latin1::encode_truncating_into(&s, &mut b);
        prop_assert_eq!(na, nb);
        prop_assert_eq!(a, b);
        let na = wirelab::latin1::encode_lossy_into(&s, &mut vec![0u8; cut]);
        prop_assert_eq!(na, naive::latin1::encode_lossy_into(&s, &mut vec![0u8; cut]));
    }

    #[test]
    fn latin1_decode_matches_naive(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(wirelab::latin1::decode(&bytes), naive::latin1::decode(&bytes));
    }

    #[test]
    fn block_writer_matches_locking_writer(
        ops in proptest::collection::vec((0u8..4, proptest::collection::vec(any::<u8>(), 0..300)), 0..60)
    ) {
        let mut fast = wirelab::block::BlockWriter::new();
        let slow = naive::block::LockingWriter::new();
        let mut fast_blocks = Vec::new();
        let mut slow_blocks = Vec::new();
        for (op, data) in ops {
            match op {
                0 => { for &b in &data { fast.put_u8(b); slow.put_u8(b); } }
                1 => { fast.put_slice(&data); slow.put_slice(&data); }
                2 => { fast.put_zeroed(data.len()).copy_from_slice(&data); slow.put_slice(&data); }
                _ => { fast_blocks.push(fast.take()); slow_blocks.push(slow.take()); }
            }
            prop_assert_eq!(fast.len(), slow.len());
        }
        fast_blocks.push(fast.take());
        slow_blocks.push(slow.take());
        prop_assert_eq!(fast_blocks, slow_blocks);
    }

    #[test]
    fn write_to_matches_temp_copies(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..6000), 0..4)
    ) {
        let flat: Vec<u8> = chunks.concat();
        let make = || {
            let mut buf: Box<dyn Buf> = Box::new(&[][..]);
            for c in &chunks {
                buf = Box::new(buf.chain(&c[..]));
            }
            buf
        };
        let mut outs = Vec::new();
        for f in 0..3 {
            let mut out = Vec::new();
            let mut buf = make();
            match f {
                0 => wirelab::write_to::write_to(&mut buf, &mut out).unwrap(),
                1 => naive::write_to::write_to_temp_4k(&mut buf, &mut out).unwrap(),
                _ => naive::write_to::write_to_temp_fitted(&mut buf, &mut out).unwrap(),
            }
            prop_assert!(!buf.has_remaining());
            outs.push(out);
        }
        prop_assert_eq!(&outs[0], &flat);
        prop_assert_eq!(&outs[1], &flat);
        prop_assert_eq!(&outs[2], &flat);
    }
}
