//! Take-and-break codes (Winning Ways): digit k says how a heap may lose k
//! tokens. Its bits: 1, leaving no heap; 2, leaving one heap; 4, leaving two
//! heaps; 8 (hexadecimal codes only), leaving three. The digit before the
//! point is k = 0, which may only split a heap. A `!` after a digit (as in
//! CGSuite) asks that the heaps left all differ in size.

use miette::SourceSpan;

use super::{Digit, TakeBreak};

/// What is wrong with a code, and where.
#[derive(Debug)]
pub struct Malformed {
    pub problem: String,
    pub span: SourceSpan,
    pub help: &'static str,
}

/// Parses the text inside the quotes; `span` covers that text.
pub fn take_break(text: &str, hexadecimal: bool, span: SourceSpan) -> Result<TakeBreak, Malformed> {
    let at = |index: usize, len: usize| SourceSpan::new((span.offset() + index).into(), len);
    let malformed = |index: usize, len: usize, problem: String| Malformed {
        problem,
        span: at(index, len),
        help: CODE_HELP,
    };
    let radix = if hexadecimal { 16 } else { 8 };
    let mut digits: Vec<Digit> = Vec::new();
    let mut point = None;
    for (index, c) in text.char_indices() {
        match c {
            '.' if point.is_some() => {
                return Err(malformed(index, 1, "a code has one point".into()));
            }
            '.' => {
                if digits.len() > 1 {
                    return Err(malformed(
                        0,
                        index,
                        "only one digit may stand before the point".into(),
                    ));
                }
                point = Some(index);
                if digits.is_empty() {
                    digits.push(Digit::default());
                }
            }
            '!' => match digits.last_mut() {
                Some(digit) if !digit.distinct && point.is_none_or(|point| point + 1 != index) => {
                    digit.distinct = true
                }
                _ => return Err(malformed(index, 1, "`!` must follow a digit".into())),
            },
            c => match c.to_digit(radix) {
                Some(bits) => digits.push(Digit {
                    bits: bits as u8,
                    distinct: false,
                }),
                None => {
                    let kind = if hexadecimal { "hexadecimal" } else { "octal" };
                    return Err(malformed(
                        index,
                        c.len_utf8(),
                        format!("`{c}` is not an {kind} digit"),
                    ));
                }
            },
        }
    }
    if point.is_none() {
        match digits.len() {
            0 | 1 => {}
            _ => {
                return Err(malformed(
                    0,
                    text.len(),
                    "a code with several digits needs a point".into(),
                ));
            }
        }
    }
    if digits.is_empty() {
        return Err(malformed(0, text.len(), "the code is empty".into()));
    }
    if digits[0].bits & 0b11 != 0 {
        return Err(malformed(
            0,
            1,
            "the digit before the point removes no tokens, so it can only split a heap (4, or 8 in hexadecimal)"
                .into(),
        ));
    }
    Ok(TakeBreak { digits, rest: None })
}

/// `subtraction {1, 3, 4}`: digit 3 (leave nothing or one heap) at each k
/// in the set; with `all but`, at every k ≥ 1 not in it.
pub fn subtraction(set: &[(i64, SourceSpan)], all_but: bool) -> Result<TakeBreak, Malformed> {
    let mut largest = 0;
    for &(k, span) in set {
        if k < 1 {
            return Err(Malformed {
                problem: format!("cannot subtract {k}"),
                span,
                help: "a subtraction set holds positive integers",
            });
        }
        if k > 1 << 20 {
            return Err(Malformed {
                problem: format!("{k} is too large a subtraction"),
                span,
                help: "subtraction sets hold integers up to 1048576",
            });
        }
        largest = largest.max(k as usize);
    }
    let take = Digit {
        bits: 0b11,
        distinct: false,
    };
    let mut digits = vec![if all_but { take } else { Digit::default() }; largest + 1];
    digits[0] = Digit::default();
    for &(k, _) in set {
        digits[k as usize] = if all_but { Digit::default() } else { take };
    }
    Ok(TakeBreak {
        digits,
        rest: all_but.then_some(take),
    })
}

const CODE_HELP: &str = "a code reads like \"0.77\" (Kayles), \"0.07\" (Dawson's Kayles) or \"4!.0\" (Grundy's game): \
digit k's bits 1, 2, 4 (and 8 in hexadecimal) let k tokens go leaving no heap, one, two (three)";
