#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Dot products and norms over `Float` vectors, eight lanes at a time.
///
/// Vector search spends nearly all its time here, so the loops work on raw buffers with
/// SIMD registers instead of on arrays element by element.
package enum VectorMath {
    /// The dot product of two buffers of equal length.
    @inlinable
    package static func dot(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Float>) -> Float {
        let count = min(a.count, b.count)
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return 0 }
        var acc0 = SIMD8<Float>()
        var acc1 = SIMD8<Float>()
        var i = 0
        while i + 16 <= count {
            let a0 = UnsafeRawPointer(pa + i).loadUnaligned(as: SIMD8<Float>.self)
            let b0 = UnsafeRawPointer(pb + i).loadUnaligned(as: SIMD8<Float>.self)
            let a1 = UnsafeRawPointer(pa + i + 8).loadUnaligned(as: SIMD8<Float>.self)
            let b1 = UnsafeRawPointer(pb + i + 8).loadUnaligned(as: SIMD8<Float>.self)
            // Multiply then add: `addingProduct` is a fused multiply-add, which without an
            // FMA target feature becomes a libm call per lane (ten times slower here).
            acc0 += a0 * b0
            acc1 += a1 * b1
            i += 16
        }
        var sum = (acc0 + acc1).sum()
        while i < count {
            sum += pa[i] * pb[i]
            i += 1
        }
        return sum
    }

    /// The dot product of two arrays of equal length.
    package static func dot(_ a: [Float], _ b: [Float]) -> Float {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in dot(pa, pb) } }
    }

    /// The vector scaled to length 1 (a zero vector stays zero).
    package static func normalized(_ vector: [Float]) -> [Float] {
        let norm = dot(vector, vector).squareRoot()
        guard norm > 0, norm.isFinite else { return vector }
        return vector.map { $0 / norm }
    }

    /// The cosine of the angle between two vectors; 0 when either is zero or their lengths differ.
    package static func cosine(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        let denominator = (dot(a, a) * dot(b, b)).squareRoot()
        guard denominator > 0, denominator.isFinite else { return 0 }
        return dot(a, b) / denominator
    }
}
