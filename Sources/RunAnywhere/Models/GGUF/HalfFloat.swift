/// IEEE 754 half precision (ggml's F16), converted by hand: `Float16` is not available on
/// every platform the SDK builds for (Intel Macs).
enum HalfFloat {
    /// The half nearest to `value` (ties to even), as its bits; out-of-range values become
    /// infinities and NaN stays NaN.
    static func bits(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xFF)
        let mantissa = bits & 0x7F_FFFF
        if exponent == 0xFF {
            return sign | 0x7C00 | (mantissa != 0 ? 0x200 : 0)
        }
        // The exponent rebased from float's bias (127) to half's (15).
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1F { return sign | 0x7C00 }
        if halfExponent <= 0 {
            // A subnormal half (or zero): shift the mantissa, with its implicit bit, into place.
            guard halfExponent >= -10 else { return sign }
            let full = mantissa | 0x80_0000
            let shift = UInt32(14 - halfExponent)
            return sign | UInt16(roundedShift(full, by: shift))
        }
        // Rounding may carry into the exponent, and up to infinity: both come out right.
        let rounded = roundedShift(UInt32(halfExponent) << 23 | mantissa, by: 13)
        return sign | UInt16(rounded)
    }

    /// `value >> shift`, rounded to nearest with ties to even.
    private static func roundedShift(_ value: UInt32, by shift: UInt32) -> UInt32 {
        let kept = value >> shift
        let rest = value & ((1 << shift) - 1)
        let half = UInt32(1) << (shift - 1)
        if rest > half || (rest == half && kept & 1 == 1) { return kept + 1 }
        return kept
    }

    /// The float a half's bits stand for (exact: every half is a float).
    static func float(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F
        let mantissa = UInt32(bits & 0x3FF)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa × 2^-24.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        default:
            return Float(bitPattern: sign | (exponent + 127 - 15) << 23 | mantissa << 13)
        }
    }
}
