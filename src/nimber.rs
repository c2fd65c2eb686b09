//! The nimbers below 2^64 as a field (Conway, *On Numbers and Games*):
//! nim-addition is XOR; nim-multiplication makes the nimbers below
//! 2^(2^k) a field of that many elements for every k.
//!
//! Multiplication splits each factor into halves at a Fermat 2-power
//! F = 2^(2^k): a = a₁F ⊕ a₀. Since F ⊗ F = F ⊕ F/2 (F/2 a plain power of
//! two below F),
//!
//! (a₁F ⊕ a₀) ⊗ (b₁F ⊕ b₀) = (a₁b₁ ⊕ a₁b₀ ⊕ a₀b₁)F ⊕ a₁b₁ ⊗ F/2 ⊕ a₀b₀,
//!
//! with the middle products found from one more (Karatsuba): a₁b₀ ⊕ a₀b₁ =
//! (a₁ ⊕ a₀)(b₁ ⊕ b₀) ⊕ a₁b₁ ⊕ a₀b₀. The inverse of a ≠ 0 is a^(2^64 − 2),
//! since the multiplicative group of the field of 2^64 elements has order
//! 2^64 − 1.

/// The nim-product of two nimbers.
pub fn mul(a: u64, b: u64) -> u64 {
    mul_below(a, b, 64)
}

/// The nim-product of `a` and `b`, both below 2^`bits` (a power of two).
fn mul_below(a: u64, b: u64, bits: u32) -> u64 {
    if a < 2 || b < 2 {
        return a * b;
    }
    let half = bits / 2;
    let low = (1u64 << half) - 1;
    let (a1, a0, b1, b0) = (a >> half, a & low, b >> half, b & low);
    let high_high = mul_below(a1, b1, half);
    let low_low = mul_below(a0, b0, half);
    let crossed = mul_below(a1 ^ a0, b1 ^ b0, half);
    // a₁b₁ ⊕ a₁b₀ ⊕ a₀b₁ = crossed ⊕ a₀b₀.
    let high = crossed ^ low_low;
    let low = low_low ^ mul_below(high_high, 1 << (half - 1), half);
    high << half | low
}

/// The nim-inverse of `a`, none for 0. Nimbers below 2^(2^k) have theirs
/// below 2^(2^k) too.
pub fn inv(a: u64) -> Option<u64> {
    if a == 0 {
        return None;
    }
    // a^(2^64 - 2) = a^2 ⊗ a^4 ⊗ … ⊗ a^(2^63).
    let (mut power, mut inverse) = (a, 1);
    for _ in 1..64 {
        power = mul(power, power);
        inverse = mul(inverse, power);
    }
    Some(inverse)
}

/// `a` raised to the nim-power `n` (`a` multiplied by itself `n` times).
pub fn pow(a: u64, mut n: u64) -> u64 {
    let (mut base, mut result) = (a, 1);
    while n > 0 {
        if n & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        n >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_products_are_conways() {
        // On Numbers and Games, chapter 6: the field of four elements
        // {0, 1, 2, 3}, and F ⊗ F = 3F/2 for the Fermat 2-powers.
        assert_eq!(mul(2, 2), 3);
        assert_eq!(mul(2, 3), 1);
        assert_eq!(mul(3, 3), 2);
        assert_eq!(mul(4, 4), 6);
        assert_eq!(mul(16, 16), 24);
        assert_eq!(mul(1 << 32, 1 << 32), 3 << 31);
        // Distinct Fermat 2-powers multiply as integers.
        assert_eq!(mul(2, 4), 8);
        assert_eq!(mul(4, 16), 64);
        assert_eq!(mul(2, 1 << 32), 1 << 33);
    }

    proptest! {
        #[test]
        fn the_nimbers_below_2_to_the_64_are_a_field(a: u64, b: u64, c: u64) {
            prop_assert_eq!(mul(a, b), mul(b, a));
            prop_assert_eq!(mul(mul(a, b), c), mul(a, mul(b, c)));
            prop_assert_eq!(mul(a, b ^ c), mul(a, b) ^ mul(a, c));
            prop_assert_eq!(mul(a, 1), a);
            prop_assert_eq!(mul(a, 0), 0);
            match inv(a) {
                Some(inverse) => prop_assert_eq!(mul(a, inverse), 1),
                None => prop_assert_eq!(a, 0),
            }
        }

        #[test]
        fn subfields_are_closed(a in 0u64..1 << 16, b in 0u64..1 << 16, k in 0u32..5) {
            let (a, b) = (a >> (16 - (1 << k)), b >> (16 - (1 << k)));
            let bound = 1u64 << (1 << k);
            prop_assert!(mul(a, b) < bound);
            if let Some(inverse) = inv(a) {
                prop_assert!(inverse < bound);
            }
        }

        #[test]
        fn powers_are_repeated_products(a: u64, n in 0u64..40) {
            let product = (0..n).fold(1, |product, _| mul(product, a));
            prop_assert_eq!(pow(a, n), product);
        }
    }
}
