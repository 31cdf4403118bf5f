//! Deliberately naive: `&str` ⇄ ISO-8859-1 one char at a time, with a bounds-checked store per
//! char. Leaves out the bulk copy of ASCII runs (`wirelab::latin1`), like Pekko HTTP's
//! `getAsciiBytes` before the original change.

/// Deliberately naive: writes `c as u8` for each char of `s` into `dst`, one bounds-checked
/// store at a time, and returns how many it wrote (`min(chars, dst.len())`).
pub fn encode_truncating_into(s: &str, dst: &mut [u8]) -> usize {
    let mut i = 0;
    for c in s.chars() {
        if i == dst.len() {
            break;
        }
        dst[i] = c as u8;
        i += 1;
    }
    i
}

/// Deliberately naive: counts the chars, allocates, then stores one char at a time.
pub fn encode_truncating(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.chars().count()];
    let n = encode_truncating_into(s, &mut out);
    debug_assert_eq!(n, out.len());
    out
}

/// Deliberately naive: like [`encode_truncating_into`], with `?` for chars above U+00FF.
pub fn encode_lossy_into(s: &str, dst: &mut [u8]) -> usize {
    let mut i = 0;
    for c in s.chars() {
        if i == dst.len() {
            break;
        }
        dst[i] = if (c as u32) <= 0xFF { c as u8 } else { b'?' };
        i += 1;
    }
    i
}

/// Deliberately naive: like [`encode_truncating`], with `?` for chars above U+00FF.
pub fn encode_lossy(s: &str) -> Vec<u8> {
    let mut out = vec![0u8; s.chars().count()];
    encode_lossy_into(s, &mut out);
    out
}

/// Deliberately naive: pushes one char per octet.
pub fn decode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        out.push(b as char);
    }
    out
}
